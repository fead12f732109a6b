"""Phase 2, using an islet (RULES "Using an islet", the islet table and its Decisions)."""

from __future__ import annotations

import pytest

from engine.game import IllegalAction
from engine.loot_island import events as ev
from tests.engine.loot_island.helpers import Table, a_first, b_first, loot_first, to_round

A01 = ["event-a01", "event-a02", "event-a03", "event-a04", "event-a05", "event-a06"]
PAIR = ["map-red-5a", "map-red-9b"]


def table(orders: dict | None = None) -> Table:
    t = Table(3, seed="islets", orders={"events_a": A01, **(orders or {})})
    t.arrange(hands={0: [*PAIR, "map-blue-3a", "map-green-4b"]}, cubes=[5, 3, 3])
    return t


def code(t: Table, **fields: object) -> str:
    with pytest.raises(IllegalAction) as e:
        t.decide("islet", **fields)
    return e.value.code


def test_spring_sheds_2_and_the_islet_is_used_until_next_phase_1() -> None:
    t = table()
    new = t.act("islet", islet="islet-spring", cards=PAIR)
    assert new[0] == ev.IsletUsed(0, "islet-spring", PAIR, False)
    assert new[1] == ev.CubesShed(0, 2, "islet")
    v = t.view()
    assert v["islets"]["islet-spring"] == "used" and v["map_discard"] == PAIR
    t.arrange(hands={1: ["map-blue-5a", "map-blue-6a"]})
    assert code(t, islet="islet-spring", cards=["map-blue-5a", "map-blue-6a"]) == "islet_used"
    to_round(t, 2)
    assert t.view()["islets"]["islet-spring"] == "open"


def test_lookout_draws_3() -> None:
    t = table()
    top3 = t.state.map_deck[-3:][::-1]
    new = t.act("islet", islet="islet-lookout", cards=PAIR)
    assert [e.card for e in new if isinstance(e, ev.MapCardDrawn)] == top3
    assert len(t.state.players[0].hand) == 2 + 3


def test_winds_moves_the_ship_and_the_explored_coast() -> None:
    t = table()
    t.arrange(landings={"east-1": (["map-green-2a", "map-green-3a", "map-green-6a",
                                    "map-green-8a"], [1])})
    t.act("islet", islet="islet-winds", cards=PAIR)
    assert t.view()["ship"] == "east"
    t.pass_all()
    explored = t.of(ev.CoastExplored)[0]
    assert explored.coast == "east" and explored.offers[0]["landing"] == "east-1"  # type: ignore[attr-defined]


def test_wreck_keeps_the_top_loot_card_with_its_curse_and_cannot_be_discarded() -> None:
    t = table(loot_first("loot-16"))
    new = t.act("islet", islet="islet-wreck", cards=PAIR)
    assert new[1] == ev.LootTaken(0, "loot-16", 4, True)
    v = t.view()
    assert v["players"][0]["loot"] == ["loot-16"] and v["players"][0]["cubes"] == 9
    assert v["loot_deck_counts"]["I"] == 20 and v["offer"] is None


def test_wreck_with_event_b09_costs_a_cube_more_and_with_empty_deck_does_nothing() -> None:
    t = Table(3, seed="islets", orders={"events_a": A01, "events_b": b_first("event-b09"),
                                        **loot_first("loot-16")})
    to_round(t, 2)
    seat = t.seat
    t.arrange(hands={seat: PAIR})
    cubes = t.state.players[seat].cubes
    t.act("islet", islet="islet-wreck", cards=PAIR)
    assert t.state.players[seat].cubes == cubes + 5
    t = table()
    t.state.loot_deck.clear()  # position: the loot deck has run out
    new = t.act("islet", islet="islet-wreck", cards=PAIR)
    assert [type(e) for e in new[:1]] == [ev.IsletUsed] and not t.of(ev.LootTaken)


