"""The rules of RULES-keltis.md, section by section: a turn, laying, end cards, the point
row, stones, the refill, the end of the game and the final turns. Every game here is real:
an arranged deck (``helpers.deck_for``) and actions through ``KELTIS.play``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.game import IllegalAction
from engine.keltis import KELTIS
from engine.keltis import actions as ac
from engine.keltis import events as ev
from engine.keltis.actions import ACTIONS
from engine.keltis.cards import CANONICAL, END, KIND, VALUE
from tests.engine.keltis.helpers import Table, discarder, draws

# Hands that lay nothing by accident: 8 cards of one color each, spread out.
PINK = ["pink-0", "pink-1", "pink-2", "pink-3a", "pink-3b", "pink-4a", "pink-4b", "pink-5a"]
BLUE = ["blue-0", "blue-1", "blue-2", "blue-3a", "blue-3b", "blue-4a", "blue-4b", "blue-5a"]


def refused(t: Table, code: str, type: str, **fields: Any) -> None:
    """``type`` is refused with ``code`` and changes nothing (state, events, views)."""
    before = json.dumps([KELTIS.view(t.state, v) for v in (None, 0, 1)])
    n = len(t.events)
    with pytest.raises(IllegalAction) as err:
        t.act(type, **fields)
    assert err.value.code == code, err.value.message
    assert len(t.events) == n
    assert json.dumps([KELTIS.view(t.state, v) for v in (None, 0, 1)]) == before


# --- A turn -------------------------------------------------------------------------------

def test_one_play_then_one_draw_then_the_next_seat() -> None:
    t = Table(2, hands={0: ["green-5a", *PINK[:7]], 1: BLUE}, top=["red-1", "red-2"])
    assert t.lay("green-5a") == [ev.CardLaid(0, "green-5a", "green")]
    assert (t.state.step, t.state.draws_left, t.seat) == ("draw", 1, 0)
    refused(t, "wrong_step", "discard", card="pink-0")        # exactly one play
    refused(t, "wrong_step", "lay", card="pink-0", row="pink")
    assert t.draw() == [ev.CardDrawn(0, "deck", "red-1")]
    assert (t.state.step, t.seat, len(t.hand(0))) == ("play", 1, 8)
    refused(t, "wrong_step", "draw", **{"from": "deck"})
    t.discard("blue-0")
    assert t.draw() == [ev.CardDrawn(1, "deck", "red-2")]
    assert t.seat == 0


def test_not_your_turn_and_bad_seats() -> None:
    t = Table(2)
    card = t.hand(1)[0]
    with pytest.raises(IllegalAction) as err:
        t.play(ac.Discard(1, card))
    assert err.value.code == "not_your_turn"
    assert err.value.message == "it is player #1's turn"  # seats as players count them
    for seat in (True, "0", None, 0.0):
        with pytest.raises(IllegalAction) as err:
            t.play(ac.Discard(seat, t.hand(0)[0]))  # type: ignore[arg-type]
        assert err.value.code == "bad_action"


def test_card_checks() -> None:
    t = Table(2, hands={0: PINK, 1: BLUE})
    refused(t, "unknown_card", "discard", card="pink-11")
    refused(t, "card_not_in_hand", "discard", card="blue-0")    # the other player's card
    refused(t, "bad_action", "discard", card=3)
    refused(t, "bad_action", "lay", card="pink-0", row=None)
    refused(t, "unknown_row", "lay", card="pink-0", row="grey")


def test_discard_goes_face_up_onto_its_pile() -> None:
    t = Table(2, hands={0: ["point-3", "end-red-1", *PINK[:6]], 1: BLUE})
    assert t.discard("point-3") == [ev.CardDiscarded(0, "point-3", "point")]
    t.draw()
    t.discard("blue-0")
    t.draw()
    assert t.discard("end-red-1") == [ev.CardDiscarded(0, "end-red-1", "red")]
    assert t.view()["discards"] == {"green": [], "yellow": [], "red": ["end-red-1"], "pink": [],
                                    "blue": ["blue-0"], "point": ["point-3"]}


# --- Laying on a color row ----------------------------------------------------------------

def test_first_card_starts_a_row_and_only_its_color_goes_on_it() -> None:
    t = Table(2, hands={0: ["green-9", "yellow-2", *PINK[:6]], 1: BLUE})
    refused(t, "wrong_color", "lay", card="green-9", row="yellow")
    t.lay("green-9")  # any value may start a row
    assert t.view()["players"][0]["rows"] == {
        "green": {"cards": ["green-9"], "direction": None, "closed": False}}


def _lay_all(t: Table, cards: list[str], rows: list[str] | None = None) -> None:
    """Seat 0 lays ``cards`` in order (seat 1 discards meanwhile; both draw the deck)."""
    for i, card in enumerate(cards):
        assert t.seat == 0
        t.lay(card, rows[i] if rows else None)
        t.draw()
        t.discard(t.hand(1)[0])
        t.draw()


def test_rising_row_with_gaps_and_equal_values_hm_example() -> None:
    row = ["green-0", "green-5a", "green-5b", "point-5", "green-6a", "green-7a", "green-9",
           "green-10"]
    t = Table(2, hands={0: row, 1: BLUE})
    _lay_all(t, row, ["green"] * 8)
    v = t.view()["players"][0]["rows"]["green"]
    assert v == {"cards": row, "direction": "rising", "closed": False}
    assert t.view()["players"][0]["point_row"] == []  # point-5 belongs to the green row


def test_falling_row_direction_fixed_by_first_different_value_hm_example() -> None:
    t = Table(2, hands={0: ["red-7a", "red-7b", "red-4a", "red-4b", "red-3a", "red-1",
                            "red-5a", "red-8"], 1: BLUE})
    _lay_all(t, ["red-7a", "red-7b"])
    assert t.view()["players"][0]["rows"]["red"]["direction"] is None  # equal: undecided
    _lay_all(t, ["red-4a"])
    assert t.view()["players"][0]["rows"]["red"]["direction"] == "falling"
    refused(t, "out_of_order", "lay", card="red-5a", row="red")
    refused(t, "out_of_order", "lay", card="red-8", row="red")
    _lay_all(t, ["red-4b", "red-3a", "red-1"])  # an equal value is always allowed
    assert t.view()["players"][0]["rows"]["red"]["cards"] == [
        "red-7a", "red-7b", "red-4a", "red-4b", "red-3a", "red-1"]


def test_rising_row_refuses_lower_values() -> None:
    t = Table(2, hands={0: ["yellow-2", "yellow-6a", "yellow-5a", "yellow-6b", *PINK[:4]],
                        1: BLUE})
    _lay_all(t, ["yellow-2", "yellow-6a"])
    refused(t, "out_of_order", "lay", card="yellow-5a", row="yellow")
    t.lay("yellow-6b")


def test_undecided_row_takes_either_direction() -> None:
    for second, direction in (("blue-8", "rising"), ("blue-3a", "falling")):
        t = Table(2, hands={0: ["blue-5a", "blue-5b", second, *PINK[:5]], 1: [
            *PINK[5:], "green-0", "green-1", "green-2", "green-3a", "green-3b"]})
        _lay_all(t, ["blue-5a", "blue-5b", second])
        assert t.view()["players"][0]["rows"]["blue"]["direction"] == direction


def test_point_card_on_a_color_row_of_the_same_value() -> None:
    """HM: a grey 6 may be laid on a row ending in blue-6; it counts for that row and keeps
    its direction; any matching row of the player is offered."""
    t = Table(2, hands={0: ["blue-2", "blue-6a", "green-6a", "point-6", "point-2",
                            "yellow-0", "yellow-1", "yellow-2"], 1: PINK})
    _lay_all(t, ["blue-2", "blue-6a", "green-6a"])
    lays = {(a.card, a.row) for a in t.legal() if a.type == "lay" and a.card == "point-6"}
    assert lays == {("point-6", "point"), ("point-6", "blue"), ("point-6", "green")}
    refused(t, "value_mismatch", "lay", card="point-2", row="blue")
    t.lay("point-6", "blue")
    row = t.view()["players"][0]["rows"]["blue"]
    assert row == {"cards": ["blue-2", "blue-6a", "point-6"], "direction": "rising",
                   "closed": False}


def test_point_card_keeps_an_undecided_row_undecided() -> None:
    t = Table(2, hands={0: ["red-4a", "point-4", "red-2", *PINK[:5]], 1: BLUE})
    _lay_all(t, ["red-4a", "point-4"], ["red", "red"])
    assert t.view()["players"][0]["rows"]["red"]["direction"] is None
    _lay_all(t, ["red-2"])
    assert t.view()["players"][0]["rows"]["red"]["direction"] == "falling"


def test_point_card_cannot_start_a_row_nor_go_on_an_end_card() -> None:
    t = Table(2, hands={0: ["point-4", "red-4a", "end-red-1", "point-9", *PINK[:4]],
                        1: BLUE})
    refused(t, "no_row", "lay", card="point-4", row="red")
    _lay_all(t, ["red-4a", "end-red-1"])
    refused(t, "row_closed", "lay", card="point-4", row="red")


def test_cards_go_only_on_own_rows() -> None:
    """Seat 1's red row ending in 4 does not let seat 0 lay point-4 on "red"."""
    t = Table(2, hands={0: ["point-4", *PINK[:7]], 1: ["red-4a", *BLUE[:7]]})
    t.discard("pink-0")
    t.draw()
    t.lay("red-4a")
    t.draw()
    refused(t, "no_row", "lay", card="point-4", row="red")


