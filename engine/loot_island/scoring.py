"""Final scoring (RULES "End of the game" 4-5): parts, healer cost, winners.

Pure functions of kept loot, cubes, healers and the start marker, so the tests can
recompute a result independently of the flow that led to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.loot_island.data import (
    AMULET_SET,
    CROWN_POINTS,
    HEALERS,
    JEWELS_PAIR,
    JEWELS_TRIPLE,
    LOOT,
    SKULL_POINTS,
    START_MARKER,
)

_SET_KINDS = ("bag", "jewel", "crown", "amulet", "book")


def jewel_points(j: int) -> int:
    """20 per three jewels, plus 8 for a remaining pair (0, 0, 8, 20, 20, 28, 40, …)."""
    return JEWELS_TRIPLE * (j // 3) + (JEWELS_PAIR if j % 3 == 2 else 0)


def crown_points(crosses: Sequence[int | None]) -> list[int]:
    """Per seat: crown points by competition ranking of crosses among the seats given a
    number (``None``: eliminated, no part); 0 crosses take no part either."""
    out = []
    for x in crosses:
        if not x:
            out.append(0)
            continue
        rank = sum(1 for y in crosses if y is not None and y > x)
        out.append(CROWN_POINTS[rank] if rank < len(CROWN_POINTS) else 0)
    return out


def skull_points(loot: Sequence[str]) -> int:
    """s × t: s by the number of skull variants held, t the kinds of bag, jewel, crown,
    amulet, book held at least once."""
    variants = {LOOT[c].variant for c in loot if LOOT[c].kind == "skull"}
    kinds = {LOOT[c].kind for c in loot}
    return SKULL_POINTS[len(variants)] * sum(1 for k in _SET_KINDS if k in kinds)


def book_pairs(loot: Sequence[str]) -> list[tuple[str, str]]:
    """Books by multiplier descending (then id), partners (non-books with curse ≥ 1) by
    curse descending (then id), the i-th with the i-th."""
    books = sorted((c for c in loot if LOOT[c].kind == "book"),
                   key=lambda c: (-LOOT[c].multiplier, c))
    partners = sorted((c for c in loot if LOOT[c].kind != "book" and LOOT[c].curse >= 1),
                      key=lambda c: (-LOOT[c].curse, c))
    return list(zip(books, partners, strict=False))


def amulet_points(loot: Sequence[str]) -> int:
    """10 per complete set of amulets of gold 1, 2 and 3."""
    golds = [LOOT[c].gold for c in loot if LOOT[c].kind == "amulet"]
    return AMULET_SET * min(golds.count(1), golds.count(2), golds.count(3))


def final_result(loots: Sequence[Sequence[str]], cubes: Sequence[int],
                 healers: Sequence[str | None], eliminated: Sequence[bool],
                 start_seat: int) -> dict[str, Any]:
    """CONTRACT §3's ``result``: ``eliminated[i]`` is True for a seat eliminated by curses.
    A seat whose healer cost exceeds its subtotal gets ``eliminated: "cannot_pay"``."""
    crosses = [None if out else sum(LOOT[c].crosses for c in loot)
               for loot, out in zip(loots, eliminated, strict=True)]
    crowns = crown_points(crosses)
    scores = []
    for seat, loot in enumerate(loots):
        entry: dict[str, Any] = {"seat": seat, "eliminated": None, "cubes": cubes[seat]}
        keys = ("healer", "gold", "jewels", "crosses", "crowns", "skulls", "books",
                "book_pairs", "amulets", "start_marker", "subtotal", "healer_cost", "total")
        if eliminated[seat]:
            entry["eliminated"] = "curses"
            entry.update(dict.fromkeys(keys))
            scores.append(entry)
            continue
        pairs = book_pairs(loot)
        parts = {
            "gold": sum(LOOT[c].gold for c in loot),
            "jewels": jewel_points(sum(1 for c in loot if LOOT[c].kind == "jewel")),
            "crosses": crosses[seat],
            "crowns": crowns[seat],
            "skulls": skull_points(loot),
            "books": sum(LOOT[p].curse * LOOT[b].multiplier for b, p in pairs),
            "book_pairs": [[b, p] for b, p in pairs],
            "amulets": amulet_points(loot),
            "start_marker": START_MARKER if seat == start_seat else 0,
        }
        subtotal = sum(parts[k] for k in ("gold", "jewels", "crowns", "skulls", "books",
                                          "amulets", "start_marker"))
        h = healers[seat]
        cost = 0 if h is None else HEALERS[h].multiplier * cubes[seat] + HEALERS[h].fixed
        entry["healer"] = h
        entry.update(parts)
        entry.update(subtotal=subtotal, healer_cost=cost, total=subtotal - cost)
        if cost > subtotal:
            entry["eliminated"] = "cannot_pay"
        scores.append(entry)
    alive = [e for e in scores if e["eliminated"] is None]
    winners: list[int] = []
    if alive:
        best = max((e["total"], -e["cubes"]) for e in alive)
        winners = [e["seat"] for e in alive if (e["total"], -e["cubes"]) == best]
    return {"scores": scores, "winners": winners}
