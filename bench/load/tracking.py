"""The generator's bookkeeping, shared by every table of a run: nothing here does I/O.

- ``percentile`` and ``summarize_ns``: nearest-rank quantiles of nanosecond samples;
- ``SeqTracker``: one socket's ``deltas`` stream checked for gaps and duplicates;
- ``DeliveryClock``: one table's delta receipts matched to the action that caused them;
- ``Stats``: the counters and latency arrays of a run (only its ``recording`` time counts).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


def percentile(sorted_values: Sequence[int] | array, q: float) -> int | None:
    """The nearest-rank ``q``-quantile (``0 < q <= 1``) of ascending ``sorted_values``.

    Nearest rank: the smallest value with at least ``q`` of the values at or below it, so
    p100 is the maximum and every reported figure is a latency that really occurred.
    ``None`` for no values. Raises ``ValueError`` for ``q`` outside ``(0, 1]``.
    """
    if not 0 < q <= 1:
        raise ValueError(f"quantile must be in (0, 1], got {q}")
    n = len(sorted_values)
    if n == 0:
        return None
    rank = -(-round(q * n * 1_000_000) // 1_000_000)  # ceil(q*n) without float drift
    return sorted_values[max(rank, 1) - 1]


def summarize_ns(values: Iterable[int]) -> dict[str, float | int | None]:
    """``{"n", "p50", "p95", "p99", "max"}`` of nanosecond samples, in milliseconds."""
    ordered = sorted(values)

    def ms(v: int | None) -> float | None:
        return None if v is None else round(v / 1e6, 3)

    return {
        "n": len(ordered),
        "p50": ms(percentile(ordered, 0.50)),
        "p95": ms(percentile(ordered, 0.95)),
        "p99": ms(percentile(ordered, 0.99)),
        "max": ms(ordered[-1] if ordered else None),
    }


class SeqTracker:
    """Checks one socket's stream of ``deltas`` frames: each must start where the one
    before ended (its ``prev`` is ``last``).

    ``last`` starts at the seq of the ``welcome``. A frame ending at or below ``last`` is
    a duplicate; one whose ``prev`` is not ``last`` follows a gap (counted once). After a
    gap the tracker follows the stream again from the new seq.
    """

    __slots__ = ("duplicates", "gaps", "last")

    def __init__(self, last: int = 0) -> None:
        self.last = last
        self.gaps = 0
        self.duplicates = 0

    def welcome(self, seq: int) -> None:
        """A (re)``welcome`` at ``seq``: deltas continue from ``seq + 1``."""
        self.last = seq

    def see(self, seq: int, prev: int | None = None) -> bool:
        """Record a frame ending at ``seq`` whose patch applies to ``prev`` (default
        ``seq - 1``: one event); returns False for a duplicate (True: new, in order or
        not)."""
        if seq <= self.last:
            self.duplicates += 1
            return False
        if (seq - 1 if prev is None else prev) != self.last:
            self.gaps += 1
        self.last = seq
        return True


class DeliveryClock:
    """Matches delta receipts on every socket of one table to the action that caused them.

    ``sent(seq, t)`` is called when an ack says the action sent at ``t`` (ns) brought the
    table to ``seq``; ``received(seq, t, spectator)`` for every delta receipt. A delta may
    arrive before its ack, so receipts above the last acked seq wait in ``pending`` until
    the ack comes; receipts of seqs no ack names (the other events of a multi-event action,
    the events of the start) are dropped. Latencies go to the shared ``players`` and
    ``spectators`` arrays (ns), only while ``stats.recording``. With ``spectators`` > 0,
    the latency of the latest of an action's ``spectators`` spectator receipts (the last
    spectator has it) goes to ``last_spectator`` once all of them came.
    """

    __slots__ = ("acked", "pending", "seen", "sent_at", "spectators", "stats")

    def __init__(self, stats: Stats, spectators: int = 0) -> None:
        self.stats = stats
        self.spectators = spectators
        self.sent_at: dict[int, int] = {}
        self.pending: dict[int, list[tuple[int, bool]]] = {}
        self.seen: dict[int, tuple[int, int]] = {}  # seq -> (spectator receipts, latest)
        self.acked = 0

    def sent(self, seq: int, t_send: int) -> None:
        """The ack of an action sent at ``t_send`` named ``seq``."""
        self.sent_at[seq] = t_send
        if seq > self.acked:
            self.acked = seq
        if self.pending:
            for s in [s for s in self.pending if s <= seq]:
                waiting = self.pending.pop(s)
                if s == seq:
                    for t_recv, spectator in waiting:
                        self._record(seq, t_recv - t_send, spectator)

    def received(self, seq: int, t_recv: int, spectator: bool) -> None:
        """A socket received the delta ``seq`` at ``t_recv``."""
        t_send = self.sent_at.get(seq)
        if t_send is not None:
            self._record(seq, t_recv - t_send, spectator)
        elif seq > self.acked:
            self.pending.setdefault(seq, []).append((t_recv, spectator))

    def _record(self, seq: int, latency: int, spectator: bool) -> None:
        if not self.stats.recording:
            return
        (self.stats.spectator_delivery if spectator else self.stats.player_delivery).append(
            latency
        )
        if spectator and self.spectators:
            n, latest = self.seen.pop(seq, (0, 0))
            n, latest = n + 1, max(latest, latency)
            if n == self.spectators:
                self.stats.last_spectator.append(latest)
            else:
                self.seen[seq] = (n, latest)


@dataclass
class Stats:
    """Counters shared by every table of a run; only ``recording`` time counts."""

    recording: bool = False
    action_latency: array = field(default_factory=lambda: array("q"))
    player_delivery: array = field(default_factory=lambda: array("q"))
    spectator_delivery: array = field(default_factory=lambda: array("q"))
    last_spectator: array = field(default_factory=lambda: array("q"))
    accepted: int = 0
    deliveries: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    gaps: int = 0
    duplicates: int = 0
    missing: int = 0
    tables_started: int = 0
    tables_ended: int = 0
    sockets_opened: int = 0
    accepted_by_table: dict[str, int] = field(default_factory=dict)

    def error(self, code: str) -> None:
        """Count one error (protocol or engine code, ``closed:<code>``, ``http:<status>``…)."""
        self.errors[code] = self.errors.get(code, 0) + 1