def test_shortcut_camp_portage_move_discs() -> None:
    t = table()
    t.arrange(landings={"north-1": (["map-red-2a"], [0, 1, 2]),
                        "south-1": (["map-blue-2a"], [1])})
    assert code(t, islet="islet-shortcut", cards=PAIR, landing="east-1") == "no_disc_there"
    assert code(t, islet="islet-shortcut", cards=PAIR) == "bad_parameter"
    t.act("islet", islet="islet-shortcut", cards=PAIR, landing="north-1")
    assert t.state.landings[0].discs == [0, 1, 2]  # already at the bottom: unchanged
    t2 = table()
    t2.arrange(landings={"north-1": (["map-red-2a"], [1, 2, 0])})
    t2.act("islet", islet="islet-shortcut", cards=PAIR, landing="north-1")
    assert t2.state.landings[0].discs == [0, 1, 2]
    t3 = table()
    t3.arrange(landings={"south-1": (["map-blue-2a"], [1])})
    assert code(t3, islet="islet-camp", cards=PAIR, landing="south-1", to="west-1") \
        == "bad_parameter"
    t3.act("islet", islet="islet-camp", cards=PAIR, landing="south-1")
    assert t3.view()["landings"]["south-1"]["discs"] == [1, 0]
    assert t3.view()["landings"]["south-1"]["cards"][0]["card"] == "map-blue-2a"  # no card laid
    t4 = table()
    t4.arrange(landings={"north-1": (["map-red-2a"], [0, 1]), "south-1": (["map-blue-2a"], [1])})
    assert code(t4, islet="islet-portage", cards=PAIR, from_="north-1", to="north-1") \
        == "disc_already_there"
    assert code(t4, islet="islet-portage", cards=PAIR, from_="east-1", to="south-1") \
        == "no_disc_there"
    t4.act("islet", islet="islet-portage", cards=PAIR, from_="north-1", to="south-1")
    assert t4.state.landings[0].discs == [1] and t4.state.landings[4].discs == [1, 0]


def test_camp_needs_a_free_disc_and_a_landing_without_one() -> None:
    t = table()
    t.arrange(landings={"north-1": (["map-red-2a"], [0]), "east-1": (["map-green-2a"], [0]),
                        "south-1": (["map-blue-2a"], [0])})
    assert code(t, islet="islet-camp", cards=PAIR, landing="west-1") == "no_free_disc"
    assert code(t, islet="islet-camp", cards=PAIR, landing="north-1") == "disc_already_there"
    assert t.decide("islet", islet="islet-camp", cards=PAIR, skip=True)


def test_skip_blocks_the_islet_without_effect_and_takes_no_parameter() -> None:
    t = table()
    assert code(t, islet="islet-shortcut", cards=PAIR, skip=True, landing="north-1") \
        == "bad_parameter"
    new = t.act("islet", islet="islet-spring", cards=PAIR, skip=True)
    assert new[0] == ev.IsletUsed(0, "islet-spring", PAIR, True)
    assert not any(isinstance(e, ev.CubesShed) for e in new)
    assert t.view()["islets"]["islet-spring"] == "used"


def test_payment_two_distinct_cards_of_one_colour_jokers_and_1s_count() -> None:
    t = table()
    t.arrange(hands={0: ["map-red-5a", "map-blue-3a", "map-red-star-b", "map-red-1a"]})
    assert code(t, islet="islet-spring", cards=["map-red-5a", "map-blue-3a"]) == "mixed_colours"
    assert code(t, islet="islet-spring", cards=["map-red-5a"]) == "bad_action"
    assert code(t, islet="islet-spring", cards=["map-red-5a", "map-red-5a"]) == "bad_action"
    assert code(t, islet="islet-nowhere", cards=PAIR) == "unknown_islet"
    assert code(t, islet="islet-spring", cards=["map-red-star-b", "map-red-1a"], skip=1) \
        == "bad_action"
    assert t.decide("islet", islet="islet-spring", cards=["map-red-star-b", "map-red-1a"])


def test_event_a06_any_two_cards_and_b07_no_islet() -> None:
    t = Table(3, seed="islets", orders={"events_a": a_first("event-a06")})
    t.arrange(hands={0: ["map-red-5a", "map-blue-3a"]})
    assert t.decide("islet", islet="islet-spring", cards=["map-red-5a", "map-blue-3a"])
    t = Table(3, seed="islets", orders={"events_a": A01, "events_b": b_first("event-b07")})
    to_round(t, 2)
    t.arrange(hands={t.seat: PAIR})
    assert code(t, islet="islet-spring", cards=PAIR) == "islets_blocked"
