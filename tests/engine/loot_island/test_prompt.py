"""The compact form of the legal actions (``engine/loot_island/prompt.py``) describes
exactly ``legal_actions``: expanded, it is the very list, in its order, at every decision of
random games (2-5 players, events on and off, every phase), and at arranged positions whose
list is huge while the form stays small."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine.game import IllegalAction
from engine.loot_island import actions as ac
from engine.loot_island.data import MAP_INDEX
from engine.loot_island.prompt import expand
from tests.engine.loot_island.helpers import G, Table, a_first, b_first, to_round


def wire(actions: list) -> list[dict]:
    return [a.to_dict() for a in actions]


def check(t: Table, seen: Counter) -> None:
    s = t.state
    for seat in range(len(s.players)):
        legal = G.legal_actions(s, seat)
        form = G.legal_form(s, seat)
        if seat != s.current_seat:
            assert form is None and legal == []
            continue
        if s.phase in ("preparation",) or (s.phase, s.step) == ("actions", "act"):
            assert form is not None, (s.phase, s.step)
            assert wire(G.expand_form(form)) == wire(legal)
            # The form survives the wire unchanged (plain JSON values only).
            assert wire(expand(json.loads(json.dumps(form)))) == wire(legal)
            seen[s.phase] += 1
            for e in form.get("plays", ()):
                seen["under" if "under" in e else "run"] += 1
                seen["copy"] += bool(e.get("copy"))
                seen["jokers"] += bool(e.get("jokers"))
                seen["first"] += bool(e.get("first"))
            if form.get("islets"):
                seen["islets"] += 1
                seen["portage"] += any("from" in u for u in form["islets"]["uses"])
            elif "plays" in form:
                seen["no_islets"] += 1
        else:
            assert form is None, (s.phase, s.step)
            seen["listed"] += 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_form_expands_to_exactly_the_legal_actions_in_random_games(players: int) -> None:
    seen: Counter = Counter()
    for game in range(4):
        rng = random.Random(f"{players}/{game}")
        options = {"events": game != 3}
        t = Table(players, seed=f"prompt-{players}-{game}", options=options)
        while not G.is_over(t.state):
            check(t, seen)
            legal = t.legal()
            t.play(legal[rng.randrange(len(legal))])
        assert G.legal_form(t.state, 0) is None
    # Every kind of entry came up (else the comparison above proved less than it says).
    for key in ("preparation", "actions", "run", "under", "jokers", "first", "islets",
                "no_islets", "listed"):
        assert seen[key] > 0, (key, seen)


def test_the_form_follows_the_events_that_change_plays_and_islets() -> None:
    # event-a06 (any 2 cards pay an islet), then b07 (no islet), b08 (no joker at a landing).
    t = Table(3, seed="events", orders={"events_a": a_first("event-a06"),
                                        "events_b": b_first("event-b07", "event-b08")})
    seen: Counter = Counter()
    for r in (1, 2, 3):
        to_round(t, r)
        form = G.legal_form(t.state, t.seat)
        assert wire(G.expand_form(form)) == wire(t.legal())
        if r == 1:
            assert len(form["islets"]["pay"]) == 1  # one group: the whole hand
            assert form["islets"]["pay"][0] == sorted(form["islets"]["pay"][0],
                                                      key=MAP_INDEX.__getitem__)
        if r == 2:
            assert form["islets"] is None
        if r == 3:
            assert all(not e.get("jokers") for e in form["plays"])
        seen[r] += 1
    assert seen == Counter({1: 1, 2: 1, 3: 1})


def big_hand_table() -> Table:
    t = Table(4, seed="big")
    # A one, four printed cards and both jokers of one colour, every landing empty.
    red = ["map-red-1a", "map-red-3a", "map-red-5b", "map-red-7a", "map-red-9b"]
    t.arrange(hands={t.seat: [*red, "map-red-star-a", "map-red-star-b", "map-blue-4a"]})
    return t


def test_a_huge_list_has_a_small_form() -> None:
    t = big_hand_table()
    legal = t.legal()
    form = G.legal_form(t.state, t.seat)
    assert wire(G.expand_form(form)) == wire(legal)
    old, new = len(json.dumps(wire(legal))), len(json.dumps(form))
    assert len(legal) > 30_000 and old > 3_000_000, (len(legal), old)
    assert new < 4_000, new


def test_a_discard_of_a_big_hand_is_one_list() -> None:
    t = Table(2, seed="discard")
    while t.state.phase != "preparation":
        t.act("pass") if t.state.phase == "actions" else t.play(t.legal()[0])
    hand = [f"map-blue-{v}a" for v in range(1, 11)] + ["map-green-2a", "map-green-3a"]
    t.arrange(hands={t.seat: hand})
    form = G.legal_form(t.state, t.seat)
    assert form == {"seat": t.seat, "discard": {"cards": sorted(hand, key=MAP_INDEX.__getitem__)}}
    assert wire(G.expand_form(form)) == wire(t.legal())
    assert len(t.legal()) == 2 ** 12


@pytest.mark.parametrize("wire_action", [
    # a joker value outside the run's range; two cards of `first`-kind (a 1 after a card)
    {"type": "play", "landing": "north-1", "cards": ["map-red-3a", "map-red-star-a"],
     "values": {"map-red-star-a": 11}},
    {"type": "play", "landing": "north-1", "cards": ["map-red-3a", "map-red-1a"]},
    # values decreasing in the order laid; a card of another colour in the run
    {"type": "play", "landing": "north-1", "cards": ["map-red-5b", "map-red-3a"]},
    {"type": "play", "landing": "north-1", "cards": ["map-red-3a", "map-blue-4a"]},
    # a joker without a value; a pair of two colours for an islet
    {"type": "play", "landing": "north-1", "cards": ["map-red-star-a"]},
    {"type": "islet", "islet": "islet-spring", "cards": ["map-red-3a", "map-blue-4a"]},
])
def test_an_action_outside_the_form_is_refused_and_changes_nothing(wire_action) -> None:
    t = big_hand_table()
    form = G.legal_form(t.state, t.seat)
    listed = {json.dumps(a.to_dict(), sort_keys=True) for a in G.expand_form(form)}
    action = ac.ACTIONS.decode({"seat": t.seat, **wire_action})
    assert json.dumps(action.to_dict(), sort_keys=True) not in listed
    before = G.view(t.state, t.seat)
    with pytest.raises(IllegalAction):
        G.decide(t.state, action)
    assert G.view(t.state, t.seat) == before
