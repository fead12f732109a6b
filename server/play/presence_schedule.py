"""When a process renews, reads again or recomputes each table's presence: the pure core
of server/play/attendance.py's timer.

Before issue 27 every process wrote its claims of every table it holds sockets of, read
the whole hash back and rebuilt the ``presence`` message once a second, whether anything
changed or not (about 300 µs of CPU per table and second: docs/benchmarks.md, "Presence
refresh (issue 27)"). Now, per table:

- its claims are **renewed** every ``renew_ms`` (``renew_period``: ``presence_ttl`` less
  two ticks, at least one tick), in the tick of the table's slot (``slot``: a hash of its
  id and the tick's number) so that the tables' renewals spread evenly over the ticks, or
  at the first tick after ``renew_ms`` when its slot's tick was missed (a renewal is then
  a tick late: the claims last two ticks longer than ``renew_ms``); a socket that comes or
  goes writes at once. A renewal writes only (one ``HSET``): it changes no state shown,
  and the last read hash is brought up to date with what it wrote; every ``READ_AFTER``
  ms a renewal reads the hash back too (and keeps it a day longer);
- the hash is **read again** at once when a claim or spectator count of another process
  lapses (``presence.next_changes``' ``lapse``): that process renewed it (renewals send no
  notice) or died;
- the seats' states are **recomputed** from the last read hash, without Redis, at the
  moment one turns away or gone (``turn``: exact, not at the next tick);
- a spectator count that changed (read after a notice) is shown at the next tick.

Every other change of a hash comes with a presence notice, which reads it at once.
Measured on an idle server with 200 tables × 4 sockets (bench/presence_cost.py): 285
Python calls per table and second before, 28 now; 510 Redis commands a second, 100 now.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from enum import Enum

READ_AFTER = 10_000
"""ms: a renewal reads the hash back when it was last read longer ago than this. Every
other process's change comes with a notice; a notice lost (the subscriber reconnecting)
is made good within this."""


class Need(Enum):
    """What a table's presence needs at a pass of the timer."""

    REFRESH = "refresh"  # write this process's claims, read the hash, show what changed
    RENEW = "renew"  # write this process's claims only (they change no state shown)
    SHOW = "show"  # recompute the message from the last read hash, show what changed


@dataclass
class TableSchedule:
    """One table's presence as this process last read it, and when it next needs work."""

    fields: dict[str, str] | None = None
    """The hash as last read (``None``: not read yet)."""
    read_at: int = 0
    """ms: when ``fields`` were read."""
    written: int | None = None
    """ms: when this process last wrote its claims of the table (``None``: never)."""
    lapse: int | None = None
    """ms: when another process's claim or count in ``fields`` lapses (``None``: none)."""
    turn: int | None = None
    """ms: when a seat in ``fields`` turns away or gone (``None``: none will)."""
    count_stale: bool = False
    """The spectator count in ``fields`` differs from the one shown (shown at a tick)."""
    slot: int = field(default=0)
    """The tick (modulo the ticks per renewal) in which its claims are renewed."""

    def read(self, fields: dict[str, str], now: int, wrote: bool,
             lapse: int | None, turn: int | None) -> None:
        """The hash was read at ``now`` (after this process wrote its claims: ``wrote``),
        next changing by time at ``lapse`` and ``turn`` (``presence.next_changes``)."""
        self.fields, self.read_at = fields, now
        if wrote:
            self.written = now
        self.lapse, self.turn = lapse, turn

    def need(self, now: int, periodic: bool, tick_ms: int, renew_ms: int) -> Need | None:
        """What the table needs at ``now`` (ms); ``periodic``: this pass is a tick (every
        ``tick_ms``), not a wake-up for a ``lapse`` or ``turn``."""
        return self.plan(now, periodic, tick_ms, renew_ms)[0]

    def plan(self, now: int, periodic: bool, tick_ms: int, renew_ms: int
             ) -> tuple[Need | None, int | None]:
        """``need`` and ``wake_at`` in one call (the timer asks both of every table at
        each pass: one call instead of four)."""
        lapse, turn = self.lapse, self.turn
        wake = lapse if lapse is not None and lapse > now else None
        if turn is not None and turn > now and (wake is None or turn < wake):
            wake = turn
        if self.fields is None or (lapse is not None and lapse <= now):
            return Need.REFRESH, wake
        if periodic and self._renewal_due(now, tick_ms, renew_ms):
            return (Need.REFRESH if now - self.read_at >= READ_AFTER else Need.RENEW), wake
        if (turn is not None and turn <= now) or (periodic and self.count_stale):
            return Need.SHOW, wake
        return None, wake

    def renewed(self, now: int, put: dict[str, str]) -> None:
        """This process wrote ``put`` at ``now`` without reading the hash back: ``fields``
        as Redis now has them (every other change came with a notice)."""
        if self.fields is not None:
            self.fields.update(put)
        self.written = now

    def _renewal_due(self, now: int, tick_ms: int, renew_ms: int) -> bool:
        if self.written is None or now - self.written >= renew_ms:  # overdue: a slot missed
            return True
        ticks = max(1, renew_ms // tick_ms)
        # Half a tick since the last write: the ticks' times jitter around their period.
        return (now - self.written >= tick_ms // 2
                and (now // tick_ms) % ticks == self.slot % ticks)

    def wake_at(self, now: int) -> int | None:
        """The earliest ``lapse`` or ``turn`` after ``now`` (ms), when the timer must wake
        for this table between its ticks; ``None``: none (a time not after ``now`` is
        left to the next tick: a failed read is not retried at once, in a loop)."""
        at = self.lapse if self.lapse is not None and self.lapse > now else None
        if self.turn is not None and self.turn > now and (at is None or self.turn < at):
            at = self.turn
        return at


def renew_period(ttl_ms: int, tick_ms: int) -> int:
    """ms between two renewals of a table's claims: ``ttl_ms`` less two ticks (a renewal
    a tick late, in a busy loop, still comes before the claim lapses), at least a tick."""
    return max(tick_ms, ttl_ms - 2 * tick_ms)


def slot(table_id: str) -> int:
    """The table's renewal slot (``TableSchedule.slot``): the same in every process."""
    return zlib.crc32(table_id.encode())
