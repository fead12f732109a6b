"""Branch from here: a new game that plays on from a position of a finished one, the part
of it hidden from the branching seat dealt anew.

``branch_point(record, index, seat)`` takes a finished game's record (CONTRACT §1), the
number of its actions played (``index``: 0 is the game as dealt) and the seat that plays
on; ``deal(point, players, seed)`` gives the new game: what is dealt (the game's
``deck_field``: the source's deal with every card ``seat`` had not seen by then in a new
order drawn from ``seed``, ``Game.redeal``) and the events of the source's first
``index`` actions replayed on it. So the new game is an ordinary game from its first
event on (a table folds, projects and chains it like any other): the public part and
``seat``'s own hand are as they were at the position, the rest is a fresh deal
consistent with what ``seat`` knew, never the real one ("play on", not "replay").

The re-deal is checked, not trusted: the branch's position must give ``seat`` the very
observation (``Game.observation``) the source's gave it. A deal that does not, or on which a
source action is refused (an automatic step went another way: Keltis's final turn that
ended by itself told everyone that player had no legal lay left, which a re-dealt hand
may have), is drawn again from the next stream, ``seed + "/branch/" + k``
for k = 0, 1, …; ``ATTEMPTS`` at most. Everything here follows from the record, the
index, the seat, the players and the seed, so ``verify`` recomputes a branch's deal from
its record (docs/fairness.md, "Branches").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine import get_game, record_game
from engine.game import IllegalAction, Message, RecordError
from engine.shuffle import RandomStream

ATTEMPTS = 256
"""Re-deals tried before giving up (``BranchError`` ``no_redeal``); one nearly always
fits."""


class BranchError(ValueError):
    """A branch that cannot be made: ``code`` (``bad_record``, ``bad_index``,
    ``bad_seat``, ``game_over``, ``no_redeal``) and a sentence ``message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type[BranchError], tuple[str, str]]:
        # Raised in a worker process: it crosses back pickled, code and message kept.
        return BranchError, (self.code, self.message)


@dataclass(frozen=True)
class BranchPoint:
    """Where a branch starts. ``game``, ``options`` and ``dealt`` (the ``deck_field``)
    of the source record, its ``seed`` (Loot Island's reshuffles replay from it),
    ``actions``: its first ``index`` actions (wire form), ``seat``: the seat that plays
    on, ``seats``: the number of seats."""

    game: str
    options: dict[str, Any]
    seed: str | None
    dealt: Any
    actions: tuple[dict[str, Any], ...]
    seat: int
    seats: int

    @property
    def index(self) -> int:
        """The number of the source's actions played before the branch."""
        return len(self.actions)

    def to_dict(self) -> dict[str, Any]:
        """The stored form (a branched table's meta, its record's ``branch``): ``game``,
        ``options``, ``seed``, ``dealt``, ``index``, ``seat``, ``seats``; the actions are
        the branched record's own first ``index`` ones."""
        return {"game": self.game, "options": self.options, "seed": self.seed,
                "dealt": self.dealt, "index": self.index, "seat": self.seat,
                "seats": self.seats}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], actions: Sequence[Any]) -> BranchPoint:
        """The point of ``d`` (``to_dict``), with the first ``d["index"]`` of
        ``actions`` (the branched record's). Raises ``BranchError`` (``bad_record``) for
        a malformed one."""
        try:
            index, seat, seats = d["index"], d["seat"], d["seats"]
            if not all(type(x) is int for x in (index, seat, seats)) \
                    or not 0 <= index <= len(actions) or not 0 <= seat < seats:
                raise ValueError("index, seat or seats out of range")
            return cls(str(d["game"]), dict(d["options"] or {}), d["seed"], d["dealt"],
                       tuple(dict(a) for a in actions[:index]), seat, seats)
        except (KeyError, TypeError, ValueError) as e:
            raise BranchError("bad_record", f"branch: {e}") from None