# --- End cards ------------------------------------------------------------------------------

def test_end_card_closes_and_only_the_second_end_card_follows() -> None:
    """Own example: after end-red-1, red-3b is refused, end-red-2 is accepted, and the row
    counts as one closed row."""
    t = Table(2, hands={0: ["red-5a", "end-red-1", "red-3b", "end-red-2", "point-5",
                            *PINK[:3]], 1: BLUE})
    refused(t, "no_row", "lay", card="end-red-1", row="red")  # an end card cannot start a row
    _lay_all(t, ["red-5a", "end-red-1"])
    assert t.view()["players"][0]["rows"]["red"]["closed"] is True
    assert t.state.closed_rows == 1
    refused(t, "row_closed", "lay", card="red-3b", row="red")
    refused(t, "row_closed", "lay", card="point-5", row="red")
    assert ("red-3b", "red") not in {(a.card, a.row) for a in t.legal() if a.type == "lay"}
    _lay_all(t, ["end-red-2"])
    assert t.view()["players"][0]["rows"]["red"]["cards"] == ["red-5a", "end-red-1",
                                                            "end-red-2"]
    assert t.state.closed_rows == 1 and not t.state.end_triggered


def test_end_card_may_be_laid_at_any_time() -> None:
    t = Table(2, hands={0: ["green-6a", "end-green-2", *PINK[:6]], 1: BLUE})
    _lay_all(t, ["green-6a", "end-green-2"])  # a one-card row may be closed
    assert t.view()["players"][0]["rows"]["green"] == {
        "cards": ["green-6a", "end-green-2"], "direction": None, "closed": True}


