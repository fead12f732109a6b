"""``evolve``: apply one Keltis event to a state (the fold step of replay).

Events are facts: ``evolve`` trusts them and never raises for an event ``decide``
produced. The turn order lives here, since it follows from the events alone: a normal turn
ends when its refill is done (the last draw, or the skipped draws); once the end has been
triggered the next step is the final turns (``step`` ``None`` until
``final_turns_started``); a final turn ends with ``final_turn_ended``.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from typing import Any

from engine.keltis import events as ev
from engine.keltis.cards import (
    DECK,
    END,
    KIND,
    PILE,
    POINT,
    RANK,
    REMOVED_TWO_PLAYERS,
    STONE_VALUE,
    VALUE,
)
from engine.keltis.state import Player, State

_RANK = RANK.__getitem__


def _take(p: Player, card: str) -> None:
    """Take ``card`` out of ``p``'s hand (and out of its publicly known part)."""
    p.hand.remove(card)
    known = p.known
    if known and card in known:
        known.remove(card)


def lay(p: Player, card: str, row: str) -> bool:
    """Put ``card`` (already out of the hand) onto ``row``; True if it closed that row.

    RULES "Laying": the direction is fixed by the first card whose value differs from the
    card before it; an end card closes the row (a second one closes nothing new).
    """
    if row == POINT:
        p.point_row.append(card)
        return False
    cards = p.rows.get(row)
    if KIND[card] == END:
        cards.append(card)  # type: ignore[union-attr]
        return p.last.pop(row, None) is not None  # only the first end card closes it
    value: int = VALUE[card]  # type: ignore[assignment]
    if cards is None:
        p.rows[row] = [card]
        p.dirs[row] = 0
    else:
        cards.append(card)
        if p.dirs[row] == 0:
            last = p.last[row]
            if value != last:
                p.dirs[row] = 1 if value > last else -1
    p.last[row] = value
    return False


def _end_turn(s: State) -> None:
    s.blocked = ()
    s.draws_left = 0
    if s.end_triggered or s.deck_pos >= len(s.deck):
        # The final turns are next. With the deck just used up, ``end_triggered``
        # follows as the next event, in this (the triggering) player's name.
        s.step = None
    else:
        s.current_seat = (s.current_seat + 1) % len(s.players)  # type: ignore[operator]
        s.step = "play"


def _game_started(s: State, e: ev.GameStarted) -> None:
    s.players = [Player(name) for name in e.players]
    s.options = dict(e.options)
    s.deck = list(e.deck)
    s.deck_pos = 0
    s.stones = list(range(1, 10))
    s.phase = "turns"
    s.step = "deal"
    s.current_seat = 0


def _cards_removed(s: State, e: ev.CardsRemoved) -> None:
    s.removed = list(e.cards)
    s.deck_pos += REMOVED_TWO_PLAYERS


def _hand_dealt(s: State, e: ev.HandDealt) -> None:
    s.players[e.seat].hand = sorted(e.cards, key=_RANK)
    s.deck_pos += len(e.cards)
    s.dealt += 1
    if s.dealt == len(s.players):
        s.step = "play"
        s.current_seat = 0


def _card_laid(s: State, e: ev.CardLaid) -> None:
    p = s.players[e.seat]
    _take(p, e.card)
    if lay(p, e.card, e.row):
        s.closed_rows += 1
    if s.phase == "final_turns":
        s.final_lays += 1
    else:
        s.step = "draw"
        s.draws_left = 1


def _card_discarded(s: State, e: ev.CardDiscarded) -> None:
    _take(s.players[e.seat], e.card)
    s.discards[e.pile].append(e.card)
    s.blocked = (e.pile,)
    s.step = "draw"
    s.draws_left = 1


def _stone_taken(s: State, e: ev.StoneTaken) -> None:
    p = s.players[e.seat]
    blocked = []
    for card in e.cards:
        _take(p, card)
        pile = PILE[card]
        s.discards[pile].append(card)
        blocked.append(pile)
    value = STONE_VALUE[e.stone]
    s.stones.remove(value)
    insort(p.stones, value)
    s.blocked = tuple(blocked)
    s.step = "draw"
    s.draws_left = 2


def _card_drawn(s: State, e: ev.CardDrawn) -> None:
    p = s.players[e.seat]
    if e.source == DECK:
        s.deck_pos += 1
    else:
        s.discards[e.source].pop()
        p.known.append(e.card)
    insort(p.hand, e.card, key=_RANK)
    s.draws_left -= 1
    if s.draws_left == 0:
        _end_turn(s)


def _draws_skipped(s: State, e: ev.DrawsSkipped) -> None:
    _end_turn(s)


def _end_triggered(s: State, e: ev.EndTriggered) -> None:
    s.end_triggered = True
    s.trigger_seat = e.seat
    s.trigger = e.reason


def _final_turns_started(s: State, e: ev.FinalTurnsStarted) -> None:
    s.phase = "final_turns"
    s.current_seat = e.seat
    s.step = "final"
    s.final_left = len(s.players)
    s.final_lays = 0


def _final_turn_ended(s: State, e: ev.FinalTurnEnded) -> None:
    s.final_left -= 1
    s.final_lays = 0
    if s.final_left == 0:
        s.step = None  # final scoring is next
    else:
        s.current_seat = (e.seat + 1) % len(s.players)


def _game_ended(s: State, e: ev.GameEnded) -> None:
    s.phase = "ended"
    s.step = None
    s.current_seat = None
    s.result = e.result


_APPLY: dict[type, Callable[[State, Any], None]] = {
    ev.GameStarted: _game_started,
    ev.CardsRemoved: _cards_removed,
    ev.HandDealt: _hand_dealt,
    ev.CardLaid: _card_laid,
    ev.CardDiscarded: _card_discarded,
    ev.StoneTaken: _stone_taken,
    ev.CardDrawn: _card_drawn,
    ev.DrawsSkipped: _draws_skipped,
    ev.EndTriggered: _end_triggered,
    ev.FinalTurnsStarted: _final_turns_started,
    ev.FinalTurnEnded: _final_turn_ended,
    ev.GameEnded: _game_ended,
}


def evolve(state: State, event: Any) -> State:
    """Apply ``event`` to ``state`` in place and return it; ``seq`` counts applied events.

    Raises ``KeyError`` for an object that is not a Keltis event.
    """
    _APPLY[type(event)](state, event)
    state.seq += 1
    return state
