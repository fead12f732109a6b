"""Phase 3, finding loot, and the cleanup (RULES "Phase 3", worked example 1)."""

from __future__ import annotations

import pytest

from engine.game import IllegalAction
from engine.loot_island import events as ev
from tests.engine.loot_island.helpers import Table, a_first, b_first, loot_first, to_round

NORTH_1 = ["map-red-2a", "map-red-3b", "map-red-5a", "map-red-6a", "map-red-8a",
           "map-red-star-a"]
NORTH_2 = ["map-blue-4a", "map-blue-4b", "map-blue-7b", "map-blue-9b", "map-blue-10a"]
OFFER_1 = ["loot-06", "loot-13", "loot-02", "loot-19", "loot-01", "loot-12"]
OFFER_2 = ["loot-16", "loot-08", "loot-21"]


def example_1(north_2: list[str] = NORTH_2) -> Table:
    t = Table(4, seed="loot", orders={"events_a": a_first("event-a01"),
                                      **loot_first(*OFFER_1, *OFFER_2)})
    t.arrange(landings={"north-1": (NORTH_1, [2, 0, 3]), "north-2": (north_2, [1, 2])},
              values={"map-red-star-a": 9}, cubes=[4, 3, 2, 5])
    t.pass_all()
    return t


def test_example_1_big_and_small_loot() -> None:
    t = example_1()
    v = t.view()
    assert v["landings"]["north-1"]["count"] == 7 and v["landings"]["north-1"]["chests"] == 3
    assert v["landings"]["north-2"]["count"] == 6 and v["landings"]["north-2"]["chests"] == 3
    assert t.of(ev.CoastExplored)[0] == ev.CoastExplored(1, "north", [
        {"landing": "north-1", "size": "big", "number": 6},
        {"landing": "north-2", "size": "small", "number": 3}])
    assert v["offer"] == {"landing": "north-1", "size": "big", "cards": OFFER_1,
                          "order": [2, 0, 3]}
    assert v["phase"] == "loot" and v["step"] == "pick" and v["current_seat"] == 2
    picks = [("take_loot", "loot-19", 2, 6), ("take_loot", "loot-13", 0, 4),
             ("discard_loot", "loot-02", 3, 3), ("take_loot", "loot-06", 2, 7),
             ("discard_loot", "loot-01", 0, 1), ("take_loot", "loot-12", 3, 3)]
    for kind, card, seat, cubes in picks:
        assert t.seat == seat
        t.act(kind, card=card)
        assert t.state.players[seat].cubes == cubes
    assert t.view()["offer"]["cards"] == OFFER_2 and t.view()["offer"]["order"] == [1, 2]
    for kind, card, seat, cubes in [("take_loot", "loot-16", 1, 7),
                                    ("take_loot", "loot-21", 2, 11),
                                    ("take_loot", "loot-08", 1, 7)]:
        assert t.seat == seat
        t.act(kind, card=card)
        assert t.state.players[seat].cubes == cubes
    cleared = t.of(ev.CoastCleared)[0]
    assert cleared == ev.CoastCleared("north", NORTH_1 + NORTH_2)
    v = t.view()
    assert v["map_discard"][0] == "map-red-2a" and v["map_discard"][-1] == "map-blue-10a"
    assert v["loot_discard"] == ["loot-02", "loot-01"]
    assert v["landings"]["north-1"]["discs"] == [] and v["landings"]["north-2"]["cards"] == []
    assert all(p["discs_free"] == 3 for p in v["players"])
    assert v["players"][2]["loot"] == ["loot-19", "loot-06", "loot-21"]


def test_example_1_with_a_count_of_4_only_north_1_qualifies() -> None:
    t = example_1(NORTH_2[:3])  # 4a, 4b, 7b (plus1): count 4
    assert t.of(ev.CoastExplored)[0].offers == [  # type: ignore[attr-defined]
        {"landing": "north-1", "size": "big", "number": 6}]


def test_a_pick_is_a_card_of_the_offer_and_never_skipped() -> None:
    t = example_1()
    with pytest.raises(IllegalAction) as e:
        t.decide("take_loot", card="loot-16")
    assert e.value.code == "not_on_offer"
    with pytest.raises(IllegalAction) as e:
        t.decide("pass")
    assert e.value.code == "wrong_step"
    legal = t.legal()
    assert len(legal) == 12  # take or discard each of the 6 cards


@pytest.mark.parametrize(("north_1", "north_2", "discs_2", "big"), [
    # equal counts 5: more chests wins
    (["map-red-2a", "map-red-3a", "map-red-4a", "map-red-7a", "map-red-8b"],
     ["map-blue-2a", "map-blue-3a", "map-blue-4b", "map-blue-6a", "map-blue-8a"], [1], "north-2"),
    # equal counts and chests: more discs wins
    (["map-red-2a", "map-red-3a", "map-red-4a", "map-red-7a", "map-red-8b"],
     ["map-blue-2a", "map-blue-3a", "map-blue-4a", "map-blue-7a", "map-blue-8b"], [1, 2],
     "north-2"),
    # all equal: the -1 landing
    (["map-red-2a", "map-red-3a", "map-red-4a", "map-red-7a", "map-red-8b"],
     ["map-blue-2a", "map-blue-3a", "map-blue-4a", "map-blue-7a", "map-blue-8b"], [1],
     "north-1"),
])
def test_ties_for_the_big_loot(north_1: list[str], north_2: list[str], discs_2: list[int],
                               big: str) -> None:
    t = Table(4, seed="ties", orders={"events_a": a_first("event-a01")})
    t.arrange(landings={"north-1": (north_1, [0]), "north-2": (north_2, discs_2)})
    t.pass_all()
    offers = t.of(ev.CoastExplored)[0].offers  # type: ignore[attr-defined]
    assert offers[0]["landing"] == big and offers[0]["size"] == "big"