# --- Laying on the point row ---------------------------------------------------------------

def test_point_row_any_order_any_value() -> None:
    t = Table(2, hands={0: ["point-7", "point-0", "point-10", "green-1", *PINK[:4]], 1: BLUE})
    _lay_all(t, ["point-7", "point-0", "point-10"], ["point"] * 3)
    assert t.view()["players"][0]["point_row"] == ["point-7", "point-0", "point-10"]
    refused(t, "not_a_point_card", "lay", card="green-1", row="point")


# --- Take a stone ---------------------------------------------------------------------------

def test_take_a_stone_with_two_equal_values_any_colors() -> None:
    t = Table(2, hands={0: ["green-4a", "red-4a", *PINK[:6]], 1: BLUE}, top=["blue-9", None])
    assert t.act("stone", cards=["green-4a", "red-4a"]) == [
        ev.StoneTaken(0, ("green-4a", "red-4a"), "stone-4")]
    v = t.view()
    assert v["stones"] == [f"stone-{i}" for i in (1, 2, 3, 5, 6, 7, 8, 9)]
    assert v["players"][0]["stones"] == ["stone-4"]  # face up in front of the player
    assert v["discards"]["green"] == ["green-4a"] and v["discards"]["red"] == ["red-4a"]
    assert (v["step"], v["draws_left"]) == ("draw", 2)  # refill 2 cards, one at a time
    t.draw()
    assert (t.state.step, t.state.draws_left, t.seat) == ("draw", 1, 0)
    t.draw()
    assert (t.seat, len(t.hand(0))) == (1, 8)


