"""``evolve``: apply one Einauge event to a state (the fold step of replay).

Events are facts: ``evolve`` trusts their payouts and costs and never raises for an event
that ``decide`` produced. It is also where the turn order lives, because who plays next
follows from the events alone: a normal turn ends when the refill is done (the display
holds 6 cards again, or the deck is empty); a final-round turn ends with its fight.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.einauge import events as ev
from engine.einauge.cards import COLOR, COLORS, ISLAND_SET, SHIPS
from engine.einauge.state import Player, State

ROW_LIMIT = 7
DISPLAY_SIZE = 6
PIRATE_TABLE_SIZE = 6


def add_to_row(player: Player, card: str, row: str) -> None:
    """Put ``card`` into ``row`` (a color or ``"alone"``), by RULES "Ship cards".

    An island card that starts a row takes the lone ships with it, oldest first, up to the
    row limit; the rest stay lone for the next row. The changed lists are replaced, never
    changed in place: copies of the state share them (``state`` module docstring).
    """
    if row == "alone":
        player.lone_ships = [*player.lone_ships, card]
        return
    rows = player.rows
    cards = rows.get(row)
    if cards is not None:
        rows[row] = [*cards, card]
        return
    lone = player.lone_ships
    if lone:
        rows[row] = [card, *lone[: ROW_LIMIT - 1]]
        player.lone_ships = lone[ROW_LIMIT - 1:]
    else:
        rows[row] = [card]


def _end_turn(s: State) -> None:
    if s.end_triggered and s.turns_left == 0:
        s.step = None  # the final round is next
        return
    if s.end_triggered:
        s.turns_left -= 1
    s.current_seat = (s.current_seat + 1) % len(s.players)  # type: ignore[operator]
    s.players[s.current_seat].turns += 1
    s.step = "buy"


def _after_place(s: State) -> None:
    if len(s.display) < DISPLAY_SIZE and s.deck_pos < len(s.deck):
        s.step = "refill"
    else:
        _end_turn(s)


def _end_final_turn(s: State) -> None:
    s.final_left -= 1
    if s.final_left == 0:
        s.step = None  # final scoring is next
    else:
        s.current_seat = (s.current_seat + 1) % len(s.players)  # type: ignore[operator]


def _game_started(s: State, e: ev.GameStarted) -> None:
    s.players = [Player(name) for name in e.players]
    s.options = dict(e.options)
    colors = {COLOR[c] for c in e.deck}
    s.colors = tuple(c for c in COLORS if c in colors)
    s.deck = [*e.deck, *SHIPS]
    s.display = s.deck[:DISPLAY_SIZE]
    s.pirate_table = [s.deck[DISPLAY_SIZE]]
    s.deck_pos = DISPLAY_SIZE + 1
    s.phase = "turns"
    s.current_seat = 0
    s.players[0].turns = 1
    s.step = "buy"


def _jewel_sold(s: State, e: ev.JewelSold) -> None:
    p = s.players[e.seat]
    p.jewels -= 1
    p.ducats += e.ducats


def _card_sold(s: State, e: ev.CardSold) -> None:
    p = s.players[e.seat]
    color: str = COLOR[e.card]  # type: ignore[assignment]
    sold = e.card
    # A new list, not ``remove``: copies of the state share the old one.
    row = [c for c in p.rows[color] if c != sold]
    p.ducats += e.ducats
    if any(c in ISLAND_SET for c in row):
        p.rows[color] = row
    else:
        # The row's last island card is gone: its ships become lone (RULES "Selling").
        del p.rows[color]
        p.lone_ships = [*p.lone_ships, *row]


def _card_bought(s: State, e: ev.CardBought) -> None:
    p = s.players[e.seat]
    s.display.remove(e.card)
    p.ducats += e.ducats - e.price
    add_to_row(p, e.card, e.row)
    p.sabres += e.sabres
    p.jewels += e.jewels
    s.step = "fight"


def _buy_skipped(s: State, e: ev.BuySkipped) -> None:
    s.step = "fight"


def _fight_won(s: State, e: ev.FightWon) -> None:
    p = s.players[e.seat]
    (s.pirate_table if e.source == "pirate_table" else s.display).remove(e.card)
    p.sabres += e.sabres - e.cost
    add_to_row(p, e.card, e.row)
    p.ducats += e.ducats
    p.jewels += e.jewels
    _after_fight(s)


def _after_fight(s: State, e: Any = None) -> None:
    if s.phase == "final_round":
        _end_final_turn(s)
    else:
        s.step = "place"


def _card_placed(s: State, e: ev.CardPlaced) -> None:
    s.display.remove(e.card)
    s.pirate_table.append(e.card)
    _after_place(s)


def _place_skipped(s: State, e: ev.PlaceSkipped) -> None:
    _after_place(s)


def _card_revealed(s: State, e: ev.CardRevealed | ev.ShipRevealed) -> None:
    s.display.append(s.deck[s.deck_pos])
    s.deck_pos += 1
    _after_place(s)


def _ship_revealed(s: State, e: ev.ShipRevealed) -> None:
    if e.end_triggered:
        n = len(s.players)
        s.end_triggered = True
        s.revealer = e.seat
        if s.options.get("end_rule", "round") == "one_more_turn":
            s.turns_left, s.final_start = n, (e.seat + 1) % n
        else:
            s.turns_left, s.final_start = n - 1 - e.seat, 0
    _card_revealed(s, e)


def _final_round_started(s: State, e: ev.FinalRoundStarted) -> None:
    s.phase = "final_round"
    s.current_seat = e.seat
    s.final_left = len(s.players)
    s.step = "fight"


def _game_ended(s: State, e: ev.GameEnded) -> None:
    s.phase = "ended"
    s.step = None
    s.current_seat = None
    s.result = e.result


_APPLY: dict[type, Callable[[State, Any], None]] = {
    ev.GameStarted: _game_started,
    ev.JewelSold: _jewel_sold,
    ev.CardSold: _card_sold,
    ev.CardBought: _card_bought,
    ev.BuySkipped: _buy_skipped,
    ev.FightWon: _fight_won,
    ev.FightDeclined: _after_fight,
    ev.FightSkipped: _after_fight,
    ev.CardPlaced: _card_placed,
    ev.PlaceSkipped: _place_skipped,
    ev.CardRevealed: _card_revealed,
    ev.ShipRevealed: _ship_revealed,
    ev.FinalRoundStarted: _final_round_started,
    ev.GameEnded: _game_ended,
}


def evolve(state: State, event: Any) -> State:
    """Apply ``event`` to ``state`` in place and return it; ``seq`` counts applied events.

    Raises ``KeyError`` for an object that is not an Einauge event.
    """
    _APPLY[type(event)](state, event)
    state.seq += 1
    return state