def test_a_landing_without_discs_does_not_qualify() -> None:
    t = Table(4, seed="ties", orders={"events_a": a_first("event-a01")})
    t.arrange(landings={"north-1": (NORTH_1, [])}, values={"map-red-star-a": 9})
    t.pass_all()
    assert t.of(ev.CoastExplored)[0].offers == []  # type: ignore[attr-defined]
    assert t.of(ev.CoastCleared)[0].cards == NORTH_1  # type: ignore[attr-defined]


@pytest.mark.parametrize(("event", "minimum", "big"), [
    ("event-a01", 5, 6), ("event-a04", 5, 7), ("event-a05", 4, 6)])
def test_round_1_events_change_minimum_and_big_loot(event: str, minimum: int,
                                                    big: int) -> None:
    t = Table(4, seed="ev", orders={"events_a": a_first(event)})
    assert t.view()["min_cards"] == minimum
    t.arrange(landings={"north-1": (NORTH_1, [2, 0, 3])}, values={"map-red-star-a": 9})
    t.pass_all()
    assert t.of(ev.CoastExplored)[0].offers[0]["number"] == big  # type: ignore[attr-defined]


@pytest.mark.parametrize(("event", "minimum", "big"), [
    ("event-b01", 6, 6), ("event-b02", 4, 6), ("event-b05", 5, 5), ("event-b06", 5, 7)])
def test_round_2_events_change_minimum_and_big_loot(event: str, minimum: int,
                                                    big: int) -> None:
    t = Table(4, seed="ev", orders={"events_a": a_first("event-a01"),
                                    "events_b": b_first(event)})
    to_round(t, 2)
    assert t.view()["min_cards"] == minimum and t.view()["ship"] == "east"
    t.arrange(landings={"east-1": (NORTH_1, [2, 0, 3])}, values={"map-red-star-a": 9})
    t.pass_all()
    offers = t.of(ev.CoastExplored)[-1].offers  # type: ignore[attr-defined]
    assert offers == [{"landing": "east-1", "size": "big", "number": big}]


def test_events_b09_b10_on_picks() -> None:
    for event, kind, card, delta in [("event-b09", "take_loot", "loot-06", +2),
                                     ("event-b10", "discard_loot", "loot-06", -3)]:
        t = Table(4, seed="ev", orders={"events_a": a_first("event-a01"),
                                        "events_b": b_first(event), **loot_first("loot-06")})
        to_round(t, 2)
        t.arrange(landings={"east-1": (NORTH_1, [0])}, values={"map-red-star-a": 9},
                  cubes=[5, 3, 3, 3])
        t.pass_all()
        t.act(kind, card=card)
        assert t.state.players[0].cubes == 5 + delta


def test_discard_sheds_at_most_the_cubes_held_and_1_more_per_amulet() -> None:
    t = example_1()
    t.state.players[2].loot = ["loot-08", "loot-13"]  # position: two amulets kept earlier
    t.state.players[2].cubes = 3
    new = t.act("discard_loot", card="loot-19")
    assert new[0] == ev.LootDiscarded(2, "loot-19", 3)  # 2 + 2 = 4, but only 3 held
    assert t.state.players[2].cubes == 0


def test_short_and_empty_loot_deck() -> None:
    t = example_1()
    t.state.loot_deck = t.state.loot_deck[-1:]  # position: one loot card left
    for c in list(t.state.offer or []):
        t.act("take_loot", card=c)
    offered = t.of(ev.LootOffered)
    assert offered[-1].cards == ["loot-16"]  # type: ignore[attr-defined]
    t.act("take_loot", card="loot-16")
    assert t.view()["loot_deck_count"] == 0 and t.state.round == 2
    # with the deck empty, an offer is empty and nobody picks
    to_round(t, 2)
    t.arrange(landings={"east-1": (NORTH_1, [0])}, values={"map-red-star-a": 9})
    t.pass_all()
    assert t.of(ev.LootOffered)[-1] == ev.LootOffered("east-1", "big", [], [0])
    assert t.state.phase == "preparation" and t.state.round == 3


def test_event_b05_big_loot_at_least_1() -> None:
    t = Table(4, seed="ev", orders={"events_a": a_first("event-a01"),
                                    "events_b": b_first("event-b05")})
    to_round(t, 2)
    plain = ["map-red-4a", "map-red-5a", "map-red-7a", "map-red-7b"]  # count 5, no chest
    t.arrange(landings={"east-1": (plain, [0])})
    t.pass_all()
    assert t.of(ev.CoastExplored)[-1].offers == [  # type: ignore[attr-defined]
        {"landing": "east-1", "size": "big", "number": 1}]