def test_point_card_counts_with_its_value_for_a_stone() -> None:
    t = Table(2, hands={0: ["red-4a", "point-4", *PINK[:6]], 1: BLUE})
    t.act("stone", cards=["red-4a", "point-4"])
    assert t.view()["discards"]["point"] == ["point-4"]
    assert t.view()["players"][0]["stones"] == ["stone-4"]


def test_stone_refusals() -> None:
    t = Table(2, hands={0: ["end-red-1", "end-blue-1", "green-0", "point-0", "green-10",
                            "point-10", "green-7a", "red-6a"], 1: BLUE})
    refused(t, "no_value", "stone", cards=["end-red-1", "end-blue-1"])
    refused(t, "no_stone", "stone", cards=["green-0", "point-0"])
    refused(t, "no_stone", "stone", cards=["green-10", "point-10"])
    refused(t, "values_differ", "stone", cards=["green-7a", "red-6a"])
    refused(t, "same_card", "stone", cards=["green-7a", "green-7a"])
    refused(t, "card_not_in_hand", "stone", cards=["green-7a", "blue-0"])
    refused(t, "bad_action", "stone", cards=["green-7a"])
    refused(t, "bad_action", "stone", cards="green-7a")
    assert not [a for a in t.legal() if a.type == "stone"]


def test_each_stone_exists_once() -> None:
    t = Table(2, hands={0: ["green-4a", "red-4a", *PINK[:6]], 1: ["yellow-4a", "point-4",
                                                                  *BLUE[:6]]})
    t.act("stone", cards=["green-4a", "red-4a"])
    t.draw()
    t.draw()
    refused(t, "stone_gone", "stone", cards=["yellow-4a", "point-4"])
    assert not [a for a in t.legal() if a.type == "stone" and "point-4" in a.cards]


def test_stone_order_decides_the_top_of_a_shared_pile() -> None:
    for cards in (["green-3a", "green-3b"], ["green-3b", "green-3a"]):
        t = Table(2, hands={0: ["green-3a", "green-3b", *PINK[:6]], 1: BLUE})
        t.act("stone", cards=cards)
        assert t.view()["discards"]["green"] == cards  # the second ends up on top
    sources = [a.source for a in t.legal()]  # draw step now: the green pile is blocked
    assert sources == ["deck"]


def test_legal_stones_list_both_orders() -> None:
    t = Table(2, hands={0: ["green-3a", "point-3", "blue-8", "blue-9", "blue-10", "yellow-0",
                            "yellow-1", "yellow-2"], 1: BLUE})
    stones = [a.cards for a in t.legal() if a.type == "stone"]
    assert sorted(stones) == [("green-3a", "point-3"), ("point-3", "green-3a")]


# --- Refill ---------------------------------------------------------------------------------

