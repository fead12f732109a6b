"""Per-viewer deltas of a live table (server/table/core.py, server/fanout/room.py)
without sockets:
every viewer class folds, delta by delta, to its own view at that seq; seats share the
spectators' frame when they may see the same; a ``None`` projection sends that viewer
nothing (every delta names ``prev``: the seq its patch applies to); an append (an
action's events) is one delta; a table rebuilt from stored entries continues
exactly as live."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch

from engine.einauge import EINAUGE
from engine.game import Message, Viewer
from engine.keltis import KELTIS, Keltis
from engine.keltis import events as ev
from server.fanout.delta import Delta
from server.table.core import replay_deltas, viewer_keys
from server.table.live import LiveTable
from server.table.meta import Seat, TableMeta

SEATS = 3


def meta() -> TableMeta:
    return TableMeta(id="t1", game="keltis", status="running", name="", options={},
                     seats=[Seat(name=f"p{i}", kind="human") for i in range(SEATS)],
                     contributions=[""] * SEATS, commitment="c" * 64, server_seed="s" * 64,
                     created_at=1.0, tokens=[""] * SEATS, owner="", host="", invite="")


class QuietDraws(Keltis):
    """Keltis, except that a spectator sees nothing of a deck draw: a game whose
    projection is ``None`` for some viewer (no game of the service has one yet)."""

    def project(self, event: Message, viewer: Viewer) -> dict[str, Any] | None:
        if type(event) is ev.CardDrawn and event.source == "deck" and viewer is None:
            return None
        return super().project(event, viewer)


class Played:
    """A table of ``game`` played with random legal actions: every delta, every event,
    and every viewer's view after each seq (``views[seq][key]``)."""

    def __init__(self, game: Any, actions: int, seed: int = 1, per_event: bool = True) -> None:
        self.per_event = per_event
        self.game = game
        self.table = table = LiveTable(meta(), ring_size=100_000)
        table.game, table.keys = game, viewer_keys(game, SEATS)
        table.state = game.initial_state()
        table._reset_views()
        self.events: list[Message] = []
        self.views: list[dict[Viewer, Any]] = [{}]
        self._store(game.start([f"p{i}" for i in range(SEATS)], {}, "v"))
        rng = random.Random(seed)
        for _ in range(actions):
            if game.is_over(table.state):
                break
            seat = game.to_move(table.state)[0]
            self._store(game.decide(table.state,
                                    rng.choice(game.legal_actions(table.state, seat))))
        self.deltas: list[Delta] = list(table.ring)

    def _store(self, events: list[Message]) -> None:
        # ``per_event``: one entry at a time, so the views after every seq can be kept;
        # else each action's events in one append, as live (one delta per action).
        events = list(events)
        for batch in ([[e] for e in events] if self.per_event else [events]):
            entries, _ = self.table.chain(batch, None)
            assert self.table.apply(entries, self.table.seq + 1)
            self.events.extend(batch)
            now = {k: self.game.view(self.table.state, k) for k in self.table.keys}
            self.views.extend([{}] * (len(batch) - 1) + [now])


def test_every_viewer_folds_to_its_own_view_at_every_seq() -> None:
    for game in (KELTIS, EINAUGE):
        for per_event in (True, False):
            p = Played(game, 400, per_event=per_event)
            assert game.is_over(p.table.state)
            for key in p.table.keys:
                view: Any = {}
                last = 0
                for d in p.deltas:
                    msg = d.message(key)
                    assert msg is not None and msg["t"] == "deltas" and msg["seq"] == d.seq
                    assert msg["prev"] == last == d.first - 1
                    assert [e["seq"] for e in msg["events"]] == list(range(d.first, d.seq + 1))
                    view = jsonpatch.apply_patch(view, msg["patch"])
                    assert view == p.views[d.seq][key]  # never more (or less) than it sees
                    last = d.seq
                assert view == p.table.view(key)
            if not per_event:  # one delta per action: an Einauge move is often 2+ events
                assert len(p.deltas) < len(p.events)
    # Before the end no spectator view holds a hand (the engine's view rule, as sent).
    p = Played(KELTIS, 400)
    assert all(pl["hand"] is None for v in p.views[1:-1] for pl in v[None]["players"])
    assert all(pl["hand"] is not None for pl in p.views[-1][None]["players"])  # revealed


