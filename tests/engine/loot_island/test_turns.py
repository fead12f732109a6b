"""Turn order, passing, the start marker, phase 1 and the events' start effects
(RULES "Phase 1", "Phase 2", "Events")."""

from __future__ import annotations

import pytest

from engine.game import IllegalAction
from engine.loot_island import events as ev
from tests.engine.loot_island.helpers import Table, a_first, b_first, to_round

A01 = ["event-a01", "event-a02", "event-a03", "event-a04", "event-a05", "event-a06"]


def test_turns_go_clockwise_among_players_who_have_not_passed() -> None:
    t = Table(4, seed="turns", orders={"events_a": A01})
    assert t.seat == 0
    t.act("pass")
    assert t.state.start_seat == 0 and t.seat == 1
    t.act("pass")
    assert t.state.start_seat == 0  # only the first pass takes the marker
    seat = t.seat
    assert seat == 2
    t.act("pass")
    assert t.seat == 3
    v = t.view()
    assert [p["passed"] for p in v["players"]] == [True, True, True, False]
    t.arrange(hands={3: ["map-red-5a", "map-red-9a"]})
    t.act("play", landing="south-1", cards=["map-red-5a"])
    assert t.seat == 3  # the others passed: seat 3 acts again


def test_first_to_pass_takes_the_start_marker_and_opens_the_next_round() -> None:
    t = Table(3, seed="turns", orders={"events_a": A01})
    t.arrange(hands={0: ["map-red-5a"]})
    t.act("play", landing="south-1", cards=["map-red-5a"])
    new = t.act("pass")  # seat 1
    assert new[0] == ev.Passed(1, False, True)
    t.pass_all()
    to_round(t, 2)
    assert t.of(ev.RoundStarted)[0].round == 2
    assert t.of(ev.ActionsStarted)[-1] == ev.ActionsStarted(2, 1)
    assert t.view()["players"][1]["passed"] is False  # reset after phase 2


def test_pass_is_forced_when_nothing_else_is_legal() -> None:
    t = Table(2, seed="turns", orders={"events_a": A01})
    # seat 1 holds one card it cannot lay anywhere and no islet payment
    t.arrange(hands={0: ["map-red-5a"], 1: ["map-blue-3a"]},
              landings={"north-1": (["map-blue-8a"], [0]), "north-2": (["map-red-2a"], [0]),
                        "east-1": (["map-red-3a"], [0]), "east-2": (["map-blue-9a"], [0]),
                        "south-1": (["map-blue-9b"], [0]), "south-2": (["map-green-2a"], [0]),
                        "west-1": (["map-blue-10a"], [0]), "west-2": (["map-yellow-2a"], [0])})
    new = t.act("play", landing="north-2", cards=["map-red-5a"])
    # seat 1 cannot act: forced pass (taking the marker); seat 0's hand is now empty too
    assert [e for e in new if isinstance(e, ev.Passed)] == [ev.Passed(1, True, True),
                                                            ev.Passed(0, True, False)]
    assert t.state.start_seat == 1 and t.state.round == 2 and t.seat == 1


def test_discard_then_refill_to_the_hand_size_from_the_start_marker_clockwise() -> None:
    t = Table(3, seed="turns", orders={"events_a": A01})
    t.act("pass")
    t.act("pass")
    t.arrange(hands={2: ["map-red-5a", "map-red-6a"]})
    t.act("play", landing="south-1", cards=["map-red-5a"])
    t.act("pass")  # seat 2 last
    # Round 2: ship to east; islets up; event revealed; seat 0 (marker) discards first.
    rs = t.of(ev.RoundStarted)[0]
    assert rs == ev.RoundStarted(2, "east")
    assert t.state.phase == "preparation" and t.seat == 0
    hand = sorted(t.state.players[0].hand)
    new = t.act("discard", cards=hand[:2])
    assert new[0] == ev.MapCardsDiscarded(0, hand[:2])
    assert [e.cause for e in new[1:3]] == ["refill", "refill"]  # type: ignore[attr-defined]
    assert len(t.state.players[0].hand) == 7 and t.view()["map_discard"][-2:] == hand[:2]
    assert t.seat == 1
    with pytest.raises(IllegalAction) as e:
        t.decide("discard", cards=["map-red-6a"])  # not seat 1's card
    assert e.value.code == "not_in_hand"
    t.act("discard", cards=[])
    new = t.act("discard", cards=[])  # seat 2 holds 1 card: draws 6
    assert sum(isinstance(e, ev.MapCardDrawn) for e in new) == 6
    assert t.state.phase == "actions"