def test_own_discards_of_this_turn_cannot_be_drawn_earlier_ones_can() -> None:
    t = Table(2, hands={0: ["green-5a", *PINK[:7]], 1: BLUE})
    t.discard("green-5a")
    refused(t, "pile_blocked", "draw", **{"from": "green"})
    assert [a.source for a in t.legal()] == ["deck"]
    t.draw()
    t.discard("blue-0")
    assert [a.source for a in t.legal()] == ["deck", "green"]  # seat 0's earlier discard
    assert t.draw("green") == [ev.CardDrawn(1, "green", "green-5a")]
    assert "green-5a" in t.hand(1) and t.view()["discards"]["green"] == []
    t.discard("pink-0")
    assert t.draw("blue") == [ev.CardDrawn(0, "blue", "blue-0")]  # anyone's earlier discard


def test_draw_refusals() -> None:
    t = Table(2, hands={0: PINK, 1: BLUE})
    t.discard("pink-0")
    refused(t, "pile_empty", "draw", **{"from": "red"})
    refused(t, "unknown_source", "draw", **{"from": "grey"})
    refused(t, "bad_action", "draw", **{"from": 3})
    with pytest.raises(IllegalAction) as err:
        ACTIONS.decode({"type": "draw", "seat": 0, "source": "deck"})
    assert err.value.code == "bad_message"
    with pytest.raises(IllegalAction) as err:
        ACTIONS.decode({"type": "draw", "seat": 0})
    assert err.value.code == "bad_message"


def test_after_a_stone_both_draws_may_come_from_one_discard_pile() -> None:
    """Decision (the seed's "eine (oder evtl. zwei)"): the second draw may take the card
    the first uncovered."""
    t = Table(2, hands={0: ["blue-9", "green-4a", "red-4a", *PINK[:5]],
                        1: ["blue-8", *PINK[5:], "yellow-0", "yellow-1", "yellow-2",
                            "yellow-3a"]})
    t.discard("blue-9")
    t.draw()
    t.discard("blue-8")
    t.draw()
    t.act("stone", cards=["green-4a", "red-4a"])
    assert t.draw("blue") == [ev.CardDrawn(0, "blue", "blue-8")]
    assert t.draw("blue") == [ev.CardDrawn(0, "blue", "blue-9")]
    assert {"blue-8", "blue-9"} <= set(t.hand(0)) and t.seat == 1


def test_drawn_discards_are_known_deck_draws_are_not() -> None:
    t = Table(2, hands={0: ["green-5a", *PINK[:7]], 1: BLUE}, top=["red-1", "red-2"])
    t.discard("green-5a")
    t.draw()
    t.discard("blue-0")
    t.draw("green")
    assert t.state.players[1].known == ["green-5a"]
    assert t.state.players[0].known == []


# --- End of the game --------------------------------------------------------------------------

def _drain(t: Table, until: int) -> None:
    """Discard and draw from the deck until ``until`` deck cards are left at a play step."""
    while t.state.deck_count > until or t.state.step != "play":
        t.play(discarder(t))


def test_deck_used_up_triggers_the_end_after_the_last_draw() -> None:
    t = Table(2, seed="drain")
    _drain(t, 1)
    assert (t.seat, t.state.deck_count) == (0, 1)  # 55 cards: turn 55 is seat 0's
    t.discard(t.hand()[0])
    card = t.state.deck[t.state.deck_pos]
    new = t.draw()
    assert new[:3] == [ev.CardDrawn(0, "deck", card), ev.EndTriggered(0, "deck_empty"),
                       ev.FinalTurnsStarted(1)]  # the turn was finished normally
    assert t.view()["phase"] == "final_turns" and t.seat == 1
    assert len(t.hand(0)) == 8


def test_deck_used_up_by_a_stones_first_draw_second_from_a_pile() -> None:
    """Decision: with the deck empty the remaining draw of the turn may come from a
    discard pile (not from the piles this turn's own discards went to)."""
    t = Table(2, hands={0: ["green-4a", "red-4a", *PINK[:6]]}, seed="x")
    keep = {"green-4a", "red-4a"}
    while t.state.deck_count > 1 or t.state.step != "play":
        legal = t.legal()
        pick = [a for a in legal if (a.type == "discard" and a.card not in keep)
                or (a.type == "draw" and a.source == "deck")]
        t.play(pick[0])
    assert t.seat == 0
    t.act("stone", cards=["green-4a", "red-4a"])
    new = t.draw()
    assert new[1] == ev.EndTriggered(0, "deck_empty") and len(new) == 2
    assert (t.state.step, t.state.draws_left) == ("draw", 1)
    refused(t, "deck_empty", "draw", **{"from": "deck"})
    sources = [a.source for a in t.legal()]
    assert sources and "green" not in sources and "red" not in sources and "deck" not in sources
    new = t.draw(sources[0])
    assert new[1] == ev.FinalTurnsStarted(1)