def branch_point(record: Mapping[str, Any], index: Any, seat: Any) -> BranchPoint:
    """The branch of ``record`` after its first ``index`` actions, for ``seat``.

    Raises ``BranchError``: ``bad_record`` (it does not replay), ``bad_index`` (not an
    int in 0..the number of actions), ``bad_seat`` (not a seat of the game),
    ``game_over`` (the game had ended by then: nothing to play on)."""
    try:
        game = record_game(record)
        _, events = game.replay_record(record)
    except RecordError as e:
        raise BranchError("bad_record", str(e)) from None
    actions = list(record.get("actions", []))
    seats = len(record["players"])
    if type(index) is not int or not 0 <= index <= len(actions):
        raise BranchError("bad_index", f"index must be 0..{len(actions)}, not {index!r}")
    if type(seat) is not int or not 0 <= seat < seats:
        raise BranchError("bad_seat", f"seat must be 0..{seats - 1}, not {seat!r}")
    point = BranchPoint(game.name, dict(record.get("options") or {}), record.get("seed"),
                        game.setup_deck(events), tuple(dict(a) for a in actions[:index]),
                        seat, seats)
    state = _replay(point, list(record["players"]), point.seed, point.dealt)[0]
    if game.is_over(state):
        raise BranchError("game_over", f"the game had ended after action {index}")
    return point


Step = tuple[Message | None, list[Message]]
"""An action (``None``: the game's start) and the events it caused."""


@dataclass(frozen=True)
class Branch:
    """A branch's game: ``dealt`` (the game's ``deck_field``), ``steps`` (the start, then
    each of the source's first ``index`` actions with its events) and ``attempt`` (the
    stream ``seed/branch/<attempt>`` that dealt it)."""

    dealt: Any
    steps: list[Step]
    attempt: int


def deal(point: BranchPoint, players: Sequence[str], seed: str) -> Branch:
    """The branch of ``point`` for a new game of ``players`` (names in seat order) with
    ``seed`` (module docstring). Raises ``BranchError``: ``bad_seat`` (another number of
    players), ``bad_record`` (the point does not replay), ``no_redeal`` (no fitting deal
    in ``ATTEMPTS``)."""
    game = get_game(point.game)
    if len(players) != point.seats:
        raise BranchError("bad_seat", f"the branch has {point.seats} seats, "
                                      f"not {len(players)}")
    source, _ = _replay(point, players, point.seed, point.dealt)
    known = game.observation(source, point.seat)
    for attempt in range(ATTEMPTS):
        stream = RandomStream(f"{seed}/branch/{attempt}")
        dealt = game.redeal(point.dealt, source, point.seat, stream)
        try:
            state, steps = _replay(point, players, seed, dealt)
        except BranchError:
            continue  # an automatic step went another way: an action no longer fits
        if game.observation(state, point.seat) == known:
            return Branch(dealt, steps, attempt)
    raise BranchError("no_redeal", f"no deal consistent with seat {point.seat}'s knowledge "
                                   f"in {ATTEMPTS} attempts")


def _replay(point: BranchPoint, players: Sequence[str], seed: str | None, dealt: Any
            ) -> tuple[Any, list[Step]]:
    """The state after the point's actions from ``dealt``, and every step. Raises
    ``BranchError`` (``bad_record``)."""
    game = get_game(point.game)
    try:
        started = game.start(players, point.options, seed, dealt)  # type: ignore[arg-type]
        state = game.replay(started)
        steps: list[Step] = [(None, list(started))]
        for i, wire in enumerate(point.actions):
            action = game.actions.decode(wire)
            try:
                steps.append((action, game.play(state, action)))
            except IllegalAction as e:
                raise BranchError("bad_record", f"action {i}: {e.code}: {e.message}") from None
    except (ValueError, TypeError, IllegalAction) as e:
        if isinstance(e, BranchError):
            raise
        raise BranchError("bad_record", str(e)) from None
    return state, steps
