"""Final scoring (RULES-einauge.md, "Final scoring"), producing CONTRACT section 3's ``result``."""

from __future__ import annotations

from typing import Any

from engine.einauge.cards import CARDS, COLORS
from engine.einauge.state import Player

CHEST_AWARDS = (7, 4, 1)
"""Jewels for chest ranks 1, 2 and 3 in a color; lower ranks get nothing."""


def color_bonus(rows: int) -> int:
    """Variant ``color_bonus``: triangular jewels for 3+ color rows (3→3, 4→6 … 8→28)."""
    return (rows - 1) * rows // 2 if rows >= 3 else 0


def chests(player: Player) -> dict[str, int]:
    """Treasure chests per color row, in canonical color order (rows without chests: 0)."""
    return {color: sum([CARDS[c].chests for c in player.rows[color]])
            for color in COLORS if color in player.rows}


def chest_awards(counts: list[int]) -> list[int]:
    """Jewels per player for one color, given each player's chest count in it.

    Players with at least one chest are ranked by count with competition ranking
    (1, 1, 3, …); ties get their rank's full award. ``[5, 3, 0] → [7, 4, 0]``,
    ``[3, 3, 1] → [7, 7, 1]``.
    """
    awards = []
    for mine in counts:
        rank = 1 + sum(1 for other in counts if other > mine)
        awards.append(CHEST_AWARDS[rank - 1] if mine > 0 and rank <= len(CHEST_AWARDS) else 0)
    return awards


def final_scores(players: list[Player], with_color_bonus: bool) -> dict[str, Any]:
    """The ``result`` object: per-seat breakdown in seat order and the winning seats.

    ``total = jewels + (ducats + 3·sabres) // 5 + Σ chest awards + color bonus``; every
    player with the highest total wins (a tie is a shared win).
    """
    per_player = [chests(p) for p in players]
    awards: list[dict[str, int]] = [{} for _ in players]
    for color in COLORS:
        counts = [c.get(color, 0) for c in per_player]
        if any(counts):
            for seat, award in enumerate(chest_awards(counts)):
                if award:
                    awards[seat][color] = award
    scores = []
    for seat, p in enumerate(players):
        from_sabres = 3 * p.sabres
        from_ducats = (p.ducats + from_sabres) // 5
        bonus = color_bonus(len(p.rows)) if with_color_bonus else 0
        scores.append({
            "seat": seat, "sabres": p.sabres, "ducats": p.ducats, "jewels": p.jewels,
            "ducats_from_sabres": from_sabres, "jewels_from_ducats": from_ducats,
            "chest_awards": awards[seat], "color_bonus": bonus,
            "total": p.jewels + from_ducats + sum(awards[seat].values()) + bonus,
        })
    best = max(s["total"] for s in scores)
    return {"scores": scores, "winners": [s["seat"] for s in scores if s["total"] == best]}