def _rising_game() -> Table:
    """2 players who never discard: the end cards lie among the 30 removed cards and the
    rest arrives in rising value order, so every card can always be laid (lowest first)."""
    ends = [c for c in CANONICAL if KIND[c] == END]
    rest = sorted((c for c in CANONICAL if KIND[c] != END), key=lambda c: VALUE[c])
    removed = ends + rest[-20:]  # the 20 highest cards are set aside too
    deck = [*removed, *rest[:-20]]
    return Table(2, deck=deck)


def _lowest_lay(t: Table) -> ac.Lay:
    lays = [a for a in t.legal() if a.type == "lay"]
    return min(lays, key=lambda a: (VALUE[a.card], a.row != "point", a.card))


def test_no_open_source_leaves_the_hand_short() -> None:
    """Decision: if no card can be drawn, the remaining draws are skipped."""
    t = _rising_game()
    while t.state.deck_count > 1 or t.state.step != "play":
        t.play(_lowest_lay(t) if t.state.step == "play" else ac.Draw(t.seat, "deck"))
    assert all(not pile for pile in t.state.discards.values())
    stones = [a for a in t.legal() if a.type == "stone"]
    assert stones, "the arranged game offers a stone at the last deck card"
    seat = t.seat
    t.play(stones[0])
    new = t.draw()
    assert [type(e) for e in new] == [ev.CardDrawn, ev.EndTriggered, ev.DrawsSkipped,
                                      ev.FinalTurnsStarted]
    assert new[2] == ev.DrawsSkipped(seat, 1) and len(t.hand(seat)) == 7


def _five_rows(n: int = 2) -> Table:
    """Seat 0 closes green, yellow, red and pink in its first 8 turns; seat 1 starts blue in
    its first turn and closes it in its 9th: the fifth closed row, across two players.
    Seat 0 draws only cards of its closed colors, so its hand ends with no legal lay."""
    dead = ["green-5a", "green-5b", "yellow-5a", "yellow-5b", "red-5a", "red-5b", "pink-5a",
            "pink-5b", "green-6a"]
    return Table(n, hands={0: ["green-1", "end-green-1", "yellow-1", "end-yellow-1", "red-1",
                               "end-red-1", "pink-1", "end-pink-1"],
                           1: ["blue-1", "end-blue-1", "point-0", "point-1", "point-2",
                               "point-3", "point-4", "point-5"]},
                 top=draws(n, {0: dead}))


