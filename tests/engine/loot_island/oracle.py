"""An independent scorer, written from RULES "End of the game" 4-5 and the loot table
(read from the RULES text itself, not from the engine's data file), for comparing with the
engine's ``result``.

The specification is in the shared folder beside the repository (``<root>/../shared``: CI
clones the repository next to a copy of it); without it the tests that need it fail
(``require_rules``), they are not skipped.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.conftest import ROOT

RULES = ROOT.parent / "shared" / "RULES-loot-island.md"
HEALER_TABLE = {"healer-01": (1, 6), "healer-02": (1, 8), "healer-03": (1, 10),
                "healer-04": (1, 12), "healer-05": (2, 0), "healer-06": (2, 3),
                "healer-07": (2, 4), "healer-08": (2, 5), "healer-09": (2, 6),
                "healer-10": (3, 0), "healer-11": (3, 1), "healer-12": (3, 2),
                "healer-13": (3, 3), "healer-14": (2, 2)}


def _loot_table() -> dict[str, dict[str, Any]]:
    cards: dict[str, dict[str, Any]] = {}
    if not RULES.exists():  # require_rules fails the tests that need it
        return cards
    text = RULES.read_text(encoding="utf-8")
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for part in (cells[:6], cells[7:13]):
            if len(part) == 6 and re.fullmatch(r"loot-\d\d", part[0]):
                kind = part[2].split()
                cards[part[0]] = {
                    "kind": kind[0], "variant": kind[1] if len(kind) > 1 else None,
                    "gold": 0 if part[3] == "–" else int(part[3]), "curse": int(part[4]),
                    "crosses": int(part[5][1:]) if part[5].startswith("✝") else 0,
                    "mult": int(part[5][1:]) if part[5].startswith("×") else 0}
    return cards


LOOT = _loot_table()


def require_rules() -> None:
    """Fail (not skip) when the specification is missing or its loot table was not read."""
    if not RULES.exists():
        pytest.fail(f"the Loot Island specification is missing: {RULES} (the shared folder "
                    "beside the repository)", pytrace=False)
    if not LOOT:
        pytest.fail(f"no loot table found in {RULES}", pytrace=False)


def score(loots: list[list[str]], cubes: list[int], healers: list[str | None],
          curses: list[bool], start_seat: int) -> dict[str, Any]:
    """``{"totals": [...], "winners": [...], "cannot_pay": [...]}`` by the RULES."""
    n = len(loots)
    crosses = [sum(LOOT[c]["crosses"] for c in loots[i]) for i in range(n)]
    totals: list[int | None] = []
    cannot = []
    for i in range(n):
        if curses[i]:
            totals.append(None)
            continue
        loot = loots[i]
        kinds = [LOOT[c]["kind"] for c in loot]
        gold = sum(LOOT[c]["gold"] for c in loot)
        j = kinds.count("jewel")
        jewels = {0: 0, 1: 0, 2: 8}[j % 3] + 20 * (j // 3)
        crown = 0
        if crosses[i] > 0:
            better = sum(1 for k in range(n) if not curses[k] and crosses[k] > crosses[i])
            crown = [25, 18, 15, 12, 10][better]
        variants = {LOOT[c]["variant"] for c in loot if LOOT[c]["kind"] == "skull"}
        t = len({"bag", "jewel", "crown", "amulet", "book"} & set(kinds))
        skulls = [0, 1, 3, 6][len(variants)] * t
        books = sorted((c for c in loot if LOOT[c]["kind"] == "book"),
                       key=lambda c: (-LOOT[c]["mult"], c))
        partners = sorted((c for c in loot if LOOT[c]["kind"] != "book"
                           and LOOT[c]["curse"] >= 1), key=lambda c: (-LOOT[c]["curse"], c))
        book_pts = sum(LOOT[p]["curse"] * LOOT[b]["mult"] for b, p in zip(books, partners,
                                                                          strict=False))
        am = [LOOT[c]["gold"] for c in loot if LOOT[c]["kind"] == "amulet"]
        amulets = 10 * min(am.count(1), am.count(2), am.count(3))
        sub = gold + jewels + crown + skulls + book_pts + amulets + (5 if i == start_seat else 0)
        h = healers[i]
        cost = 0 if h is None else HEALER_TABLE[h][0] * cubes[i] + HEALER_TABLE[h][1]
        totals.append(sub - cost)
        if cost > sub:
            cannot.append(i)
    alive = [i for i in range(n) if not curses[i] and i not in cannot]
    winners = []
    if alive:
        best = max((totals[i], -cubes[i]) for i in alive)  # type: ignore[type-var]
        winners = [i for i in alive if (totals[i], -cubes[i]) == best]
    return {"totals": totals, "winners": winners, "cannot_pay": cannot}
