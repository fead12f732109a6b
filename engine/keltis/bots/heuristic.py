"""A Keltis position's worth to each seat, for ``greedy`` and the search's leaves.

``values(state)`` estimates each seat's final total from what its rows, point row,
stones and hand promise (the state may be a sample: ``Game.sample``). A color row scores
``ROW_POINTS`` by its length (RULES "Final scoring"); an open row is valued at the
length it may still reach: its cards, plus ``FIT`` per hand card of its color that can
still follow (rising: not lower than the last card; falling: not higher; a row of one
card either way), plus ``FUTURE`` cards per unit of the game still to come (the share of
the deck left). A row not started is worth at least nothing (it need not be started);
a closed row scores what it holds. Lengths between whole numbers are interpolated.
Stones count by ``STONE_POINTS``, plus ``PAIR`` per equal pair in hand whose stone is
still there; each point card laid counts 1, one in hand ``FIT``.
``win_estimate(vals, seat)`` turns the margin to the best other seat into a value in
``(0, 1)``.
"""

from __future__ import annotations

import math

from engine.keltis.cards import COLORS, END, INFO, NUMBER
from engine.keltis.scoring import ROW_POINTS, stone_points
from engine.keltis.state import Player, State

FIT = 0.75
"""Cards a fitting hand card is expected to add (it may be discarded or blocked)."""
FUTURE = 4.0
"""Cards an open row is expected to gain from draws over a whole game."""
PAIR = 1.5
"""Worth of an equal pair in hand whose stone is still in the middle."""
SCALE = 5.0
"""Points of margin that make a win about 73 % likely (``win_estimate``)."""
DECK_START = 101


def row_value(length: float) -> float:
    """``ROW_POINTS`` at a fractional ``length`` (linear between whole lengths)."""
    top = len(ROW_POINTS) - 1
    if length >= top:
        return float(ROW_POINTS[top])
    low = int(length)
    frac = length - low
    return ROW_POINTS[low] + frac * (ROW_POINTS[low + 1] - ROW_POINTS[low])


def player_value(p: Player, left: float, stones_free: frozenset[int]) -> float:
    """The expected final total of ``p`` with ``left`` (0-1) of the game to come."""
    rows, last, dirs = p.rows, p.last, p.dirs
    fits = dict.fromkeys(COLORS, 0)  # hand cards that can still follow, per open row
    points_in_hand = 0
    counts: dict[int, int] = {}
    for card in p.hand:
        kind, color, v = INFO[card]
        if kind == NUMBER:
            lv = last.get(color)  # type: ignore[arg-type]
            if lv is None:  # no row yet (a closed row is not valued by its fits)
                fits[color] += 1  # type: ignore[index]
            else:
                d = dirs[color]  # type: ignore[index]
                if d == 0 or ((v >= lv) if d > 0 else (v <= lv)):  # type: ignore[operator]
                    fits[color] += 1  # type: ignore[index]
            counts[v] = counts.get(v, 0) + 1  # type: ignore[index]
        elif kind == END:
            if color in rows:
                fits[color] += 1  # type: ignore[index]
        else:
            points_in_hand += 1
    future = FUTURE * left
    total = 0.0
    for color in COLORS:
        row = rows.get(color)
        if row:
            if color not in last:  # closed: it scores what it holds
                total += ROW_POINTS[min(len(row), len(ROW_POINTS) - 1)]
            else:
                total += row_value(len(row) + FIT * fits[color] + future)
        else:  # a row not started need not be: worth at least nothing
            worth = row_value(FIT * fits[color] + future * 0.5)
            total += worth if worth > 0.0 else 0.0
    total += len(p.point_row) + FIT * points_in_hand
    total += stone_points(len(p.stones))
    total += PAIR * sum(c // 2 for v, c in counts.items() if v in stones_free)
    return total


def values(s: State) -> list[float]:
    """Every seat's ``player_value`` in ``s`` (a finished game: the final totals)."""
    if s.result is not None:
        return [float(sc["total"]) for sc in s.result["scores"]]
    left = s.deck_count / DECK_START
    free = frozenset(s.stones)
    return [player_value(p, left, free) for p in s.players]


def margin(vals: list[float], seat: int) -> float:
    """``seat``'s value minus the best other seat's."""
    return vals[seat] - max(v for i, v in enumerate(vals) if i != seat)


def win_estimate(vals: list[float], seat: int) -> float:
    """A win probability for ``seat`` from its margin (logistic, ``SCALE`` points)."""
    return 1.0 / (1.0 + math.exp(-margin(vals, seat) / SCALE))
