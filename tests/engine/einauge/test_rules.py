"""The turn of RULES-einauge.md, played with real actions on given decks."""

from __future__ import annotations

import pytest

from engine.einauge import EINAUGE
from engine.einauge import actions as ac
from engine.einauge import events as ev
from engine.einauge.cards import CARDS
from engine.einauge.evolve import add_to_row, evolve
from engine.einauge.state import Player
from engine.einauge.view import client_view
from engine.game import IllegalAction
from tests.engine.einauge.helpers import (
    Table,
    deck_of,
    filler,
    final_round_seats,
    normal_turn_seats,
    simple,
)

# --- the worked example ---------------------------------------------------------------

BLUE_DECK = ["blue-5", "blue-4", "blue-8", "red-2", "green-3", "yellow-2", "gray-4",
             *filler(14, avoid=["red-2", "green-3", "yellow-2", "gray-4"])]


def test_worked_example_barbaras_blue_row() -> None:
    t = Table(BLUE_DECK, players=["Barbara", "Anna"])
    barbara = t.state.players[0]
    assert (barbara.sabres, barbara.ducats, barbara.jewels) == (2, 20, 1)

    # Turn 1: blue-5, pays 5, receives 1 sabre and 2 ducats.
    bought = t.act("buy", card="blue-5")[0]
    assert bought == ev.CardBought(0, "blue-5", "blue", 5, 1, 2, 0)
    assert (barbara.sabres, barbara.ducats, barbara.jewels) == (3, 17, 1)
    t.act("place", card="red-2")  # gray-4 shows a sabre: 3 sabres win nothing, fight skipped
    assert t.seat == 1
    t.act("buy", card="yellow-2")
    t.act("place", card="green-3")

    # Turn 2: blue-4, pays 4, receives 2 sabres and 3 ducats (blue-5 + blue-4).
    bought = t.act("buy", card="blue-4")[0]
    assert bought == ev.CardBought(0, "blue-4", "blue", 4, 2, 3, 0)
    assert (barbara.sabres, barbara.ducats, barbara.jewels) == (5, 16, 1)
    t.act("pass")
    t.act("place", card=next(c for c in t.state.display if c != "blue-8"))
    t.act("buy", card=min((c for c in t.state.display if c != "blue-8"),
                          key=lambda c: CARDS[c].price))
    if t.state.step == "fight":
        t.act("pass")
    t.act("place", card=next(c for c in t.state.display if c != "blue-8"))

    # Turn 3: blue-8, pays 8, receives 2 sabres, 3 ducats, 2 jewels.
    bought = t.act("buy", card="blue-8")[0]
    assert bought == ev.CardBought(0, "blue-8", "blue", 8, 2, 3, 2)
    assert (barbara.sabres, barbara.ducats, barbara.jewels) == (7, 11, 3)

    # No further blue card: 3 blue treasure chests at the end (and the sole blue award).
    t.run(simple)
    assert barbara.rows["blue"] == ["blue-5", "blue-4", "blue-8"]
    assert client_view(t.state, None)["players"][0]["chests"]["blue"] == 3
    assert t.state.result["scores"][0]["chest_awards"]["blue"] == 7
    assert "blue" not in t.state.result["scores"][1]["chest_awards"]


# --- end rules: turns per player ------------------------------------------------------


def _ended(n: int, revealer: int, end_rule: str) -> Table:
    """A game whose first ship is revealed in the refill of ``revealer``'s first turn:
    every turn buys and places, so it reveals exactly two cards."""
    t = Table(filler(7 + 2 * revealer), players=[f"p{i}" for i in range(n)], end_rule=end_rule)
    t.run(simple)
    ships = t.of(ev.ShipRevealed)
    assert ships[0].seat == revealer and ships[0].end_triggered
    assert not any(s.end_triggered for s in ships[1:])
    assert t.state.phase == "ended"
    return t


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_round_rule_revealer_last_seat_no_more_normal_turns(n: int) -> None:
    t = _ended(n, n - 1, "round")
    assert normal_turn_seats(t.events) == list(range(n))
    assert final_round_seats(t.events) == list(range(n))
    assert t.of(ev.FinalRoundStarted) == [ev.FinalRoundStarted(0)]
    assert [p.turns for p in t.state.players] == [1] * n


