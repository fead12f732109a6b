"""Phase 2, playing map cards (RULES "Playing map cards", "The value-1 card")."""

from __future__ import annotations

import pytest

from engine.game import IllegalAction
from engine.loot_island import events as ev
from tests.engine.loot_island.helpers import Table, b_first, to_round

EVENTS_A01 = {"events_a": ["event-a01", "event-a02", "event-a03", "event-a04", "event-a05",
                           "event-a06"]}


def table(**kw: object) -> Table:
    return Table(4, seed="play", orders=kw.pop("orders", EVENTS_A01))  # type: ignore[arg-type]


def code(t: Table, type: str, **fields: object) -> str:
    with pytest.raises(IllegalAction) as e:
        t.decide(type, **fields)
    return e.value.code


def test_example_5_legal_plays() -> None:
    t = table()
    hand = ["map-blue-6b", "map-blue-star-b", "map-blue-8a", "map-blue-9a", "map-blue-7a",
            "map-blue-5b", "map-red-2a"]
    t.arrange(hands={0: hand}, landings={"north-2": (["map-blue-6a"], [2])}, cubes=[3, 3, 4, 3])
    play = {"landing": "north-2", "cards": ["map-blue-6b", "map-blue-star-b", "map-blue-8a"],
            "values": {"map-blue-star-b": 8}}
    new = t.act("play", **play)
    assert new[0] == ev.MapCardsPlayed(0, "north-2", play["cards"], {"map-blue-star-b": 8},
                                       True, False)
    # every disc holder there sheds 1 cube (-6b): seat 2, then seat 0 on top (bottom to top)
    assert [e for e in new if isinstance(e, ev.CubesShed)] == [
        ev.CubesShed(2, 1, "shed"), ev.CubesShed(0, 1, "shed")]
    x = t.view()["landings"]["north-2"]
    assert x["count"] == 4 and x["chests"] == 2  # count +3, chests +1 (-8a)
    assert [c["value"] for c in x["cards"]] == [6, 6, 8, 8] and x["discs"] == [2, 0]


def test_example_5_illegal_plays() -> None:
    t = table()
    t.arrange(hands={0: ["map-blue-9a", "map-blue-7a", "map-blue-5b", "map-blue-star-a"]},
              landings={"north-2": (["map-blue-6a"], [2])})
    assert code(t, "play", landing="north-2", cards=["map-blue-9a", "map-blue-7a"]) \
        == "values_decrease"
    assert code(t, "play", landing="north-2", cards=["map-blue-5b"]) == "value_too_low"
    assert code(t, "play", landing="north-2", cards=["map-blue-star-a"]) \
        == "joker_value_missing"
    assert code(t, "play", landing="north-2", cards=["map-blue-star-a"],
                values={"map-blue-star-a": 11}) == "bad_action"
    assert code(t, "play", landing="north-2", cards=["map-blue-star-a"],
                values={"map-blue-star-a": 5}) == "value_too_low"
    assert t.decide("play", landing="north-2", cards=["map-blue-star-a"],
                    values={"map-blue-star-a": 6})


def test_example_4_value_1_pushed_under_with_copy() -> None:
    t = table()
    t.arrange(hands={0: ["map-green-1a", "map-green-1b", "map-green-9a", "map-blue-1b"]},
              landings={"east-1": (["map-green-3b", "map-green-4a", "map-green-7a"], [1, 3])})
    top = t.state.map_deck[-1]
    new = t.act("play", landing="east-1", cards=["map-green-1a"], copy="draw")
    assert new[0] == ev.MapCardsPlayed(0, "east-1", ["map-green-1a"], {}, True, True, "draw")
    assert new[1] == ev.MapCardDrawn(0, top, "copy")
    assert not any(isinstance(e, ev.CubesTaken) for e in new)  # no `one` under a row
    x = t.view()["landings"]["east-1"]
    assert [c["card"] for c in x["cards"]] == ["map-green-1a", "map-green-3b", "map-green-4a",
                                               "map-green-7a"]
    assert x["count"] == 4 and x["discs"] == [1, 3, 0]

    # Later (the position after it): the second 1 goes below the first, copying shed or
    # draw but never `one`; a 1 under a row goes alone.
    t = table()
    t.arrange(hands={0: ["map-green-1b", "map-green-9a", "map-blue-1b"]},
              landings={"east-1": (["map-green-1a", "map-green-3b", "map-green-4a",
                                    "map-green-7a"], [1, 3, 0])})
    assert code(t, "play", landing="east-1", cards=["map-green-1b", "map-green-9a"]) \
        == "one_misplaced"
    assert code(t, "play", landing="east-1", cards=["map-green-1b"], copy="one") == "bad_action"
    new = t.act("play", landing="east-1", cards=["map-green-1b"], copy="shed")
    assert new[0].under and new[1] == ev.CubesShed(0, 1, "copy")  # type: ignore[attr-defined]
    assert [c["card"] for c in t.view()["landings"]["east-1"]["cards"]][:2] == [
        "map-green-1b", "map-green-1a"]
    t = table()
    t.arrange(hands={0: ["map-green-1b", "map-blue-1b"]},
              landings={"east-1": (["map-green-3b"], [1])})
    # the empty east-2: blue 1 legal (every other player takes a cube), green 1 not
    assert code(t, "play", landing="east-2", cards=["map-green-1b"]) == "colour_taken"
    new = t.decide("play", landing="east-2", cards=["map-blue-1b"])
    assert [e for e in new if isinstance(e, ev.CubesTaken)] == [
        ev.CubesTaken(1, 1, "one"), ev.CubesTaken(2, 1, "one"), ev.CubesTaken(3, 1, "one")]