def test_five_closed_rows_over_all_players_trigger_the_end() -> None:
    t = _five_rows()
    order = ["green-1", "end-green-1", "yellow-1", "end-yellow-1", "red-1", "end-red-1",
             "pink-1", "end-pink-1"]
    for k, card in enumerate(order):
        t.lay(card)
        t.draw()
        if k == 0:
            t.lay("blue-1")
        else:
            t.discard(next(c for c in t.hand() if c != "end-blue-1"))
        t.draw()
    assert t.state.closed_rows == 4 and not t.state.end_triggered
    # seat 0 has no legal lay left (closed rows only), so it discards now
    assert not [a for a in t.legal() if a.type == "lay"]
    t.discard(t.hand()[0])
    t.draw()
    new = t.lay("end-blue-1")
    assert new == [ev.CardLaid(1, "end-blue-1", "blue"), ev.EndTriggered(1, "rows_closed")]
    assert (t.state.step, t.seat) == ("draw", 1)  # the triggering turn finishes normally
    new = t.draw()
    # final turns: seat 0 first (after the trigger), it has no lay: its turn ends by itself
    assert [type(e) for e in new] == [ev.CardDrawn, ev.FinalTurnsStarted, ev.FinalTurnEnded]
    assert new[1] == ev.FinalTurnsStarted(0) and new[2] == ev.FinalTurnEnded(0)
    assert (t.view()["step"], t.seat) == ("final", 1)  # the triggering player goes last
    with pytest.raises(IllegalAction) as err:  # no finish where no lay was possible
        t.play(ac.Finish(0))
    assert err.value.code == "not_your_turn"
    v = KELTIS.view(t.state, 1)
    assert v["final_lays_left"] == 2 and v["trigger"] == {"seat": 1, "reason": "rows_closed"}
    refused(t, "wrong_step", "discard", card=t.hand()[0])  # no discarding, no stone, no draw
    refused(t, "wrong_step", "stone", cards=["point-6", "point-7"])
    refused(t, "wrong_step", "draw", **{"from": "deck"})
    lays = [a for a in t.legal() if a.type == "lay"]
    assert lays and t.legal()[-1] == ac.Finish(1)
    t.play(lays[0])
    assert (t.seat, t.view()["step"], len(t.hand())) == (1, "final", 7)  # no drawing
    lays = [a for a in t.legal() if a.type == "lay"]
    new = t.play(lays[0])
    assert [type(e) for e in new] == [ev.CardLaid, ev.FinalTurnEnded, ev.GameEnded]
    assert KELTIS.is_over(t.state)


def test_second_end_card_does_not_count_as_a_new_closed_row() -> None:
    t = Table(2, hands={0: ["green-1", "end-green-1", "end-green-2", *PINK[:5]], 1: BLUE})
    _lay_all(t, ["green-1", "end-green-1", "end-green-2"])
    assert t.state.closed_rows == 1


def test_final_turn_order_and_finish_three_players() -> None:
    """Seat 1 closes all five rows alone; final turns go 2, 0, then 1 (the trigger)."""
    rows = ["green-1", "end-green-1", "yellow-1", "end-yellow-1", "red-1", "end-red-1",
            "pink-1", "end-pink-1"]
    t = Table(3, hands={0: ["point-8", "point-9"], 1: rows},
              top=draws(3, {1: ["blue-1", "end-blue-1"]}))
    order = [*rows, "blue-1", "end-blue-1"]
    for card in order:
        t.play(discarder(t))
        t.play(discarder(t))
        assert t.seat == 1
        t.lay(card)
        if card != "end-blue-1":
            t.draw()
            t.play(discarder(t))
            t.play(discarder(t))
    assert t.of(ev.EndTriggered) == [ev.EndTriggered(1, "rows_closed")]
    t.draw()
    assert t.of(ev.FinalTurnsStarted) == [ev.FinalTurnsStarted(2)]
    assert (t.seat, KELTIS.view(t.state, None)["final_turns_left"]) == (2, 3)
    t.act("finish")
    assert (t.seat, KELTIS.view(t.state, None)["final_turns_left"]) == (0, 2)
    with pytest.raises(IllegalAction) as err:  # the laying rules apply unchanged
        t.act("lay", card="point-9", row="green")
    assert err.value.code == "no_row"
    t.lay("point-8", "point")
    assert (t.seat, KELTIS.view(t.state, 0)["final_lays_left"]) == (0, 1)
    t.act("finish")
    assert t.seat == 1
    assert KELTIS.view(t.state, 1)["final_turns_left"] == 1  # the trigger's, the last
    t.act("finish")
    assert [e.seat for e in t.of(ev.FinalTurnEnded)] == [2, 0, 1]
    assert KELTIS.view(t.state, 1)["final_turns_left"] == 0
    assert KELTIS.is_over(t.state)
    with pytest.raises(IllegalAction) as err:
        t.play(ac.Finish(1))
    assert err.value.code == "game_over"


def test_finish_only_in_a_final_turn() -> None:
    t = Table(2)
    refused(t, "wrong_step", "finish")
