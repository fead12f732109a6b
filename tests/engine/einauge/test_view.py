"""The public view (CONTRACT section 3) and event projections: no deck order, no seed."""

from __future__ import annotations

import json

from engine.einauge import EINAUGE
from engine.einauge import events as ev
from tests.engine.einauge.helpers import Table, deck_of, filler, simple

FIELDS = ["game", "seq", "phase", "step", "current_seat", "end_triggered", "display",
          "pirate_table", "deck_count", "players", "result"]
PLAYER_FIELDS = ["seat", "name", "sabres", "ducats", "jewels", "rows", "lone_ships"]


def test_public_view_shape() -> None:
    t = Table(filler(20), players=["Anna", "Ben"], seed="secret-seed")
    t.act("buy", card="green-2")
    v = t.view()
    assert list(v) == FIELDS
    assert v["game"] == "einauge" and v["seq"] == len(t.events)
    assert (v["phase"], v["step"], v["current_seat"]) == ("turns", t.state.step, 0)
    assert [list(p) for p in v["players"]] == [PLAYER_FIELDS, PLAYER_FIELDS]
    assert v["players"][0]["rows"] == {"green": ["green-2"]}
    assert v["result"] is None and v["end_triggered"] is False
    json.dumps(v)


def test_rows_in_canonical_color_order() -> None:
    t = Table(deck_of("red-2", "blue-2", "green-2", "gray-2", "orange-2", "purple-2", "red-3"))
    t.act("buy", card="red-2")
    t.run(simple)
    rows = t.view()["players"][0]["rows"]
    order = ["blue", "green", "red", "yellow", "purple", "orange", "brown", "gray"]
    assert list(rows) == sorted(rows, key=order.index)


def test_ended_view() -> None:
    t = Table(filler(7))
    t.run(simple)
    v = t.view()
    assert (v["phase"], v["step"], v["current_seat"]) == ("ended", None, None)
    assert v["result"]["winners"]
    assert EINAUGE.to_move(t.state) == () and EINAUGE.legal_actions(t.state, 0) == []


def test_game_started_projection_hides_the_deck() -> None:
    deck = filler(20)
    started = EINAUGE.start(["a", "b"], {}, "seed", deck)[0]
    for viewer in (None, 0, 1):
        d = EINAUGE.project(started, viewer)
        assert "deck" not in d and "seed" not in d
        assert d["display"] == deck[:6] and d["pirate_table"] == [deck[6]]
        assert d["deck_count"] == 20 - 7 + 8
        assert d["colors"] == ["green", "red", "yellow", "purple", "orange", "brown", "gray"]
    assert "deck" in started.to_dict()  # the stored event keeps it (for the record)


def _walk_with_hidden_rest(rest_a: list[str], rest_b: list[str]) -> None:
    head = filler(9)
    a = Table([*head, *rest_a], players=["a", "b", "c"])
    b = Table([*head, *rest_b], players=["a", "b", "c"])
    for _ in range(4):  # two turns: 4 cards revealed, still within head
        assert a.view() == b.view()
        for viewer in (None, 0, 1, 2):
            assert EINAUGE.view(a.state, viewer) == EINAUGE.view(b.state, viewer)
        action = simple(a)
        ea, eb = a.play(action), b.play(action)
        assert [EINAUGE.project(e, 0) for e in ea] == [EINAUGE.project(e, 0) for e in eb]
    assert [EINAUGE.project(e, None) for e in a.events[:1]] == \
        [EINAUGE.project(e, None) for e in b.events[:1]]


def test_views_do_not_depend_on_the_undealt_order() -> None:
    rest = filler(20, avoid=filler(9))[:8]
    _walk_with_hidden_rest(rest, list(reversed(rest)))


def test_views_same_for_every_viewer() -> None:
    t = Table(filler(12), players=["a", "b", "c"])
    t.run(simple)
    assert EINAUGE.view(t.state, None) == EINAUGE.view(t.state, 0) == EINAUGE.view(t.state, 2)
    for e in t.events:
        assert EINAUGE.project(e, None) == EINAUGE.project(e, 1)
    assert EINAUGE.project(t.events[-1], None)["type"] == "game_ended"


def test_ship_revealed_marks_the_trigger() -> None:
    t = Table(filler(7), players=["a", "b"])
    t.run(simple)
    ships = t.of(ev.ShipRevealed)
    assert ships[0].to_dict() == {"type": "ship_revealed", "card": "ship-1", "seat": 0,
                                  "end_triggered": True}
    assert all(not s.end_triggered for s in ships[1:])
