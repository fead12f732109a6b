"""The pairing decision, pure: which waiting seeks sit down together now.

No Redis, clock or asyncio here: the shell (server/pairing/pool.py) reads the pool, passes
the time in and commits each decided group with one atomic claim (a group whose seeks
changed meanwhile is refused there and decided again at the next pass).

The rules (docs/protocol.md §7, "Who is paired with whom"):

- Seeks fit only with the same game (a pool per game), number of ``seats``, time control
  and ``rated``.
- Rated seeks fit when the spread of their ratings (highest minus lowest) is within the
  window of every one of them. A seek's window is ``base + growth × seconds waited``,
  at most ``cap`` rating points: the longer it waits, the wider it looks.
- Two seeks whose accounts blocked one another (either way) never share a table: a
  seek carries its ``account`` and the accounts it ``avoid``s (those it blocked and those
  that blocked it, read from the store at each pass).
- The oldest waiting seek is served first; its partners are the fitting seeks nearest to
  its rating (casual: the oldest ones), taken one by one while the group still fits.
- A group is formed when it fills the table, or when one of its seekers asked for bots
  (``bots_after`` seconds) and has waited that long: then bots take the empty seats.
  Without that, a seek waits (a 3–5 seat game waits for enough seekers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Window:
    """The rating window (rating points as shown, ``ratings.display``): ``base`` at the
    start, ``growth`` more per second waited, never more than ``cap``."""

    base: float = 100.0
    growth: float = 10.0
    cap: float = 1000.0

    def at(self, waited_ms: int) -> float:
        """The window after ``waited_ms`` milliseconds of waiting (negative: none yet)."""
        return min(self.cap, self.base + self.growth * max(waited_ms, 0) / 1000.0)


@dataclass(frozen=True)
class Seek:
    """One waiting seek as the decision sees it. ``created``: ms (the service's clock);
    ``time_control``: its canonical JSON (equal strings: the same clock); ``rating``: the
    seeker's shown rating for the game (only used when ``rated``); ``bots_after``: seconds
    after ``created`` from which bots may fill the empty seats (``None``: never);
    ``account``: the seeker's account (``None``: a guest); ``avoid``: the accounts it may
    not sit with (blocked by it or blocking it)."""

    id: str
    seats: int
    time_control: str
    rated: bool
    created: int
    rating: int = 0
    bots_after: int | None = None
    account: str | None = None
    avoid: frozenset[str] = frozenset()

    @property
    def kind(self) -> tuple[int, str, bool]:
        """What must be equal for two seeks to share a table."""
        return self.seats, self.time_control, self.rated

    def bots_due(self, now: int) -> bool:
        """True once this seeker's wait for bots is over."""
        return self.bots_after is not None and now - self.created >= self.bots_after * 1000


@dataclass(frozen=True)
class Group:
    """Seeks to seat at one new table, in seat order, and ``bots`` more seats for bots."""

    seeks: tuple[Seek, ...]
    bots: int

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.seeks)


def blocked(a: Seek, b: Seek) -> bool:
    """True when the seekers of ``a`` and ``b`` may not share a table: one's account is
    among the other's ``avoid`` (checked both ways: each side's list comes from its own
    read of the store)."""
    return ((a.account is not None and a.account in b.avoid)
            or (b.account is not None and b.account in a.avoid))


def fits(group: Sequence[Seek], now: int, window: Window) -> bool:
    """True when ``group`` may share a table: one kind, no two seekers that blocked one
    another, and (rated) a rating spread within each member's window at ``now``."""
    if not group:
        return False
    if any(s.kind != group[0].kind for s in group):
        return False
    if len(group) > group[0].seats:
        return False
    if any(blocked(a, b) for i, a in enumerate(group) for b in group[i + 1:]):
        return False
    if not group[0].rated:
        return True
    ratings = [s.rating for s in group]
    spread = max(ratings) - min(ratings)
    return all(spread <= window.at(now - s.created) for s in group)


def decide(seeks: Iterable[Seek], now: int, window: Window) -> list[Group]:
    """The groups to seat now, each seek in at most one, oldest seeks served first (ties:
    by id, so every process decides the same). Seeks in no group keep waiting."""
    waiting = sorted(seeks, key=lambda s: (s.created, s.id))
    used: set[str] = set()
    groups: list[Group] = []
    for first in waiting:
        if first.id in used:
            continue
        group = [first]
        others = [s for s in waiting if s.id not in used and s.id != first.id
                  and s.kind == first.kind]
        if first.rated:
            others.sort(key=lambda s: (abs(s.rating - first.rating), s.created, s.id))
        for other in others:
            if len(group) == first.seats:
                break
            if fits([*group, other], now, window):
                group.append(other)
        if len(group) == first.seats or any(s.bots_due(now) for s in group):
            groups.append(Group(tuple(group), first.seats - len(group)))
            used.update(s.id for s in group)
    return groups
