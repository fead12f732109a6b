"""Time controls and the move clock: pure arithmetic on epoch milliseconds.

A table's time control is chosen when it is created (docs/protocol.md "Time control"):

- ``none``: no clock (friends' tables: private ones only, ``for_table``); a seat away
  longer than 60 s may be claimed.
- ``live``: every decision a seat must make gets ``per_move`` seconds; time beyond that
  drains the seat's ``reserve`` (a time bank, as on Board Game Arena). When both are used
  up the move's time has run out. Presets ``fast`` (15 s + 60 s), ``normal`` (30 s +
  3 min), ``slow`` (60 s + 10 min).
- ``async``: ``days`` (1, 2 or 3) per decision and no reserve (as on yucata.de).

The clock state (``Clock``) is stored with the table's event stream (the entry field
``c`` of the last entry of every append), so every process, and a restarted service,
folds the same deadlines. Units: milliseconds since the epoch, as the server's clock
(``Service.now``) tells them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

SECOND = 1000
DAY = 86_400 * SECOND

PRESETS: dict[str, tuple[int, int, int]] = {
    "fast": (15 * SECOND, 60 * SECOND, 20 * SECOND),
    "normal": (30 * SECOND, 180 * SECOND, 30 * SECOND),
    "slow": (60 * SECOND, 600 * SECOND, 60 * SECOND),
}
"""Live presets: (per move, reserve, away time before another player may claim the seat)."""

DAYS = (1, 2, 3)
NONE_CLAIM_AFTER = 60 * SECOND
ASYNC_CLAIM_AFTER = DAY


@dataclass(frozen=True)
class TimeControl:
    """A table's time control; ``per_move``/``reserve``/``claim_after`` in ms (0: none)."""

    kind: str = "none"
    preset: str | None = None
    days: int | None = None
    per_move: int = 0
    reserve: int = 0
    claim_after: int = NONE_CLAIM_AFTER

    @property
    def clocked(self) -> bool:
        """True when moves have a deadline."""
        return self.kind != "none"

    def to_dict(self) -> dict[str, Any]:
        """The public form (table summary ``time_control``; times in ms)."""
        out: dict[str, Any] = {"kind": self.kind, "per_move": self.per_move,
                               "reserve": self.reserve, "claim_after": self.claim_after}
        if self.preset is not None:
            out["preset"] = self.preset
        if self.days is not None:
            out["days"] = self.days
        return out


def parse(data: Mapping[str, Any] | None) -> TimeControl:
    """A time control from ``{"kind": "none"}``, ``{"kind": "live", "preset": …}`` or
    ``{"kind": "async", "days": 1|2|3}`` (``None``: ``none``). Raises ``ValueError``."""
    if not data:
        return TimeControl()
    kind = data.get("kind", "none")
    extra = set(data) - {"kind", "preset", "days", "per_move", "reserve", "claim_after"}
    if extra:
        raise ValueError(f"time_control: unexpected field(s) {sorted(extra)}")
    if kind == "none":
        return TimeControl()
    if kind == "live":
        preset = data.get("preset", "normal")
        if preset not in PRESETS:
            raise ValueError(f"time_control.preset must be one of {sorted(PRESETS)}")
        per_move, reserve, claim = PRESETS[preset]
        return TimeControl("live", preset=preset, per_move=per_move, reserve=reserve,
                           claim_after=claim)
    if kind == "async":
        days = data.get("days", 1)
        if days not in DAYS or isinstance(days, bool):
            raise ValueError(f"time_control.days must be one of {list(DAYS)}")
        return TimeControl("async", days=days, per_move=days * DAY, claim_after=ASYNC_CLAIM_AFTER)
    raise ValueError("time_control.kind must be none, live or async")


PUBLIC_DEFAULT: dict[str, Any] = {"kind": "live", "preset": "normal"}
"""The time control a public table gets when none (or ``none``) was chosen."""


