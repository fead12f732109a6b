"""The live table's pure core (server/table/core.py) over every registered game, with no
socket, Redis, lock or clock.

Each game of the registry is played with seeded random legal actions at every seat count
it declares (``min_players`` … ``max_players``), with seat-control events in its stream
(a timeout, a handover to a bot and the player's return, a resignation), appended as the
server appends them (``TableCore.chain``, then ``take``). Checked at every append:

- every viewer class folds its patches, delta by delta, to exactly its view, and every
  view carries the table's seq (seat-control events included);
- the outbox prompts exactly the seated seats to move that their person plays, and every
  prompt (kept between appends or not) is the one listed afresh from the state;
- ``replay_deltas`` over the stored events gives the very deltas sent live;
- a core rebuilt from the stored entries (``replay``) continues exactly as the live one.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
import pytest

from engine import GAMES, seat_control
from engine.game import Game, Message
from server.table.core import Outbox, TableCore, replay_deltas, viewer_keys
from server.table.meta import Seat, TableMeta

APPENDS = 80
"""Actions played per game at most (a game that ends sooner is played to its end)."""

CONTROL_STEPS = (5, 9, 13, 17)
"""The steps before which the seat-control events are appended, in a game of more than
17 actions: a timeout, a handover to a bot, the player's return, a resignation. A shorter
game gets them at the same fractions of its actions (several may share an append)."""

CASES = [(name, seats, seed) for name, game in sorted(GAMES.items())
         for seats in range(game.min_players, game.max_players + 1) for seed in (1, 2)]


def meta(game: str, seats: int) -> TableMeta:
    return TableMeta(id=f"core-{game}-{seats}", game=game, status="running", name="",
                     options={}, seats=[Seat(name=f"p{i}", kind="human") for i in range(seats)],
                     contributions=[""] * seats, commitment="c" * 64, server_seed="s" * 64,
                     created_at=1.0, tokens=[""] * seats)


def actions_to_the_end(game: Game, seats: int, seed: int) -> int:
    """How many actions ``Played`` plays (its seeded choices, without a table)."""
    rng = random.Random(seed)
    state = game.replay(game.start([f"p{i}" for i in range(seats)], {}, f"seed{seed}"))
    for step in range(APPENDS):
        if game.is_over(state):
            return step
        seat = rng.choice(game.to_move(state))
        game.play(state, rng.choice(game.legal_actions(state, seat)))
    return APPENDS


def control_schedule(actions: int) -> tuple[int, ...]:
    """``CONTROL_STEPS`` fitted into a game of ``actions`` actions (order kept)."""
    last = CONTROL_STEPS[-1]
    if actions > last:
        return CONTROL_STEPS
    return tuple(s * max(actions - 1, 0) // last for s in CONTROL_STEPS)


def control_events(step: int, schedule: tuple[int, ...], seats: int, game: Game,
                   state: Any) -> list[Message]:
    """The seat-control events appended before action ``step`` (none at most steps)."""
    mover = game.to_move(state)[0]
    made: list[Message] = [
        seat_control.SeatTimedOut(mover, 1),
        seat_control.SeatControllerChanged(mover, "bot", "handover", "random"),
        seat_control.SeatControllerChanged(mover, "player", "returned"),
        seat_control.SeatControllerChanged(seats - 1, "bot", "resigned", "random")]
    return [e for at, e in zip(schedule, made, strict=True) if at == step]


def fresh_prompt(core: TableCore, seat: int) -> dict[str, Any]:
    """The prompt of ``seat`` listed from the core's state now, nothing kept: the game's
    compact form, or its legal actions and their details each asked for separately."""
    game, state = core.game, core.state
    form = game.legal_form(state, seat)
    if form is not None:
        return {"t": "prompt", "seq": core.seq, "legal_form": form}
    msg = {"t": "prompt", "seq": core.seq,
           "legal_actions": [a.to_dict() for a in game.legal_actions(state, seat)]}
    details = game.action_details(state, seat)
    if details is not None:
        msg["details"] = details
    return msg


class Played:
    """A table core fed the appends of one seeded game, with what each viewer holds."""

    def __init__(self, name: str, seats: int, seed: int) -> None:
        self.game = GAMES[name]
        self.core = TableCore(meta(name, seats), ring_size=10_000)
        self.seated = set(range(seats - 1))  # the last seat has no socket here
        self.held: dict[int | None, dict[str, Any]] = {}
        self.entries: list[dict[str, Any]] = []
        self.ends: list[int] = []
        self.outboxes: list[Outbox] = []
        self.schedule = control_schedule(actions_to_the_end(self.game, seats, seed))
        rng = random.Random(seed)
        self.append(list(self.game.start([f"p{i}" for i in range(seats)], {}, f"seed{seed}")))
        for step in range(APPENDS):
            if self.core.game_over():
                break
            control = control_events(step, self.schedule, seats, self.game, self.core.state)
            if control:
                self.append(control)
            seat = rng.choice(self.game.to_move(self.core.state))
            action = rng.choice(self.game.legal_actions(self.core.state, seat))
            self.append(list(self.game.decide(self.core.state, action)), action)

    def append(self, events: list[Message], action: Message | None = None) -> None:
        entries, head = self.core.chain(events, action)
        out = self.core.take(entries, self.core.seq + 1, self.seated, now=0)
        assert out is not None and out.delta is not None
        assert self.core.head.hex() == head
        assert out.control_changed == any(seat_control.is_control(e) for e in events)
        self.entries += entries
        self.ends.append(self.core.seq)
        self.outboxes.append(out)
        self.check(out)

    def check(self, out: Outbox) -> None:
        core = self.core
        assert out.delta is not None and out.delta.seq == core.seq
        for key in [None, *range(len(core.meta.seats))]:
            msg = out.delta.message(key)  # what a socket of that seat is sent
            if msg is None:
                continue
            base = self.held.get(key) if msg["prev"] else None
            self.held[key] = jsonpatch.apply_patch(copy.deepcopy(base) if base else {},
                                                   msg["patch"])
            assert self.held[key] == core.view(core.viewer_class(key)), (key, core.seq)
            if "seq" in self.held[key]:
                assert self.held[key]["seq"] == core.seq  # the table's, not the game's
        to_move = core.game.to_move(core.state)
        assert out.to_move == to_move
        assert [p[0] for p in out.prompts] == [
            s for s in to_move if s in self.seated and not core.by_bot(s)]
        for seat, seq, prompt in out.prompts:
            assert seq == core.seq and prompt == core.prompt(seat) == fresh_prompt(core, seat)
        for seat in to_move:  # after a seat-control append too (the state did not change)
            assert core.prompt(seat) == fresh_prompt(core, seat)
        assert out.over == core.game.is_over(core.state)


@pytest.mark.parametrize(("name", "seats", "seed"), CASES)
def test_live_deltas_fold_to_every_view_and_replay_exactly(name: str, seats: int,
                                                           seed: int) -> None:
    played = Played(name, seats, seed)
    core = played.core
    assert core.resigned_at == {seats - 1: played.ends[control_step(played)]}
    live = [out.delta for out in played.outboxes]
    events = [core.decode(e) for e in played.entries]
    heads = [e["h"] for e in played.entries]
    again = replay_deltas(core.game, viewer_keys(core.game, seats), events, heads,
                          ends=set(played.ends))
    assert [d.dicts for d in again] == [d.dicts for d in live if d is not None]


def control_step(played: Played) -> int:
    """The index in ``played.ends`` of the append of the control events before the
    resignation's step (the start is append 0; each control append comes right before its
    action's)."""
    # Appends: start, then per step an optional control append and the action's.
    index = 1
    for s in range(played.schedule[-1]):
        index += 2 if s in played.schedule else 1
    return index


