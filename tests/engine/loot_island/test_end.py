"""The end of the game: final exploration, elimination, healers, the result
(RULES "End of the game", worked example 3)."""

from __future__ import annotations

import pytest

from engine.game import IllegalAction
from engine.loot_island import events as ev
from tests.engine.loot_island.helpers import Table, a_first, b_first, to_round

HEALERS_3 = ["healer-02", "healer-05", "healer-09", "healer-12", "healer-13"]


def test_example_3_healer_bill() -> None:
    healers = HEALERS_3 + [h for h in (f"healer-{i:02}" for i in range(1, 15))
                           if h not in HEALERS_3]
    t = Table(5, seed="end", orders={"healers": healers, "events_a": a_first("event-a01")})
    to_round(t, 5)
    t.arrange(hands={0: ["map-red-5a", "map-red-6a"], 1: ["map-blue-5a", "map-blue-6a"]})
    t.act("play", landing="south-1", cards=["map-red-5a"])
    t.act("play", landing="south-2", cards=["map-blue-5a"])
    t.act("pass")  # seat 2 takes the start marker
    t.arrange(cubes=[2, 7, 7, 13, 0])
    t.pass_all()
    assert t.of(ev.FinalExplorationStarted) == [ev.FinalExplorationStarted([])]
    assert t.of(ev.PlayerEliminated) == [ev.PlayerEliminated(3, "curses", 13)]
    assert t.of(ev.HealersRevealed) == [ev.HealersRevealed(sorted(HEALERS_3), [0, 2, 1])]
    v = t.view()
    assert v["phase"] == "healers" and v["step"] == "choose" and v["current_seat"] == 0
    assert [h["healer"] for h in v["healers"]] == sorted(HEALERS_3)
    assert v["healers"][1] == {"healer": "healer-05", "multiplier": 2, "fixed": 0, "seat": None}
    t.act("choose_healer", healer="healer-05")
    with pytest.raises(IllegalAction) as e:
        t.decide("choose_healer", healer="healer-05")
    assert e.value.code == "healer_taken"
    with pytest.raises(IllegalAction) as e:
        t.decide("choose_healer", healer="healer-01")
    assert e.value.code == "unknown_healer"
    t.act("choose_healer", healer="healer-02")
    assert t.seat == 1 and len(t.legal()) == 3  # still chooses among three
    t.act("choose_healer", healer="healer-09")
    scores = t.state.result["scores"]  # type: ignore[index]
    assert [s["healer"] for s in scores] == ["healer-05", "healer-09", "healer-02", None, None]
    assert [s["healer_cost"] for s in scores[:3]] == [4, 20, 15]
    assert scores[3]["eliminated"] == "curses" and scores[3]["total"] is None
    assert scores[4]["healer_cost"] == 0  # 0 cubes: no healer, nothing to pay
    assert t.view()["phase"] == "ended" and t.view()["current_seat"] is None


def test_the_last_healer_is_given_automatically() -> None:
    t = Table(2, seed="end2", orders={"events_a": a_first("event-a01")})
    to_round(t, 5)
    t.pass_all()
    chosen = t.state.players[0].cubes, t.state.players[1].cubes
    assert chosen == (3, 3)
    assert t.seat == 0  # tie at 3 cubes: clockwise from the start marker (seat 0)
    t.act("choose_healer", healer=t.legal()[0].healer)  # type: ignore[attr-defined]
    auto = t.of(ev.HealerChosen)[-1]
    assert auto.seat == 1 and auto.automatic  # type: ignore[attr-defined]
    assert t.view()["phase"] == "ended"


def test_final_exploration_small_loot_clockwise_from_the_coast_after_the_ship() -> None:
    t = Table(2, seed="final", orders={"events_a": a_first("event-a01"),
                                       "events_b": b_first("event-b02", "event-b03",
                                                           "event-b04", "event-b01")})
    to_round(t, 5)
    assert t.view()["event"] == "event-b01" and t.view()["min_cards"] == 5
    four = ["map-red-2a", "map-red-3a", "map-red-4b", "map-red-6a"]  # count 4, chests 4
    five = ["map-blue-2a", "map-blue-3a", "map-blue-4b", "map-blue-5b", "map-blue-6a"]
    t.arrange(landings={"west-2": (four, [0]), "south-1": (five, [1, 0]),
                        "east-2": (["map-green-2a", "map-green-3a", "map-green-4b",
                                    "map-green-5b"], [1]),
                        "east-1": (["map-yellow-2a", "map-yellow-3a", "map-yellow-4b",
                                    "map-yellow-5b"], [])})
    t.pass_all()
    # without event the minimum is 4 again; east-1 has no disc
    assert t.of(ev.FinalExplorationStarted)[0].offers == [  # type: ignore[attr-defined]
        {"landing": "east-2", "size": "small", "number": 4},
        {"landing": "south-1", "size": "small", "number": 5},
        {"landing": "west-2", "size": "small", "number": 4}]
    v = t.view()
    assert v["phase"] == "final_exploration" and v["event"] is None and v["min_cards"] == 4
    assert v["offer"]["order"] == [1]
    while t.state.phase == "final_exploration":
        t.act("discard_loot", card=t.state.offer[0])  # type: ignore[index]
    # no cleanup: the landings keep their cards
    assert t.view()["landings"]["west-2"]["count"] == 4


def test_winds_in_round_5_shifts_the_final_order() -> None:
    t = Table(2, seed="final", orders={"events_a": a_first("event-a01")})
    to_round(t, 5)
    t.arrange(hands={0: ["map-red-5a", "map-red-9b"]},
              landings={"east-1": (["map-blue-2a", "map-blue-3a", "map-blue-4b",
                                    "map-blue-6a"], [1]),
                        "south-1": (["map-green-2a", "map-green-3a", "map-green-4b",
                                     "map-green-6a"], [1])})
    t.act("islet", islet="islet-winds", cards=["map-red-5a", "map-red-9b"])
    t.pass_all()
    assert t.of(ev.CoastExplored)[-1].coast == "east"  # type: ignore[attr-defined]
    while t.state.phase == "loot":
        t.act("discard_loot", card=t.state.offer[0])  # type: ignore[index]
    offers = t.of(ev.FinalExplorationStarted)[0].offers  # type: ignore[attr-defined]
    assert [o["landing"] for o in offers] == ["south-1"]  # east cleared; order from south


def test_every_hand_is_shown_once_ended() -> None:
    t = Table(2, seed="end2", options={"events": False})
    to_round(t, 5)
    t.pass_all()
    while t.state.phase != "ended":
        t.play(t.legal()[0])
    for viewer in (None, 0, 1):
        v = t.view(viewer)
        assert [p["hand"] for p in v["players"]] == t.of(ev.GameEnded)[0].hands  # type: ignore[attr-defined]
        assert all(p["hand"] for p in v["players"])


def test_12_cubes_are_not_eliminated_13_are() -> None:
    t = Table(2, seed="elim", orders={"events_a": a_first("event-a01")})
    to_round(t, 5)
    t.arrange(cubes=[12, 13])
    t.pass_all()
    assert t.of(ev.PlayerEliminated) == [ev.PlayerEliminated(1, "curses", 13)]
    assert t.view()["players"][1]["eliminated"] == "curses"
    assert t.of(ev.HealersRevealed)[0].order == [0]  # type: ignore[attr-defined]
