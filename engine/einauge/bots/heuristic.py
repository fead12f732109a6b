"""The position evaluation shared by ``greedy`` and ``mcts``: expected final jewels per seat.

For a state that is not over, each seat's value estimates its final total (RULES "Final
scoring") from what is on the table now:

- **Tokens.** Jewels count 1 each; ducats 1/5 (the final exchange); sabres 3/5 at the end,
  more while turns remain, because 3-4 sabres win a pirate table card whose row pays out
  ("sabres as future cards"): ``SABRE_END + SABRE_PLAY · min(1, R / 2)``.
- **Rows still to pay.** A color row pays its whole yield every time a card joins it, so a
  row is worth its payout times the number of cards it can still expect: at most 7 cards,
  at most its share of that color's cards not yet owned (display, pirate table, deck), and
  at most the additions the seat's remaining turns allow (about ``ADDS_PER_TURN`` per
  turn, given to the best-paying rows first), discounted by ``ROW_DISCOUNT``.
- **Treasure chests.** Per color, the 7/4/1 awards by a soft ranking: the chest counts
  are compared through a logistic whose width grows with the chests of that color still
  to be had and the turns left, so a majority that can still be overturned is worth less
  than a safe one, and one still winnable is worth something. With nothing left to win,
  the exact awards of ``scoring.chest_awards``.
- **Ducats for the next purchases.** While turns remain, a seat with fewer than
  ``LIQUID_DUCATS`` ducats loses ``LIQUID_PENALTY`` per missing ducat: it may soon have
  to sell jewels or cards at a loss.
- **Color bonus** (variant only): the bonus for the rows held now.
- **The end approaching.** ``R``, the seat's remaining normal turns, is estimated from the
  island cards left in the deck (a normal turn draws about two) or, once the first ship
  is out, from the turns the end rule still allows; as ``R`` falls, row and sabre values
  fall to their end values.

A finished game is valued by its actual result. Only public information is read: the
face-down cards are used as a multiset (counts per color), never in order.
"""

from __future__ import annotations

import math

from engine.einauge.cards import CARDS, COLORS
from engine.einauge.scoring import CHEST_AWARDS, chest_awards, color_bonus
from engine.einauge.state import Player, State

SABRE_END = 0.6
SABRE_PLAY = 0.35
DUCAT = 0.2
ADDS_PER_TURN = 1.1
ROW_DISCOUNT = 0.55
LIQUID_DUCATS = 7
LIQUID_PENALTY = 0.08
CARDS_PER_TURN = 2.0
MARGIN_SCALE = 3.0
"""Jewels of margin that move a win estimate from 0.5 to about 0.73 (``win_estimate``)."""

_COLOR = {c: card.color for c, card in CARDS.items()}
_S = {c: card.sabres for c, card in CARDS.items()}
_D = {c: card.ducats for c, card in CARDS.items()}
_J = {c: card.jewels for c, card in CARDS.items()}
_C = {c: card.chests for c, card in CARDS.items()}
_AWARDS = (*CHEST_AWARDS, 0.0)


def remaining_turns(s: State) -> float:
    """Estimated normal turns each seat still has (0 in the final round or after)."""
    if s.phase != "turns":
        return 0.0
    n = len(s.players)
    if s.end_triggered:
        return s.turns_left / n
    islands = 0
    deck = s.deck
    for i in range(s.deck_pos, len(deck)):
        if _COLOR[deck[i]]:
            islands += 1
    # Plus the rest of this turn and the finishing round the first ship starts.
    return islands / (CARDS_PER_TURN * n) + 1.0


def available(s: State) -> tuple[dict[str, int], dict[str, int]]:
    """Per color: island cards nobody owns yet (display, pirate table, deck) and their
    treasure chests. Reads the deck as a multiset only."""
    cards = dict.fromkeys(COLORS, 0)
    chests = dict.fromkeys(COLORS, 0)
    deck = s.deck
    for c in (*s.display, *s.pirate_table, *(deck[i] for i in range(s.deck_pos, len(deck)))):
        color = _COLOR[c]
        if color:
            cards[color] += 1
            chests[color] += _C[c]
    return cards, chests


def sabre_value(turns: float) -> float:
    """Jewels one sabre is worth with ``turns`` normal turns left."""
    return SABRE_END + SABRE_PLAY * min(1.0, turns / 2.0)