def for_table(data: Mapping[str, Any] | None, private: bool) -> dict[str, Any]:
    """The time control a new table gets (the stored form ``parse`` reads): ``data`` as
    given, except that a table without a clock is for friends: only a private table
    (reached through its invite link) may have none; a public one gets
    ``PUBLIC_DEFAULT`` instead, because a stranger who stays connected and never moves
    would stall an untimed table forever (a claim answers ``not_away`` while the seat's
    player is there). Raises ``ValueError`` as ``parse``."""
    if private or parse(data).clocked:
        return dict(data or {})
    return dict(PUBLIC_DEFAULT)


@dataclass
class Clock:
    """The clock of a running table: when the current decision began (``turn_at``), each
    seat's ``reserve`` left and its ``timeouts`` in a row (ms, counts; one per seat)."""

    turn_at: int
    reserve: list[int]
    timeouts: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The stored form (entry field ``c``)."""
        return {"turn_at": self.turn_at, "reserve": list(self.reserve),
                "timeouts": list(self.timeouts)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Clock:
        """Parse the stored form; raises ``KeyError``/``TypeError`` for another shape."""
        return cls(int(d["turn_at"]), [int(r) for r in d["reserve"]],
                   [int(t) for t in d.get("timeouts") or [0] * len(d["reserve"])])


def start(tc: TimeControl, seats: int, now: int) -> Clock:
    """The clock at the start of the game: every seat's full reserve, the first decision
    beginning ``now``."""
    return Clock(now, [tc.reserve] * seats, [0] * seats)


def deadline(tc: TimeControl, clock: Clock, seat: int) -> int | None:
    """When ``seat``'s current decision runs out (ms), or ``None`` without a clock."""
    if not tc.clocked:
        return None
    return clock.turn_at + tc.per_move + clock.reserve[seat]


def next_deadline(tc: TimeControl, clock: Clock | None,
                  seats: Iterable[int]) -> tuple[int, int] | None:
    """The earliest ``(deadline, seat)`` among ``seats`` (those to move and played by a
    person), or ``None``."""
    if clock is None or not tc.clocked:
        return None
    found = [(deadline(tc, clock, s), s) for s in seats]
    return min(found) if found else None  # type: ignore[return-value]


def moved(tc: TimeControl, clock: Clock, seat: int, now: int, timed_out: bool = False,
          by_bot: bool = False) -> Clock:
    """The clock after ``seat`` made a decision at ``now``: time beyond ``per_move``
    comes off its reserve (never below 0); the next decision begins ``now``. A timeout
    counts one more in a row; a move of the seat's player resets the count; a bot's move
    for a seat its bot plays leaves it."""
    reserve = list(clock.reserve)
    timeouts = list(clock.timeouts)
    if tc.clocked and not by_bot:
        over = max(0, now - clock.turn_at - tc.per_move)
        reserve[seat] = max(0, reserve[seat] - over)
    if timed_out:
        reserve[seat] = 0
        timeouts[seat] += 1
    elif not by_bot:
        timeouts[seat] = 0
    return Clock(now, reserve, timeouts)


def returned(clock: Clock, seat: int) -> Clock:
    """The clock after ``seat``'s player took the seat back from its bot: the count of
    timeouts in a row starts again (the decision under way and the reserve are kept)."""
    timeouts = list(clock.timeouts)
    timeouts[seat] = 0
    return Clock(clock.turn_at, list(clock.reserve), timeouts)


def left(tc: TimeControl, clock: Clock, seat: int, now: int) -> tuple[int, int]:
    """``(move time left, reserve left)`` of ``seat``'s current decision at ``now`` (ms,
    never negative): what a clock face shows."""
    used = max(0, now - clock.turn_at)
    move = max(0, tc.per_move - used)
    reserve = max(0, clock.reserve[seat] - max(0, used - tc.per_move))
    return move, reserve
