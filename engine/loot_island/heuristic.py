"""The evaluation behind Loot Island's greedy policy (docs/bots.md, "Loot Island").

Three estimates, all in points of the final score and all from public information plus the
seat's own hand:

- ``loot_value``: what a set of kept loot is worth at the end: the exact scoring parts
  (gold, jewels, crowns ranked against the other seats' crosses now, skulls, books,
  amulets) plus a small *potential* for sets that one more card would complete (a lone
  jewel, an unpaired book, an incomplete amulet set), since later offers may complete them.
- ``cube_cost``: what holding ``c`` curse cubes costs at the end: 1.5 points a cube (the
  healers' multiplier, mostly 2, less the cubes shed before the end), 3 more per cube from
  the 10th (fewer shedding chances and the dearest healers), and the whole score at 13
  (elimination, RULES "End of the game" 2).
- ``board_value``: the loot a seat can expect from the discs it has on the board: per
  landing, the picks its place in the disc stack gives it from the offer the landing would
  get when its coast is explored (big or small loot, RULES phase 3), times ``PICK``, scaled
  by how likely the landing is to reach the minimum and by how many more phases the other
  players have to crowd it; landings that no exploration of rounds 1-5 reaches get the
  final exploration's small loot.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.loot_island.data import ELIMINATION_CUBES, LOOT
from engine.loot_island.scoring import (
    amulet_points,
    book_pairs,
    crown_points,
    jewel_points,
    skull_points,
)

ROUNDS = 5
CUBE = 1.5
"""Points one curse cube costs at the end (a healer's multiplier is 1-3, mostly 2; some
cubes are shed before the end). With less denial it won 56 % of 300 games against 2.0."""
PICK = 5.0
"""Points one pick from a loot offer is worth: a choice among the cards left, or 2 cubes
shed by discarding one."""
DISCOUNT = 0.7
"""Per phase 2 still to come before a landing is explored: the others may crowd it."""
SHORTFALL = 0.45
"""Per card a landing lacks to reach the minimum: the chance it gets there anyway."""


def loot_value(loot: Sequence[str], rival_crosses: Sequence[int]) -> float:
    """Points of ``loot`` (kept loot-card ids) at the end, crowns ranked against
    ``rival_crosses`` (the other seats' cross totals now), plus the potential of sets
    still open (see the module docstring)."""
    cards = [LOOT[c] for c in loot]
    gold = sum(c.gold for c in cards)
    jewels = sum(1 for c in cards if c.kind == "jewel")
    crosses = sum(c.crosses for c in cards)
    crowns = crown_points([crosses, *rival_crosses])[0] if crosses else 0
    books = sum(LOOT[b].multiplier * LOOT[p].curse for b, p in book_pairs(loot))
    value = (gold + jewel_points(jewels) + crowns + skull_points(loot) + books
             + amulet_points(loot))
    # Potential: a third of what the next card of an open set would add.
    if jewels % 3:
        value += (jewel_points(jewels + 1) - jewel_points(jewels)) / 3
    n_books = sum(1 for c in cards if c.kind == "book")
    n_partners = sum(1 for c in cards if c.kind not in ("book", "amulet") and c.curse >= 1)
    value += 1.0 * max(0, n_books - n_partners)
    golds = [c.gold for c in cards if c.kind == "amulet"]
    if golds:
        missing = sum(1 for g in (1, 2, 3) if golds.count(g) <= min(golds.count(1),
                                                                     golds.count(2),
                                                                     golds.count(3)))
        value += {1: 3.0, 2: 1.0}.get(missing, 0.0)
    return value


def cube_cost(cubes: int, stake: float = 60.0) -> float:
    """Points ``cubes`` curse cubes are expected to cost at the end; ``stake`` is what
    elimination (13 or more) would lose."""
    if cubes >= ELIMINATION_CUBES:
        return CUBE * cubes + stake
    return CUBE * cubes + 3.0 * max(0, cubes - 9)


def picks(number: int, discs: Sequence[int], seat: int) -> int:
    """How many of an offer of ``number`` cards ``seat`` picks: owners pick one card each
    from the bottom of ``discs`` up, again and again (RULES phase 3, step 6)."""
    if seat not in discs:
        return 0
    i = discs.index(seat)
    return max(0, (number - i + len(discs) - 1) // len(discs))


Spot = tuple[int, int, tuple[int, ...]]
"""A landing as the estimate sees it: (count, chests, disc owners bottom to top)."""


def coast_offers(a: Spot, b: Spot, minimum: int, big_bonus: int,
                 final: bool) -> tuple[tuple[float, int], tuple[float, int]]:
    """Per landing of a coast (``a`` is its ``-1`` landing): (chance it qualifies, loot
    number). Big and small loot as RULES phase 3 steps 3-5 with the counts as they stand;
    a landing short of ``minimum`` qualifies with chance ``SHORTFALL`` per missing card.
    ``final``: the final exploration (small loot, the chests, everywhere)."""
    out = []
    for spot in (a, b):
        count, _, discs = spot
        q = 1.0 if count >= minimum else SHORTFALL ** (minimum - count)
        out.append(q if discs else 0.0)
    if final:
        return (out[0], a[1]), (out[1], b[1])
    ka = (a[0], a[1], len(a[2]), 1)
    kb = (b[0], b[1], len(b[2]), 0)
    big_a = ka > kb or not out[1]
    if not out[0]:
        big_a = False
    na = max(1, len(a[2]) + a[1] + big_bonus) if big_a else a[1]
    nb = b[1] if big_a else max(1, len(b[2]) + b[1] + big_bonus)
    return (out[0], na), (out[1], nb)


def coast_value(a: Spot, b: Spot, coast: int, ship: int, round_: int, seat: int,
                minimum: int, final_minimum: int, big_bonus: int) -> float:
    """Expected points of loot for ``seat`` from coast index ``coast`` (landings ``a``, its
    ``-1``, and ``b``) during phase 2 of round ``round_`` with the ship at coast index
    ``ship``: the ship's coast is explored this round with ``minimum`` and ``big_bonus``
    (the event's), later coasts in later rounds (without events), the rest only in the
    final exploration."""
    if seat not in a[2] and seat not in b[2]:
        return 0.0
    ahead = (coast - ship) % 4
    if round_ + ahead <= ROUNDS:
        m, bonus, final = (minimum, big_bonus, False) if ahead == 0 else (final_minimum, 0,
                                                                          False)
        weight = DISCOUNT ** ahead
    else:
        m, bonus, final = final_minimum, 0, True
        weight = DISCOUNT ** (ROUNDS + 1 - round_)
    total = 0.0
    for spot, (q, number) in zip((a, b), coast_offers(a, b, m, bonus, final), strict=True):
        if q:
            total += weight * q * PICK * picks(number, spot[2], seat)
    return total


def board_value(spots: Sequence[Spot], ship: int, round_: int, seat: int, minimum: int,
                final_minimum: int, big_bonus: int) -> float:
    """``coast_value`` summed over the 4 coasts of the 8 landings ``spots`` (clockwise)."""
    return sum(coast_value(spots[2 * k], spots[2 * k + 1], k, ship, round_, seat, minimum,
                           final_minimum, big_bonus) for k in range(4))