def test_copy_needs_a_row_card_with_that_action_and_a_lone_1_under() -> None:
    t = table()
    t.arrange(hands={0: ["map-red-1a", "map-red-1b", "map-red-5a"]},
              landings={"north-1": (["map-red-2a"], [1])})  # chest only
    assert code(t, "play", landing="north-1", cards=["map-red-1a"], copy="draw") \
        == "copy_unavailable"
    assert t.decide("play", landing="north-1", cards=["map-red-1a"])
    assert code(t, "play", landing="north-1", cards=["map-red-5a"], copy="draw") \
        == "copy_not_allowed"
    assert code(t, "play", landing="south-1", cards=["map-red-1a"], copy="draw") \
        == "copy_not_allowed"  # at an empty landing a 1 is case (a): no copy


def test_printed_1_only_first_at_an_empty_landing() -> None:
    t = table()
    t.arrange(hands={0: ["map-red-1a", "map-red-1b", "map-red-5a", "map-red-star-a"]})
    assert code(t, "play", landing="south-1", cards=["map-red-5a", "map-red-1a"]) \
        in ("one_misplaced", "values_decrease")
    assert code(t, "play", landing="south-1", cards=["map-red-1a", "map-red-1b"]) \
        == "one_misplaced"
    assert code(t, "play", landing="south-1", cards=["map-red-star-a", "map-red-1a"],
                values={"map-red-star-a": 1}) == "one_misplaced"
    new = t.decide("play", landing="south-1", cards=["map-red-1a", "map-red-star-a",
                                                      "map-red-5a"],
                   values={"map-red-star-a": 1})
    assert sum(isinstance(e, ev.CubesTaken) for e in new) == 3
    # a joker named 1 is no printed 1: no cubes
    new = t.decide("play", landing="south-1", cards=["map-red-star-a"],
                   values={"map-red-star-a": 1})
    assert not any(isinstance(e, ev.CubesTaken) for e in new)


def test_one_colour_per_play_and_per_coast() -> None:
    t = table()
    t.arrange(hands={0: ["map-red-5a", "map-blue-6a", "map-blue-7b", "map-red-8b"]},
              landings={"west-1": (["map-red-2a"], [1])})
    assert code(t, "play", landing="south-1", cards=["map-red-5a", "map-blue-6a"]) \
        == "mixed_colours"
    assert code(t, "play", landing="west-1", cards=["map-blue-6a"]) == "wrong_colour"
    assert code(t, "play", landing="west-2", cards=["map-red-5a"]) == "colour_taken"
    assert t.decide("play", landing="west-2", cards=["map-blue-6a", "map-blue-7b"])
    assert t.decide("play", landing="west-1", cards=["map-red-5a", "map-red-8b"])  # gaps


def test_disc_rules_one_per_landing_three_in_all() -> None:
    t = table()
    t.arrange(hands={0: ["map-red-5a", "map-red-6a", "map-blue-6b"]},
              landings={"north-1": (["map-green-2a"], [0]), "east-1": (["map-yellow-2a"], [0]),
                        "south-1": (["map-red-2a"], [1, 0])})
    assert t.view()["players"][0]["discs_free"] == 0
    assert code(t, "play", landing="west-1", cards=["map-blue-6b"]) == "no_free_disc"
    new = t.decide("play", landing="south-1", cards=["map-red-5a"])
    assert new[0].disc_placed is False  # type: ignore[attr-defined]


def test_jokers_blocked_by_event_b08_but_they_still_pay_islets() -> None:
    t = table(orders={**EVENTS_A01, "events_b": b_first("event-b08")})
    to_round(t, 2)
    assert t.view()["event"] == "event-b08"
    t.arrange(hands={t.seat: ["map-red-star-a", "map-red-5a"]})
    assert code(t, "play", landing="north-1", cards=["map-red-star-a"],
                values={"map-red-star-a": 5}) == "jokers_blocked"
    assert t.decide("islet", islet="islet-spring", cards=["map-red-star-a", "map-red-5a"])
    assert code(t, "play", landing="north-1", cards=["map-red-star-a"],
                values={"map-red-star-a": 5}) == "jokers_blocked"
    assert t.decide("play", landing="north-1", cards=["map-red-5a"])


def test_draw_card_every_disc_holder_bottom_to_top_then_next_card() -> None:
    t = table()
    t.arrange(hands={1: ["map-red-4a", "map-red-7a", "map-red-8b"]},
              landings={"north-1": (["map-red-2a"], [2, 3])})
    t.act("pass")  # seat 0 takes the start marker
    deck = t.state.map_deck[::-1]
    new = t.act("play", landing="north-1", cards=["map-red-4a", "map-red-7a", "map-red-8b"])
    effects = [e for e in new if isinstance(e, ev.MapCardDrawn | ev.CubesShed)]
    assert effects == [
        ev.MapCardDrawn(2, deck[0], "draw"), ev.MapCardDrawn(3, deck[1], "draw"),
        ev.MapCardDrawn(1, deck[2], "draw"),            # -4a draw: 2, 3, then 1's new disc
        ev.CubesShed(2, 1, "shed"), ev.CubesShed(3, 1, "shed"), ev.CubesShed(1, 1, "shed"),
        ev.MapCardDrawn(2, deck[3], "draw"), ev.MapCardDrawn(3, deck[4], "draw"),
        ev.MapCardDrawn(1, deck[5], "draw")]
