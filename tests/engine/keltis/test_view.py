"""Views (CONTRACT-keltis §3) and event projections: the exact shape, and what each viewer
may see. The property test swaps two cards a viewer has not seen and checks that its views
and projections stay byte-identical up to that point."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.game import Message
from engine.keltis import KELTIS
from engine.keltis import events as ev
from engine.keltis.cards import CANONICAL
from engine.keltis.state import State
from tests.engine.keltis.helpers import Table, discarder

FIELDS = ["game", "seq", "phase", "step", "current_seat", "draws_left", "end_triggered",
          "deck_count", "removed_count", "stones", "discards", "players", "result"]
PLAYER_FIELDS = ["seat", "name", "hand_count", "hand", "rows", "point_row", "stones"]


def test_view_shape_and_own_hand_only() -> None:
    t = Table(3, hands={0: ["green-5a", "red-4a", "point-4"]})
    t.lay("green-5a")
    for viewer in (None, 0, 1, 2):
        v = t.view(viewer)
        assert list(v) == FIELDS
        assert [list(p) for p in v["players"]] == [PLAYER_FIELDS] * 3
        assert (v["game"], v["seq"], v["phase"], v["step"], v["current_seat"]) == (
            "keltis", len(t.events), "turns", "draw", 0)
        assert (v["draws_left"], v["deck_count"], v["removed_count"]) == (1, 77, 0)
        assert list(v["discards"]) == ["green", "yellow", "red", "pink", "blue", "point"]
        assert [p["hand_count"] for p in v["players"]] == [7, 8, 8]
        assert [p["hand"] is not None for p in v["players"]] == [viewer == i for i in range(3)]
        assert v["players"][0]["rows"] == {
            "green": {"cards": ["green-5a"], "direction": None, "closed": False}}
        assert v["result"] is None and v["end_triggered"] is False
        json.dumps(v)
    assert t.view(0)["players"][0]["hand"] == sorted(t.hand(0), key=CANONICAL.index)


def test_two_players_show_the_removed_count_only() -> None:
    t = Table(2)
    v = t.view(None)
    assert (v["removed_count"], v["deck_count"]) == (30, 55)
    assert not set(json.dumps([t.view(x) for x in (None, 0, 1)]).split('"')) & set(
        t.state.removed)


def test_rows_in_canonical_color_order() -> None:
    t = Table(2, hands={0: ["blue-1", "red-1", "green-1", "yellow-0", "pink-0", "point-0",
                            "point-1", "point-2"]})
    for card in ["blue-1", "red-1", "green-1"]:
        t.lay(card)
        t.draw()
        t.discard(t.hand(1)[0])
        t.draw()
    assert list(t.view()["players"][0]["rows"]) == ["green", "red", "blue"]


def test_ended_view_shows_every_hand_to_everyone() -> None:
    t = Table(4, seed="ended")
    t.run(discarder)
    for viewer in (None, 0, 1, 2, 3):
        v = t.view(viewer)
        assert (v["phase"], v["step"], v["current_seat"], v["draws_left"]) == (
            "ended", None, None, 0)
        assert [p["hand"] for p in v["players"]] == [p.hand for p in t.state.players]
        assert v["result"] == t.state.result and v["result"] is not t.state.result
    assert KELTIS.to_move(t.state) == () and KELTIS.legal_actions(t.state, 0) == []


def test_projections_hide_hands_deck_and_removed_cards() -> None:
    t = Table(2, hands={0: ["green-5a"]}, top=["red-1"])
    t.discard("green-5a")
    t.draw()
    t.discard(t.hand(1)[0])
    t.draw("green")
    started, removed, dealt0, dealt1 = t.events[:4]
    for viewer in (None, 0, 1):
        assert KELTIS.project(started, viewer) == {
            "type": "game_started", "players": ["p0", "p1"], "options": {}, "deck_count": 101}
        assert KELTIS.project(removed, viewer) == {"type": "cards_removed", "count": 30}
    assert KELTIS.project(dealt0, 0) == dealt0.to_dict()
    assert KELTIS.project(dealt0, 1) == {"type": "hand_dealt", "seat": 0, "count": 8}
    assert KELTIS.project(dealt0, None) == {"type": "hand_dealt", "seat": 0, "count": 8}
    assert KELTIS.project(dealt1, 1)["cards"] == dealt1.cards
    drawn = ev.CardDrawn(0, "deck", "red-1")
    assert drawn in t.events
    assert KELTIS.project(drawn, 0) == drawn.to_dict()
    assert KELTIS.project(drawn, 1) == {"type": "card_drawn", "seat": 0, "source": "deck"}
    assert KELTIS.project(drawn, None) == {"type": "card_drawn", "seat": 0, "source": "deck"}
    from_pile = ev.CardDrawn(1, "green", "green-5a")
    assert from_pile in t.events  # a discard pile's top card is public
    assert all(KELTIS.project(from_pile, v) == from_pile.to_dict() for v in (None, 0, 1))
    assert "deck" in started.to_dict()  # the stored event keeps it (for the record)


def test_client_view_adds_helpers() -> None:
    t = Table(2, hands={0: ["green-5a"]})
    t.discard("green-5a")
    v = KELTIS.view(t.state, 0)
    assert v["blocked"] == ["green"] and v["trigger"] is None and v["options"] == {}
    assert (v["final_lays_left"], v["closed_rows"], v["final_turns_left"]) == (0, 0, 0)
    assert {k: v[k] for k in FIELDS} == t.view(0)


# --- property: an unseen card changes nothing a viewer receives ------------------------------

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _unseen(state: State, viewer: int | None) -> list[str]:
    if viewer is not None:
        return list(KELTIS.observation(state, viewer).unseen)
    public = {c for pile in state.discards.values() for c in pile}
    for p in state.players:
        public.update(p.point_row, p.known, *p.rows.values())
    return [c for c in CANONICAL if c not in public]


def _received(state: State, events: list[Message], viewer: int | None) -> str:
    """Everything ``viewer`` gets at this point, as the bytes a server would send."""
    return json.dumps({
        "view": KELTIS.view(state, viewer),
        "public": KELTIS.public_view(state, viewer),
        "events": [KELTIS.project(e, viewer) for e in events],
        "legal": ([a.to_dict() for a in KELTIS.legal_actions(state, viewer)]
                  if viewer is not None else None),
    }, sort_keys=True)


@SETTINGS
@given(n=st.integers(2, 4), seed=st.text(max_size=8), rng=st.integers(0, 2**32 - 1),
       viewer=st.integers(-1, 3), cut=st.floats(0, 1))
def test_unseen_cards_change_nothing_a_viewer_receives(n: int, seed: str, rng: int,
                                                       viewer: int, cut: float) -> None:
    who: int | None = None if viewer < 0 else viewer % n
    r = random.Random(rng)
    names = [f"p{i}" for i in range(n)]
    events = KELTIS.start(names, {}, seed)
    state = KELTIS.replay(events)
    deck = list(events[0].deck)
    actions: list[Message] = []
    batches: list[list[Message]] = [events]
    # Normal turns only: a final turn that ends by itself shows everyone that player had
    # no legal lay left (CONTRACT: finish is recorded only where a lay was possible).
    while state.phase == "turns":
        legal = KELTIS.legal_actions(state, KELTIS.to_move(state)[0])
        action = legal[r.randrange(len(legal))]
        probe = state.copy()
        new = KELTIS.play(probe, action)
        if probe.phase != "turns":
            break
        state = probe
        actions.append(action)
        batches.append(new)
    k = int(cut * len(actions))
    replay_a = KELTIS.replay([e for b in batches[:k + 1] for e in b])
    unseen = _unseen(replay_a, who)
    assert len(unseen) >= 2
    x, y = r.sample(unseen, 2)
    swapped = [y if c == x else x if c == y else c for c in deck]

    a_events = KELTIS.start(names, {}, seed, deck)
    b_events = KELTIS.start(names, {}, seed, swapped)
    a, b = KELTIS.replay(a_events), KELTIS.replay(b_events)
    assert _received(a, a_events, who) == _received(b, b_events, who)
    for action in actions[:k]:
        new_a, new_b = KELTIS.play(a, action), KELTIS.play(b, action)
        assert _received(a, new_a, who) == _received(b, new_b, who)
    assert a.deck != b.deck  # the games do differ, only where this viewer cannot look