def test_no_hand_limit_and_empty_hand_skips_discard() -> None:
    t = Table(2, seed="turns", orders={"events_a": A01})
    t.arrange(hands={0: [], 1: ["map-red-2a", "map-red-3a", "map-red-4b", "map-red-5b",
                                "map-red-6a", "map-red-7a", "map-red-8a", "map-red-9a",
                                "map-red-10a"]})
    t.act("pass")  # seat 0 has nothing: would be forced anyway; seat 1 passes
    t.pass_all()
    skipped = t.of(ev.DiscardSkipped)
    assert skipped == [ev.DiscardSkipped(0)] and t.seat == 1
    assert len(t.state.players[0].hand) == 7
    assert len(t.state.players[1].hand) == 9  # more than 7 are kept
    assert len(t.legal()) == 2 ** 9


@pytest.mark.parametrize(("event", "size"), [("event-b11", 8), ("event-b12", 6)])
def test_refill_size_events(event: str, size: int) -> None:
    t = Table(2, seed="turns", orders={"events_a": A01, "events_b": b_first(event)})
    t.pass_all()
    assert t.view()["event"] == event
    hand = list(t.state.players[0].hand)
    t.act("discard", cards=hand)
    assert len(t.state.players[0].hand) == size


@pytest.mark.parametrize(("event", "kind", "cubes"), [
    ("event-b03", ev.CubesTaken, 4), ("event-b04", ev.CubesShed, 2)])
def test_start_of_phase_2_cube_events(event: str, kind: type, cubes: int) -> None:
    t = Table(3, seed="turns", orders={"events_a": A01, "events_b": b_first(event)})
    t.act("pass")
    t.pass_all()
    to_round(t, 2)
    i = t.events.index(t.of(ev.ActionsStarted)[-1])
    effects = t.events[i + 1:i + 4]
    assert [type(e) for e in effects] == [kind] * 3
    assert [e.seat for e in effects] == [0, 1, 2]  # type: ignore[attr-defined]
    assert [p.cubes for p in t.state.players] == [cubes] * 3


def test_round_1_event_is_in_force_from_the_start() -> None:
    t = Table(3, seed="turns", orders={"events_a": a_first("event-a02")})
    assert [len(p.hand) for p in t.state.players] == [8, 8, 8]
    draws = t.of(ev.MapCardDrawn)
    assert [(e.seat, e.cause) for e in draws] == [(0, "event"), (1, "event"), (2, "event")]
    t = Table(3, seed="turns", orders={"events_a": a_first("event-a03")})
    assert [p.cubes for p in t.state.players] == [2, 2, 2]


def test_wrong_step_and_not_your_turn() -> None:
    t = Table(3, seed="turns")
    for kind, fields in (("discard", {"cards": []}), ("take_loot", {"card": "loot-01"}),
                         ("choose_healer", {"healer": "healer-01"})):
        with pytest.raises(IllegalAction) as e:
            t.decide(kind, **fields)
        assert e.value.code == "wrong_step"
    with pytest.raises(IllegalAction) as e:
        t.decide("pass", seat=1)
    assert e.value.code == "not_your_turn"
    # Seats are named as players count them (1-based), as Einauge and Keltis word it.
    assert (t.state.current_seat, e.value.message) == (0, "it is player #1's turn")
    t.act("pass")
    with pytest.raises(IllegalAction) as e:
        t.decide("pass", seat=0)
    assert (t.state.current_seat, e.value.message) == (1, "it is player #2's turn")
    with pytest.raises(IllegalAction) as e:
        t.decide("pass", seat="0")
    assert e.value.code == "bad_action"


def test_an_empty_map_deck_is_reshuffled_from_the_discard_pile_by_the_seed() -> None:
    from engine.loot_island.setup import reshuffled
    t = Table(2, seed="deck", orders={"events_a": A01})
    t.arrange(hands={0: ["map-red-4a", "map-red-5b"]}, empty_deck=True)
    pile = list(t.state.map_discard)
    assert t.view()["map_deck_count"] == 0 and len(pile) > 0
    new = t.act("play", landing="south-1", cards=["map-red-4a"])  # draw: deck empty
    assert new[1] == ev.MapDeckReshuffled(1, reshuffled("deck", 1, pile))
    assert new[2] == ev.MapCardDrawn(0, new[1].cards[0], "draw")  # type: ignore[attr-defined]
    v = t.view()
    assert v["map_reshuffles"] == 1 and v["map_discard"] == []
    assert v["map_deck_count"] == len(pile) - 1


def test_with_both_piles_empty_the_draw_is_lost() -> None:
    t = Table(2, seed="deck", orders={"events_a": A01})
    t.arrange(hands={0: ["map-red-4a", "map-red-5b"]}, empty_deck=True)
    s = t.state
    # the whole pile goes into seat 1's hand: nothing is left to draw
    s.players[1].hand.extend(s.map_discard)
    s.map_discard.clear()
    new = t.act("play", landing="south-1", cards=["map-red-4a"])
    assert not any(isinstance(e, ev.MapCardDrawn | ev.MapDeckReshuffled) for e in new)
    assert len(s.players[0].hand) == 1