def row_payout(cards: list[str], sv: float) -> float:
    """Jewels one payout of a row of ``cards`` is worth (sabres valued at ``sv``)."""
    s = d = j = 0
    for c in cards:
        s += _S[c]
        d += _D[c]
        j += _J[c]
    return j + DUCAT * d + sv * s


def token_and_row_value(p: Player, turns: float, avail: dict[str, int],
                        rivals: dict[str, int]) -> float:
    """A seat's value without chest awards: tokens, rows still to pay, liquidity.

    ``rivals[color]``: how many other seats hold a row of that color (they share the
    cards still to come).
    """
    sv = sabre_value(turns)
    value = p.jewels + DUCAT * p.ducats + sv * p.sabres
    if turns <= 0:
        return value
    budget = ADDS_PER_TURN * turns
    payouts = sorted(((row_payout(cards, sv), color, len(cards))
                      for color, cards in p.rows.items()), reverse=True)
    for payout, color, length in payouts:
        if budget <= 0:
            break
        adds = min(budget, 7 - length, avail[color] / (1 + rivals.get(color, 0)))
        if adds > 0:
            value += ROW_DISCOUNT * payout * adds
            budget -= adds
    if p.ducats < LIQUID_DUCATS:
        value -= LIQUID_PENALTY * (LIQUID_DUCATS - p.ducats) * min(1.0, turns)
    return value


def _soft_award(rank: float) -> float:
    lo = int(rank)
    frac = rank - lo
    a = _AWARDS[min(lo, 4) - 1] if lo >= 1 else _AWARDS[0]
    b = _AWARDS[min(lo + 1, 4) - 1]
    return a + (b - a) * frac


def chest_values(players: list[Player], turns: float, avail_chests: dict[str, int]) -> list[float]:
    """Expected chest awards per seat (soft ranking while chests are still to be had)."""
    out = [0.0] * len(players)
    counts_by_color: dict[str, list[int]] = {}
    for i, p in enumerate(players):
        for color, cards in p.rows.items():
            k = 0
            for c in cards:
                k += _C[c]
            if k:
                counts_by_color.setdefault(color, [0] * len(players))[i] = k
    for color, counts in counts_by_color.items():
        left = avail_chests[color]
        if left == 0 or turns <= 0:
            for i, award in enumerate(chest_awards(counts)):
                out[i] += award
            continue
        width = 0.35 + 0.3 * math.sqrt(left) * min(1.0, turns / 2.0)
        for i, mine in enumerate(counts):
            if not mine:
                continue
            rank = 1.0
            for j, other in enumerate(counts):
                if j != i and other:
                    # Strictly more chests ranks above; a tie shares the rank.
                    rank += 1.0 / (1.0 + math.exp(-(other - mine - 0.5) / width))
            out[i] += _soft_award(rank)
    return out


def values(s: State) -> list[float]:
    """Expected final jewels of every seat, in seat order (actual totals once ended)."""
    if s.result is not None:
        return [float(sc["total"]) for sc in s.result["scores"]]
    turns = remaining_turns(s)
    avail, avail_chests = available(s)
    players = s.players
    holders: dict[str, int] = {}
    for p in players:
        for color in p.rows:
            holders[color] = holders.get(color, 0) + 1
    out = chest_values(players, turns, avail_chests)
    if s.options.get("color_bonus"):
        # Variant color_bonus: the rows held now are counted as they stand.
        for i, p in enumerate(players):
            out[i] += color_bonus(len(p.rows))
    for i, p in enumerate(players):
        rivals = {color: holders[color] - 1 for color in p.rows} if turns > 0 else {}
        for color in avail:
            rivals.setdefault(color, holders.get(color, 0))
        out[i] += token_and_row_value(p, turns, avail, rivals)
    return out


def margin(vals: list[float], seat: int) -> float:
    """``seat``'s value minus the best other seat's value."""
    return vals[seat] - max(v for i, v in enumerate(vals) if i != seat)


def win_estimate(vals: list[float], seat: int) -> float:
    """A 0..1 reward for ``seat``: logistic of its margin (``MARGIN_SCALE`` jewels)."""
    return 1.0 / (1.0 + math.exp(-margin(vals, seat) / MARGIN_SCALE))


def mean_win_estimate(vals: list[float], seat: int) -> float:
    """Like ``win_estimate`` but against the mean of the other seats (a jewel-maximizing
    reward for games of three or more)."""
    others = (sum(vals) - vals[seat]) / (len(vals) - 1)
    return 1.0 / (1.0 + math.exp(-(vals[seat] - others) / MARGIN_SCALE))
