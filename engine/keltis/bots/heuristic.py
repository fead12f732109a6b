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

from engine.keltis.cards import COLOR, COLORS, END, KIND, NUMBER, POINT_CARD, VALUE
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
    by_color: dict[str, list[int]] = {}
    ends: dict[str, int] = {}
    points_in_hand = 0
    counts: dict[int, int] = {}
    for card in p.hand:
        kind = KIND[card]
        if kind == NUMBER:
            by_color.setdefault(COLOR[card], []).append(VALUE[card])  # type: ignore[arg-type]
            v = VALUE[card]
            counts[v] = counts.get(v, 0) + 1  # type: ignore[index]
        elif kind == END:
            ends[COLOR[card]] = ends.get(COLOR[card], 0) + 1  # type: ignore[index]
        elif kind == POINT_CARD:
            points_in_hand += 1
    total = 0.0
    for color in COLORS:
        row = p.rows.get(color)
        n = len(row) if row else 0
        if row and color not in p.last:
            total += ROW_POINTS[min(n, len(ROW_POINTS) - 1)]
            continue
        vals = by_color.get(color, ())
        last = p.last.get(color)
        d = p.dirs.get(color, 0)
        if last is None or d == 0:
            fit = len(vals)
        elif d > 0:
            fit = sum(1 for v in vals if v >= last)
        else:
            fit = sum(1 for v in vals if v <= last)
        if n:
            fit += ends.get(color, 0)
        reach = n + FIT * fit + FUTURE * left * (1.0 if n else 0.5)
        worth = row_value(reach)
        total += worth if n else max(0.0, worth)
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
