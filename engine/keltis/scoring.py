"""Final scoring (RULES-keltis.md, "Final scoring"), producing CONTRACT §3's ``result``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.keltis.cards import COLORS
from engine.keltis.state import Player

ROW_POINTS = (0, -4, -3, -2, 1, 2, 3, 6, 7, 10)
"""Points of a color row by its number of cards (index; 9 or more cards: the last)."""

STONE_POINTS = (-4, -1, 0, 4, 6, 10)
"""Points by the number of stones held (index; 5 or more: the last)."""


def row_points(cards: int) -> int:
    """Points of a color row of ``cards`` cards (number, point and end cards all count)."""
    return ROW_POINTS[min(cards, len(ROW_POINTS) - 1)]


def stone_points(stones: int) -> int:
    """Points for holding ``stones`` stone cards."""
    return STONE_POINTS[min(stones, len(STONE_POINTS) - 1)]


def score(seat: int, p: Player) -> dict[str, Any]:
    """One seat's breakdown: ``rows`` (points per color row, canonical color order),
    ``point_row`` (+1 per point card in it), ``stones`` (points), ``total``."""
    rows = {c: row_points(len(p.rows[c])) for c in COLORS if c in p.rows}
    point_row = len(p.point_row)
    stones = stone_points(len(p.stones))
    return {"seat": seat, "rows": rows, "point_row": point_row, "stones": stones,
            "total": sum(rows.values()) + point_row + stones}


def final_scores(players: Sequence[Player]) -> dict[str, Any]:
    """The ``result`` object: scores in seat order; ``winners``: every seat with the
    highest total, ascending (a tie shares the win; RULES "Final scoring" 5)."""
    scores = [score(i, p) for i, p in enumerate(players)]
    best = max(s["total"] for s in scores)
    return {"scores": scores, "winners": [s["seat"] for s in scores if s["total"] == best]}