def test_round_rule_revealer_seat_1_of_4() -> None:
    t = _ended(4, 1, "round")
    assert normal_turn_seats(t.events) == [0, 1, 2, 3]
    assert final_round_seats(t.events) == [0, 1, 2, 3]


def test_round_rule_revealer_seat_0_of_3_finishes_the_round() -> None:
    t = _ended(3, 0, "round")
    assert normal_turn_seats(t.events) == [0, 1, 2]
    assert final_round_seats(t.events) == [0, 1, 2]


def test_round_rule_every_player_same_number_of_turns_later_in_game() -> None:
    t = Table(filler(7 + 2 * 5), players=["a", "b", "c", "d"], end_rule="round")
    t.run(simple)
    revealer = t.of(ev.ShipRevealed)[0].seat
    seats = normal_turn_seats(t.events)
    assert revealer != 3 and len(seats) > 4  # the ship came mid-round, not in round 1
    assert seats == [0, 1, 2, 3] * (len(seats) // 4)
    assert len({p.turns for p in t.state.players}) == 1


@pytest.mark.parametrize(("n", "revealer"), [(4, 1), (4, 3), (4, 0), (2, 0), (5, 2)])
def test_one_more_turn_rule(n: int, revealer: int) -> None:
    t = _ended(n, revealer, "one_more_turn")
    after = [(revealer + 1 + i) % n for i in range(n)]
    assert normal_turn_seats(t.events) == list(range(revealer + 1)) + after
    assert final_round_seats(t.events) == after
    assert t.of(ev.FinalRoundStarted) == [ev.FinalRoundStarted((revealer + 1) % n)]


# --- selling --------------------------------------------------------------------------


def test_sell_jewel_gives_3_ducats_even_when_a_card_is_affordable() -> None:
    t = Table(filler(20))
    assert t.act("sell_jewel") == [ev.JewelSold(0, 3)]
    assert (t.player.jewels, t.player.ducats) == (0, 23)
    with pytest.raises(IllegalAction) as e:
        t.act("sell_jewel")
    assert e.value.code == "no_jewels"
    assert t.state.step == "buy"


def test_sell_card_gives_5_ducats_and_removes_the_row() -> None:
    t = Table(filler(20))
    t.act("buy", card="green-2")
    while t.seat != 0 or t.state.step != "buy":
        t.play(simple(t))
    before = t.player.ducats
    assert t.act("sell_card", card="green-2") == [ev.CardSold(0, "green-2", 5)]
    assert t.player.ducats == before + 5
    assert "green" not in t.player.rows
    assert "green-2" not in EINAUGE.public_view(t.state)["display"]  # it left the game


def test_selling_only_in_the_buy_step() -> None:
    t = Table(filler(20))
    t.act("buy", card="green-2")  # green-2 shows a sabre: 3 sabres, nothing to win (red-2?)
    assert t.state.step in ("fight", "place")
    for action in ({"type": "sell_jewel"}, {"type": "sell_card", "card": "green-2"}):
        with pytest.raises(IllegalAction) as e:
            t.act(**action)
        assert e.value.code == "wrong_step"


def test_selling_the_last_island_card_of_a_row_with_ships_makes_them_lone() -> None:
    # Unreachable in play (after the first ship no player has two more buy steps), so the
    # row is built with evolve's own helper and the sale goes through decide.
    t = Table(filler(20))
    p = t.player
    add_to_row(p, "red-2", "red")
    add_to_row(p, "ship-3", "red")
    add_to_row(p, "ship-1", "red")
    add_to_row(p, "ship-2", "alone")
    events = EINAUGE.decide(t.state, ac.SellCard(0, "red-2"))
    assert events[0] == ev.CardSold(0, "red-2", 5)
    evolve(t.state, events[0])
    assert "red" not in p.rows
    assert p.lone_ships == ["ship-2", "ship-3", "ship-1"]
    with pytest.raises(IllegalAction) as e:
        EINAUGE.decide(t.state, ac.SellCard(0, "ship-3"))
    assert e.value.code == "cannot_sell_ship"


def test_sell_card_errors() -> None:
    t = Table(filler(20))
    for card, code in (("ship-1", "cannot_sell_ship"), ("green-2", "card_not_owned"),
                       ("pink-9", "unknown_card")):
        with pytest.raises(IllegalAction) as e:
            t.act("sell_card", card=card)
        assert e.value.code == code


# --- skip-buy -------------------------------------------------------------------------


def test_buy_skipped_when_nothing_affordable_even_by_selling() -> None:
    t = Table(filler(20))
    t.act("buy", card="green-2")
    # Unreachable by real play in a few turns: seat 1 is made poor before its turn begins.
    poor = t.state.players[1]
    poor.ducats, poor.jewels = 1, 0
    if t.state.step == "fight":
        t.act("pass")
    events = t.act("place", card=t.state.display[0])
    assert ev.BuySkipped(1) in events
    assert t.seat == 1 and t.state.step in ("fight", "place")


def test_buy_not_skipped_when_selling_would_afford_it() -> None:
    t = Table(filler(20))
    t.act("buy", card="green-2")
    p = t.state.players[1]
    p.ducats, p.jewels = 0, 1  # 3 ducats by selling the jewel buys a 2- or 3-card
    if t.state.step == "fight":
        t.act("pass")
    t.act("place", card=t.state.display[0])
    assert t.seat == 1 and t.state.step == "buy"
    assert EINAUGE.legal_actions(t.state, 1) == [ac.SellJewel(1)]
    t.act("sell_jewel")
    assert any(isinstance(a, ac.Buy) for a in t.legal())


# --- fights ---------------------------------------------------------------------------


def test_fight_costs_3_without_sabre_4_with_sabre() -> None:
    assert CARDS["red-2"].fight_cost == 3 and CARDS["red-2"].sabres == 0
    assert CARDS["red-3"].fight_cost == 4 and CARDS["red-3"].sabres == 1
    assert CARDS["ship-1"].fight_cost == 3
    # deck: pirate table gets red-2 (no sabre) -> a 3-sabre player wins it for 3
    deck = deck_of("green-2", "orange-2", "yellow-2", "purple-2", "brown-2", "gray-2", "red-2")
    t = Table(deck)
    t.act("buy", card="green-2")  # 1 sabre: 3 in all
    assert t.state.step == "fight"
    won = t.act("fight", card="red-2")[0]
    assert won == ev.FightWon(0, "red-2", "red", "pirate_table", 3, 0, 0, 0)
    assert t.player.sabres == 0


def test_fight_with_a_sabre_card_costs_4() -> None:
    deck = deck_of("green-2", "brown-2", "yellow-2", "purple-2", "orange-2", "gray-2", "red-3")
    t = Table(deck)
    t.act("buy", card="green-2")  # 3 sabres: red-3 costs 4, nothing winnable
    assert t.of(ev.FightSkipped) == [ev.FightSkipped(0)]
    assert t.state.step == "place"
    with pytest.raises(IllegalAction) as e:
        t.act("pass")
    assert e.value.code == "wrong_step"
    t.act("place", card="brown-2")
    t.act("buy", card="yellow-2")
    t.act("place", card="purple-2")
    t.act("buy", card="orange-2")  # A: 3 sabres still; purple-2 (3 sabres) is winnable
    assert t.state.step == "fight" and t.player.sabres == 3
    with pytest.raises(IllegalAction) as e:
        t.act("fight", card="red-3")
    assert e.value.code == "not_enough_sabres"
    assert ac.Fight(0, "red-3") not in t.legal()
    assert ac.Fight(0, "purple-2") in t.legal()
    assert t.act("fight", card="purple-2")[0].cost == 3


def test_fight_skipped_and_pass_refused_with_too_few_sabres() -> None:
    t = Table(filler(20))
    t.act("buy", card="orange-2")  # no sabre: 2 sabres, nothing winnable
    assert t.events[-1] == ev.FightSkipped(0)
    assert ac.Pass(0) not in t.legal()


def test_normal_turn_fight_only_from_pirate_table() -> None:
    t = Table(filler(20))
    t.act("buy", card="green-2")  # 3 sabres: the pirate table's yellow-2 is winnable
    assert t.state.step == "fight"
    t.state.players[0].sabres = 9  # enough for anything (state poke for brevity)
    with pytest.raises(IllegalAction) as e:
        t.play(ac.Fight(0, t.state.display[0]))
    assert e.value.code == "card_not_available"
    assert all(a.card in t.state.pirate_table for a in t.legal() if isinstance(a, ac.Fight))


# --- place, refill, exhausted deck ------------------------------------------------------


def test_place_skipped_when_pirate_table_is_full() -> None:
    t = Table(filler(30), players=["a", "b", "c"])
    for _ in range(5):  # 5 turns, each places one card, nobody fights
        t.play(simple(t))
        while t.state.step != "buy":
            t.play(simple(t))
    assert len(t.state.pirate_table) == 6
    deck_before = t.state.deck_count
    t.play(simple(t))  # buy
    if t.state.step == "fight":
        t.act("pass")
    assert t.of(ev.PlaceSkipped)[-1] == ev.PlaceSkipped(2)
    assert len(t.state.display) == 6 and t.state.deck_count == deck_before - 1


def test_exhausted_deck_leaves_display_short() -> None:
    t = Table(filler(7), players=[f"p{i}" for i in range(5)], end_rule="one_more_turn")
    t.run(simple)
    assert t.state.deck_count == 0
    assert len(t.state.display) < 6
    reveals = t.of(ev.CardRevealed, ev.ShipRevealed)
    assert [e.card for e in reveals] == [f"ship-{i}" for i in range(1, 9)]


def test_arrival_order_of_display_and_pirate_table() -> None:
    deck = filler(20)
    t = Table(deck)
    assert t.state.display == deck[:6] and t.state.pirate_table == [deck[6]]
    t.act("buy", card=deck[2])
    if t.state.step == "fight":
        t.act("pass")
    t.act("place", card=deck[0])
    assert t.state.display == [deck[1], deck[3], deck[4], deck[5], deck[7], deck[8]]
    assert t.state.pirate_table == [deck[6], deck[0]]


# --- ships, lone ships, the 7-card limit ------------------------------------------------


def _ships_in_display(revealer: int = 0) -> Table:
    """2 players, one_more_turn: ``revealer``'s first refill reveals ship-1 and ship-2."""
    t = Table(filler(7 + 2 * revealer), players=["a", "b"], end_rule="one_more_turn")
    while "ship-1" not in t.state.display:
        t.play(simple(t))
    assert t.state.display[-2:] == ["ship-1", "ship-2"]
    assert t.of(ev.ShipRevealed)[0].seat == revealer
    return t


def test_ship_needs_a_row() -> None:
    t = _ships_in_display()
    for row, code in ((None, "row_required"), ("blue", "no_such_row"), ("pink", "no_such_row")):
        fields = {"card": "ship-1"} | ({"row": row} if row else {})
        with pytest.raises(IllegalAction) as e:
            t.act("buy", **fields)
        assert e.value.code == code
    with pytest.raises(IllegalAction) as e:
        t.act("buy", card=t.state.display[0], row="alone")
    assert e.value.code == "wrong_row"


def test_lone_ship_joins_the_next_row_started() -> None:
    t = _ships_in_display()
    p = t.player
    assert t.act("buy", card="ship-1", row="alone")[0] == ev.CardBought(
        1, "ship-1", "alone", 5, 0, 0, 0)
    assert p.lone_ships == ["ship-1"] and "ship-1" not in t.state.display
    p.sabres = 5  # (poke) enough to win one card in the final round; simple() never fights
    while t.state.phase != "final_round" or t.seat != 1:
        t.play(simple(t))
    fresh = next(a for a in t.legal() if isinstance(a, ac.Fight)
                 and CARDS[a.card].color and CARDS[a.card].color not in p.rows)
    won = t.play(fresh)[0]
    assert won.sabres == CARDS[fresh.card].sabres  # the lone ship adds no yield
    assert p.rows[won.row] == [fresh.card, "ship-1"]
    assert p.lone_ships == []


def test_ship_into_a_row_pays_the_row_out() -> None:
    t = _ships_in_display(revealer=1)
    assert t.seat == 0
    row = next(iter(t.player.rows))
    cards = list(t.player.rows[row])
    assert ac.Buy(0, "ship-1", row) in t.legal()
    assert ac.Buy(0, "ship-1", "alone") in t.legal()
    bought = t.act("buy", card="ship-1", row=row)[0]
    expect = tuple(sum(getattr(CARDS[c], f) for c in cards) for f in ("sabres", "ducats", "jewels"))
    assert (bought.sabres, bought.ducats, bought.jewels) == expect
    assert t.player.rows[row] == [*cards, "ship-1"]


def test_lone_ships_join_at_most_six_surplus_stays() -> None:
    p = Player("x")
    for i in range(1, 9):
        add_to_row(p, f"ship-{i}", "alone")
    add_to_row(p, "red-2", "red")
    assert p.rows["red"] == ["red-2", *(f"ship-{i}" for i in range(1, 7))]
    assert p.lone_ships == ["ship-7", "ship-8"]
    add_to_row(p, "blue-2", "blue")
    assert p.rows["blue"] == ["blue-2", "ship-7", "ship-8"]
    assert p.lone_ships == []


def test_row_full_refuses_island_card_and_ship() -> None:
    t = _ships_in_display()
    p = t.player
    # A full row is out of reach of a short test game; build one with evolve's helper.
    color = CARDS[t.state.display[0]].color
    p.rows.pop(color, None)
    add_to_row(p, f"{color}-8" if f"{color}-8" != t.state.display[0] else f"{color}-7", color)
    for i in range(3, 9):
        add_to_row(p, f"ship-{i}", color)
    assert len(p.rows[color]) == 7
    p.ducats = 50
    with pytest.raises(IllegalAction) as e:
        t.act("buy", card=t.state.display[0])
    assert e.value.code == "row_full"
    with pytest.raises(IllegalAction) as e:
        t.act("buy", card="ship-1", row=color)
    assert e.value.code == "row_full"
    legal = t.legal()
    assert ac.Buy(t.seat, t.state.display[0]) not in legal
    assert ac.Buy(t.seat, "ship-1", color) not in legal
    assert ac.Buy(t.seat, "ship-1", "alone") in legal


def test_fight_skipped_when_the_only_winnable_card_has_no_room() -> None:
    t = Table(deck_of("green-2", "orange-2", "yellow-2", "purple-2", "brown-2", "gray-2",
                      "red-2"))
    p = t.player
    for i in range(2, 9):
        if i != 2:
            add_to_row(p, f"red-{i}", "red")  # red row of 6 island cards ...
    add_to_row(p, "ship-1", "red")  # ... and a ship: 7, full
    t.act("buy", card="green-2")  # 3 sabres: red-2 would cost 3 but cannot join
    assert t.events[-1] == ev.FightSkipped(0)


# --- the final round ------------------------------------------------------------------


def _final_round(deck_size: int = 7) -> Table:
    t = Table(filler(deck_size), players=["a", "b"], end_rule="round")
    while t.state.phase != "final_round":
        t.play(simple(t))
    return t


def test_final_round_can_take_from_the_display() -> None:
    t = _final_round()
    seat = t.seat
    t.state.players[seat].sabres = 4  # enough for one card (poke: short game)
    card = next(c for c in t.state.display if CARDS[c].fight_cost == 3)
    assert ac.Fight(seat, card, "alone" if card.startswith("ship") else None) in t.legal() or \
        card.startswith("ship")
    row = "alone" if card.startswith("ship") else None
    won = t.play(ac.Fight(seat, card, row))[0]
    assert won.source == "display" and won.cost == 3
    assert card not in t.state.display
    assert t.state.players[seat].sabres == 1


def test_final_round_can_take_from_the_pirate_table_and_nothing_else() -> None:
    t = _final_round()
    seat = t.seat
    t.state.players[seat].sabres = 8
    for kind in ({"type": "buy", "card": t.state.display[0]},
                 {"type": "place", "card": t.state.display[0]}, {"type": "sell_jewel"}):
        with pytest.raises(IllegalAction) as e:
            t.act(**kind)
        assert e.value.code == "wrong_step"
    card = t.state.pirate_table[0]
    row = "alone" if card.startswith("ship") else None
    won = t.play(ac.Fight(seat, card, row))[0]
    assert won.source == "pirate_table" and won.cost == CARDS[card].fight_cost
    assert t.seat != seat or t.state.phase == "ended"


def test_final_round_pass_ends_the_turn_and_game_ends() -> None:
    t = _final_round()
    for p in t.state.players:
        p.sabres = 5
    first = t.seat
    t.act("pass")
    assert t.events[-1] == ev.FightDeclined(first)
    t.act("pass")
    assert t.state.phase == "ended" and t.state.current_seat is None
    assert isinstance(t.events[-1], ev.GameEnded)
    with pytest.raises(IllegalAction) as e:
        EINAUGE.decide(t.state, ac.Pass(0))
    assert e.value.code == "game_over"


# --- error codes and decide purity ------------------------------------------------------


def test_error_codes() -> None:
    t = Table(filler(20))
    cases = [
        (ac.Buy(1, "green-2"), "not_your_turn"),
        (ac.Place(0, "green-2"), "wrong_step"),
        (ac.Pass(0), "wrong_step"),
        (ac.Buy(0, "pink-3"), "unknown_card"),
        (ac.Buy(0, "blue-8"), "card_not_available"),
        (ac.Buy(0, "green-2", "red"), "wrong_row"),
        (ac.SellCard(0, "green-2"), "card_not_owned"),
        (ac.Buy(0, 5), "bad_action"),  # type: ignore[arg-type]
        (ac.Buy("0", "green-2"), "bad_action"),  # type: ignore[arg-type]
        (ac.Buy(True, "green-2"), "bad_action"),  # type: ignore[arg-type]
    ]
    for action, code in cases:
        before = EINAUGE.public_view(t.state)
        with pytest.raises(IllegalAction) as e:
            EINAUGE.decide(t.state, action)
        assert e.value.code == code, action
        assert EINAUGE.public_view(t.state) == before


def test_cannot_afford() -> None:
    deck = ["blue-8", "green-8", "red-8", "yellow-8", "purple-8", "orange-2", "gray-2",
            *filler(10, avoid=["orange-2", "gray-2"])]
    t = Table(deck)
    t.act("buy", card="blue-8")  # 20 -> 12
    if t.state.step == "fight":
        t.act("pass")
    t.act("place", card="orange-2")
    t.act("buy", card="green-8")
    if t.state.step == "fight":
        t.act("pass")
    t.act("place", card=t.state.display[-1])
    t.act("buy", card="red-8")  # A: 12 -> 4
    if t.state.step == "fight":
        t.act("pass")
    t.act("place", card=t.state.display[-1])
    t.act("buy", card=min(t.state.display, key=lambda c: CARDS[c].price))
    if t.state.step == "fight":
        t.act("pass")
    t.act("place", card=t.state.display[-1])
    assert t.seat == 0 and t.player.ducats < 8
    with pytest.raises(IllegalAction) as e:
        t.act("buy", card="yellow-8")
    assert e.value.code == "cannot_afford"


def test_bad_message_from_codec() -> None:
    for data in ({"type": "steal", "seat": 0}, {"type": "buy", "seat": 0},
                 {"type": "pass", "seat": 0, "extra": 1}, ["pass"], {"seat": 0}):
        with pytest.raises(IllegalAction) as e:
            ac.ACTIONS.decode(data)  # type: ignore[arg-type]
        assert e.value.code == "bad_message"


def test_decide_never_changes_the_state() -> None:
    t = Table(filler(20))
    copy = t.state.copy()
    view = EINAUGE.public_view(t.state)
    events = EINAUGE.decide(t.state, ac.Buy(0, "green-2"))
    assert events[0].type == "card_bought"
    assert EINAUGE.public_view(t.state) == view
    assert EINAUGE.public_view(copy) == view
    assert [p.ducats for p in t.state.players] == [20, 20]


def test_island_card_may_name_its_own_color_as_row() -> None:
    t = Table(filler(20))
    assert t.act("buy", card="green-2", row="green")[0].row == "green"


def test_game_started_seat_0_starts_with_setup_resources() -> None:
    t = Table(filler(20), players=["a", "b", "c"])
    assert t.seat == 0 and t.state.step == "buy"
    assert [(p.sabres, p.ducats, p.jewels) for p in t.state.players] == [(2, 20, 1)] * 3
    assert t.state.deck_count == 20 - 7 + 8


def test_not_started_and_actions_after_the_end() -> None:
    with pytest.raises(IllegalAction) as e:
        EINAUGE.decide(EINAUGE.initial_state(), ac.Pass(0))
    assert e.value.code == "not_started"
    t = Table(filler(7))
    t.run(simple)
    for action in (ac.Pass(0), ac.Buy(0, "green-2"), ac.SellJewel(1)):
        with pytest.raises(IllegalAction) as e:
            EINAUGE.decide(t.state, action)
        assert e.value.code == "game_over"
