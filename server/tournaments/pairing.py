"""Who plays whom: Swiss rounds and arena waves, as pure functions of the standings.

Players are account ids (``str``); ``order`` is the standings order (best first, already
tie-broken: ``server.tournaments.standings``); ``met`` maps each player to the players it
has shared a table with; ``avoid`` maps each player to the players it blocked or was
blocked by (server/store/social.py), whom it is not seated with where the pairing has a
choice: in a Swiss round a block weighs as a repeat meeting does, and before it; in an
arena a blocked player is not seated at a table while another waiting player can take
the seat. No I/O, clock or randomness: the same inputs give the same tables, which is
what lets any process finish a round another began (``model``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

NOBODY: Mapping[str, Set[str]] = {}
"""No blocks between the players."""

SEARCH_BUDGET = 20_000
"""Steps the two-player Swiss search may take before it accepts repeat meetings (a
bound on the backtracking; every real field is paired far below it)."""


def byes_for(order: Sequence[str], seats: int, had_bye: Set[str]) -> list[str]:
    """The players who sit out this round: the ``len(order) % seats`` lowest in ``order``
    who have had no bye yet (if too few have not, the lowest of those who have). A bye
    scores as a win (``standings.BYE_POINTS``)."""
    count = len(order) % seats
    if not count:
        return []
    fresh = [p for p in reversed(order) if p not in had_bye]
    again = [p for p in reversed(order) if p in had_bye]
    return (fresh + again)[:count]


def _pairs(players: list[str], met: Mapping[str, Set[str]], budget: list[int]
           ) -> list[tuple[str, str]] | None:
    """Pairs of ``players`` (best first) with nobody meeting again, each player paired
    with the best-placed partner that still lets the rest be paired; ``None`` when there is
    none (or the budget ran out)."""
    if not players:
        return []
    top, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if other in met.get(top, ()):
            continue
        tail = _pairs(rest[:i] + rest[i + 1:], met, budget)
        if tail is not None:
            return [(top, other), *tail]
    return None


def _either(avoid: Mapping[str, Set[str]], p: str, q: str) -> bool:
    """True when ``p`` and ``q`` are to be kept apart (either blocked the other)."""
    return q in avoid.get(p, ()) or p in avoid.get(q, ())


def _joined(met: Mapping[str, Set[str]], avoid: Mapping[str, Set[str]]
            ) -> dict[str, set[str]]:
    """Met or blocked, both ways round: the pairs a first Swiss search avoids."""
    out: dict[str, set[str]] = {p: set(q) for p, q in met.items()}
    for p, others in avoid.items():
        for q in others:
            out.setdefault(p, set()).add(q)
            out.setdefault(q, set()).add(p)
    return out


def swiss_tables(order: Sequence[str], met: Mapping[str, Set[str]], seats: int,
                 had_bye: Set[str] = frozenset(),
                 avoid: Mapping[str, Set[str]] = NOBODY) -> tuple[list[list[str]], list[str]]:
    """One Swiss round: ``(tables, byes)``. Each table lists ``seats`` players, best
    first. Rule: byes first (``byes_for``); then, for two seats, pairs by score order with
    no repeat meeting and no blocked pair (``avoid``) where any pairing allows that
    (backtracking, the top player with the best partner possible), else with no blocked
    pair but repeat meetings, else plain neighbours in order; for 3-5 seats, tables filled
    from the top of the order (score groups), each seat taken by the best-placed remaining
    player who is blocked by or blocked the fewest of those already at the table, then
    has met the fewest of them."""
    if seats < 2:
        raise ValueError("a table has at least two seats")
    byes = byes_for(order, seats, had_bye)
    playing = [p for p in order if p not in byes]
    if seats == 2:
        pairs = _pairs(playing, _joined(met, avoid), [SEARCH_BUDGET])
        if pairs is None and avoid:
            pairs = _pairs(playing, _joined({}, avoid), [SEARCH_BUDGET])
        if pairs is None:
            pairs = [(playing[i], playing[i + 1]) for i in range(0, len(playing), 2)]
        return [list(p) for p in pairs], byes
    return groups(playing, met, seats, avoid), byes


def groups(order: Sequence[str], met: Mapping[str, Set[str]], seats: int,
           avoid: Mapping[str, Set[str]] = NOBODY) -> list[list[str]]:
    """Tables of ``seats`` from ``order`` (its length a multiple of ``seats``): the table's
    first seat is the best remaining player, each next one the best-placed of the next
    ``2 × seats`` remaining who is kept apart (``avoid``) from the fewest of those seated
    there, then has met the fewest of them."""
    left = list(order)
    out: list[list[str]] = []
    while left:
        table = [left.pop(0)]
        while len(table) < seats:
            window = left[:2 * seats]
            pick = min(window, key=lambda p: (sum(1 for q in table if _either(avoid, p, q)),
                                              sum(1 for q in table if q in met.get(p, ())),
                                              left.index(p)))
            left.remove(pick)
            table.append(pick)
        out.append(table)
    return out


def arena_tables(waiting: Sequence[str], order: Sequence[str],
                 last: Mapping[str, Set[str]], seats: int,
                 avoid: Mapping[str, Set[str]] = NOBODY) -> list[list[str]]:
    """Arena: tables of ``seats`` among the ``waiting`` players (those not at a table),
    nearest in the standings ``order`` first; a player is not seated with one it blocked
    or was blocked by (``avoid``) when another waiting player could take that seat, and
    then not with those of its last game (``last``) when another could. Players left
    over (fewer than ``seats``) keep waiting for the next finisher."""
    rank = {p: i for i, p in enumerate(order)}
    pool = sorted(waiting, key=lambda p: rank.get(p, len(rank)))
    out: list[list[str]] = []
    while len(pool) >= seats:
        table = [pool.pop(0)]
        while len(table) < seats:
            apart = [p for p in pool if not any(_either(avoid, p, q) for q in table)]
            fresh = [p for p in apart if not any(_either(last, p, q) for q in table)]
            pick = (fresh or apart or pool)[0]
            pool.remove(pick)
            table.append(pick)
        out.append(table)
    return out