def test_seats_share_the_spectators_frame_when_equal() -> None:
    """Patches descend into ``players``: when one player lays, discards or draws, every
    other seat gets the spectators' very frame; only the acting seat (its hand) differs."""
    p = Played(KELTIS, 200)
    acts = [d for d in p.deltas if d.message(None)["events"][0]["event"]["type"]
            in ("card_laid", "card_discarded", "card_drawn")]
    assert len(acts) > 50
    for d in acts:
        actor = d.message(None)["events"][0]["event"]["seat"]
        assert set(d.dicts) == {None, actor}
        assert all(d.frame(s, True) is d.frame(None, True) for s in range(SEATS) if s != actor)
        assert d.frame(actor, True) != d.frame(None, True)


def test_a_none_projection_sends_nothing_and_the_next_delta_names_prev() -> None:
    game = QuietDraws()
    p = Played(game, 400)
    silent = [d.seq for d in p.deltas if d.message(None) is None]
    assert silent and p.deltas[silent[0] - 1].prepared(None, True) is None
    view: Any = {}
    last = 0
    for d in p.deltas:
        msg = d.message(None)
        if msg is None:
            continue
        assert msg["prev"] == last
        view = jsonpatch.apply_patch(view, msg["patch"])
        assert view == p.views[d.seq][None]
        last = msg["seq"]
    for seat in range(SEATS):  # the seats still get every event
        assert all(d.message(seat) is not None for d in p.deltas)


def unheaded(msg: dict[str, Any]) -> dict[str, Any]:
    """``msg`` with the chain heads a replay without stored heads leaves empty."""
    return {**msg, "events": [{**e, "head": ""} for e in msg["events"]]}


def seen_view(p: Played, key: Any, seq: int) -> Any:
    """The view ``key`` was last sent at or before ``seq`` (a ``None`` projection sends
    it nothing; ``p`` applied one event at a time)."""
    sent = [d.seq for d in p.deltas[:seq] if d.message(key) is not None]
    return copy.deepcopy(p.views[sent[-1]][key]) if sent else {}


def test_rebuilt_and_reloaded_tables_continue_as_live() -> None:
    for game in (KELTIS, QuietDraws()):
        p = Played(game, 150, seed=3)
        n = len(p.events)
        for after in (0, 1, 7, 40, n - 1):
            rebuilt = replay_deltas(game, p.table.keys, p.events, [""] * n, after)
            for a, b in zip(rebuilt, p.deltas[after:], strict=True):
                for k in p.table.keys:
                    live = b.message(k)
                    assert a.message(k) == (None if live is None else unheaded(live))
            # A reconnect's catch-up: one delta for everything after ``after``, whose
            # events are the live ones and whose patch turns the view then into the
            # view now.
            [caught] = replay_deltas(game, p.table.keys, p.events, [""] * n, after, ends=())
            assert (caught.first, caught.seq) == (after + 1, n)
            for k in p.table.keys:
                msg = caught.message(k)
                live = [m for d in p.deltas[after:] if (m := d.message(k)) is not None]
                assert msg is not None and [e["event"] for e in msg["events"]] == [
                    e["event"] for m in live for e in m["events"]]
                start = seen_view(p, k, after)
                assert jsonpatch.apply_patch(start, msg["patch"]) == p.table.view(k)
        loaded = LiveTable(meta(), 10)
        loaded.game, loaded.keys = game, p.table.keys
        loaded.replay([{"e": e.to_dict(), "h": "00" * 32} for e in p.events])
        assert loaded.seq == n and loaded.views == p.table.views
        assert loaded.last == p.table.last