@pytest.mark.parametrize(("name", "seats", "seed"), CASES[::2])
def test_a_core_rebuilt_from_its_entries_continues_as_the_live_one(name: str, seats: int,
                                                                   seed: int) -> None:
    played = Played(name, seats, seed)
    live = played.core
    cut = len(played.entries) // 2
    rebuilt = TableCore(meta(name, seats), ring_size=16)
    rebuilt.replay(played.entries[:cut])
    assert rebuilt.recent(0) is None  # nothing in the ring: a reconnect gets a view
    out = rebuilt.take(played.entries, 1, played.seated, now=0)  # the rest, skipped ones
    assert out is not None
    assert (rebuilt.seq, rebuilt.head, rebuilt.keys) == (live.seq, live.head, live.keys)
    assert rebuilt.views == live.views and rebuilt.last == live.last
    assert rebuilt.resigned_at == live.resigned_at
    assert rebuilt.take(played.entries[-1:], live.seq + 2) is None  # a gap: nothing folded
    assert rebuilt.seq == live.seq


def test_a_resigned_seat_gets_the_spectators_frames_from_its_resignation_on() -> None:
    played = Played("keltis", 3, 1)
    core = played.core
    at = core.resigned_at[2]
    for out in played.outboxes:
        assert out.delta is not None
        if out.delta.first > at:
            assert 2 not in out.delta.dicts  # the spectators' frame
    assert 2 not in core.keys and core.viewer_class(2) is None


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_voided_game_is_over_with_nobody_to_move(name: str) -> None:
    game = GAMES[name]
    core = TableCore(meta(name, 2), ring_size=100)
    entries, _ = core.chain(list(game.start(["p0", "p1"], {}, "seed")), None)
    out = core.take(entries, 1, {0, 1}, now=0)
    assert out is not None and out.to_move and not out.over and not core.game_over()
    entries, head = core.chain([seat_control.GameVoided("restored")], None)
    out = core.take(entries, core.seq + 1, {0, 1}, now=0)
    assert out is not None and out.delta is not None and core.head.hex() == head
    assert (out.over, out.to_move, out.prompts) == (True, (), [])
    assert core.game_over() and core.voided == "restored" and core.deadline() is None
    assert not game.is_over(core.state)  # the game itself did not end by its rules
    # Every viewer is sent the void, unchanged.
    for key in (None, 0, 1):
        msg = out.delta.message(key)
        assert msg is not None
        assert [e["event"] for e in msg["events"]] == [{"type": "game_voided",
                                                        "reason": "restored"}]
