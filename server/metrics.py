"""Prometheus metrics of one server process (``GET /metrics``).

Labels never carry a table id, token, seed or card: only fixed words.
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_left
from collections.abc import Iterator, Sequence

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample
from prometheus_client.utils import INF, floatToGoString


class LoopCount:
    """One series of a ``LoopCounter``: a plain number, no lock."""

    __slots__ = ("created", "value")

    def __init__(self) -> None:
        self.value = 0.0
        self.created = time.time()

    def inc(self, amount: float = 1) -> None:
        """Add ``amount`` (not checked: the hot path's callers pass counts >= 0)."""
        self.value += amount


class LoopCounter(Collector):
    """A counter of the per-action path, updated by the event loop's thread only: an
    ``inc`` is one addition to a float (prometheus_client's ``Counter`` takes a lock and
    checks its argument: about five calls). Scraping reads the numbers as they are
    (``collect``), with the same name, help, labels, values and ``_created`` series as a
    ``prometheus_client.Counter`` of the same arguments would show
    (tests/server/test_metrics.py compares them). Not for updates from other threads:
    ``+=`` on an attribute is not atomic."""

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str] = (),
                 registry: CollectorRegistry | None = REGISTRY) -> None:
        self.name = name.removesuffix("_total")
        self.documentation = documentation
        self.labelnames = tuple(labelnames)
        self.series: dict[tuple[str, ...], LoopCount] = {}
        self._only = None if self.labelnames else self.labels()
        if registry is not None:
            registry.register(self)

    def labels(self, *values: str) -> LoopCount:
        """The series of these label values (made at its first use, as prometheus_client
        does; look it up once outside the hot path)."""
        if len(values) != len(self.labelnames):
            raise ValueError(f"{self.name}: labels {self.labelnames}, got {values}")
        series = self.series.get(values)
        if series is None:
            series = self.series[values] = LoopCount()
        return series

    def inc(self, amount: float = 1) -> None:
        """``inc`` of the one series of a counter without labels."""
        assert self._only is not None, f"{self.name} has labels"
        self._only.value += amount

    def describe(self) -> list[Metric]:
        return [CounterMetricFamily(self.name, self.documentation, labels=self.labelnames)]

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for values, series in list(self.series.items()):
            family.add_metric(values, series.value, created=series.created)
        yield family


class LoopHistogram(Collector):
    """A histogram without labels of the per-action path, updated by the event loop's
    thread only: an ``observe`` is one bisection and two additions (prometheus_client's
    ``Histogram`` takes two locks and walks the buckets: about seven calls). Scraping
    shows the same series as a ``prometheus_client.Histogram`` of the same arguments
    (cumulative ``le`` buckets with ``+Inf``, ``_count``, ``_sum``, ``_created``). Not for
    updates from other threads."""

    def __init__(self, name: str, documentation: str, buckets: Sequence[float],
                 registry: CollectorRegistry | None = REGISTRY) -> None:
        bounds = [float(b) for b in buckets]
        if bounds != sorted(bounds):
            raise ValueError("buckets not in sorted order")
        if bounds[-1] != INF:
            bounds.append(INF)
        self.name = name
        self.documentation = documentation
        self.bounds = tuple(bounds)
        self.counts = [0] * len(bounds)
        """Observations per bucket (not cumulative): ``counts[i]`` those in
        ``(bounds[i-1], bounds[i]]``."""
        self.sum = 0.0
        self.created = time.time()
        if registry is not None:
            registry.register(self)

    def observe(self, amount: float) -> None:
        """Count ``amount`` in the first bucket whose bound is >= it."""
        self.counts[bisect_left(self.bounds, amount)] += 1
        self.sum += amount

    def describe(self) -> list[Metric]:
        return [HistogramMetricFamily(self.name, self.documentation)]

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self.name, self.documentation)
        total, buckets = 0.0, []
        for bound, n in zip(self.bounds, list(self.counts), strict=True):
            total += n
            buckets.append((floatToGoString(bound), total))  # type: ignore[no-untyped-call]
        family.add_metric([], buckets, self.sum)
        family.samples.append(Sample(self.name + "_created", {}, self.created))
        yield family

TABLES = Gauge("cardtable_tables_cached", "Tables held in this process's cache")
SOCKETS = Gauge("cardtable_sockets", "Open websockets that receive deltas")
ACTIONS = LoopCounter("cardtable_actions_total", "Actions handled", ["result"])
ACCEPTED = ACTIONS.labels("accepted")
"""The ``accepted`` series, looked up once."""
BOT_MOVES = Counter("cardtable_bot_moves_total",
                    "Bot moves this process decided (searched), whether stored or not")
ACTION_LATENCY = LoopHistogram(
    "cardtable_action_latency_seconds", "Action received to ack sent (validated and stored)",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
DELIVERIES = LoopCounter("cardtable_deliveries_total", "Delta frames queued to sockets")
DIRECT_WRITES = LoopCounter("cardtable_deliveries_direct_total",
                        "Delta frames written at once as prepared frames "
                        "(server/fanout/frames.py); "
                        "the rest waited in a socket's queue")
FANOUT = LoopHistogram(
    "cardtable_fanout_seconds",
    "One delta, from its arrival in the table's room until it was written or queued to "
    "every local socket of the table (players first, then spectators)",
    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.06,
             0.1, 0.25, 1.0))
TOURNAMENT_ROUNDS = Counter("cardtable_tournament_rounds_total",
                            "Tournament rounds (Swiss) and arena waves this process claimed "
                            "and planned (each is claimed by one process only)", ["kind"])
TOURNAMENT_TABLES = Counter("cardtable_tournament_tables_total",
                            "Tournament tables this process created (the rest of a plan "
                            "another process had created already)")
TOURNAMENT_RESULTS = Counter("cardtable_tournament_results_total",
                             "Tournament boards whose result this process recorded")
TOURNAMENT_WATCHERS = Gauge("cardtable_tournament_sockets",
                            "Open websockets that follow a tournament's standings")
REDIS_ERRORS = Counter("cardtable_redis_errors_total", "Redis commands that failed")
UNREPLICATED = Counter("cardtable_redis_unreplicated_total",
                       "Writes acknowledged with fewer replicas than CARDTABLE_REDIS_WAIT "
                       "because their master had fewer connected (after a failover)")
REJECTED_SOCKETS = Counter("cardtable_sockets_rejected_total", "Sockets closed by a policy",
                           ["reason"])
REBUILDS = Counter("cardtable_tables_rebuilt_total",
                   "Cached tables rebuilt from Redis because the stored stream was not the "
                   "cached one (Redis lost acknowledged writes); their sockets got a welcome")
VANISHED = Counter("cardtable_tables_vanished_total",
                   "Watched tables that were no longer in Redis; their sockets were closed "
                   "with 4004 and their bots stopped")
REPLAYS = Counter("cardtable_replays_total",
                  "Replay answers (POST /api/replay, GET /api/tables/{id}/deltas) by how they "
                  "were served: computed, from the cache, or refused for the rate",
                  ["result"])
ANALYSES = Counter("cardtable_analyses_total",
                   "Post-game analysis answers (GET /api/tables/{id}/analysis) by how they were "
                   "served: computed in the pool, or from the Redis cache", ["result"])
HTTP_REQUESTS = Counter("cardtable_http_requests_total",
                        "HTTP requests answered, by method, route (the path template, "
                        "'unmatched' for none) and status", ["method", "route", "status"])
HTTP_SECONDS = Histogram(
    "cardtable_http_request_seconds",
    "HTTP request received to response finished, by route (the path template)", ["route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))
LOGINS = Counter("cardtable_logins_total",
                 "Logins (password, passkey) by result: ok, failed (wrong name, password or "
                 "passkey), locked_out (refused for too many failures)", ["result"])
LOCKOUTS = Counter("cardtable_lockouts_total",
                   "Lockouts begun: a failed login that reached the failures allowed in the "
                   "window, for an address or for a name from an address", ["scope"])
SIGNUPS = Counter("cardtable_signups_total", "Accounts created")
MAILS = Counter("cardtable_mails_total",
                "Mails handed to the SMTP server (sent) or not (failed: refused, "
                "unreachable, or not buildable)", ["result"])
MAILS_SENT = MAILS.labels("sent")
MAILS_FAILED = MAILS.labels("failed")

DEADLINE_SCANS = Counter("cardtable_deadline_scans_total",
                         "Scans of the deadline index done by this process (each read the "
                         "due tables at the servers' time and started their enforcement)")

SEEKS = Counter("cardtable_seeks_total",
                "Seeks (quick pairing) by what happened to them on this process: created, "
                "paired, cancelled, expired", ["event"])
SEEK_PAIRINGS = Counter("cardtable_seek_pairings_total",
                        "Tables this process seated seeks at: full (only seekers), bots "
                        "(empty seats filled with bots), recovered (a pairing another "
                        "process claimed and did not finish)", ["kind"])
SEEK_POOL = Gauge("cardtable_seek_pool", "Waiting seeks per game at this process's last "
                  "look at the pool", ["game"])
SEEK_WAIT = Histogram("cardtable_seek_wait_seconds", "A seek's wait from its creation to "
                      "its pairing (the service's clock)",
                      buckets=(0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600))

_LOOP_BUCKETS = (0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.02, 0.05, 0.1, 0.25,
                 0.5, 1.0)
EVENT_LOOP_LAG = Histogram(
    "cardtable_event_loop_lag_seconds",
    "How late a 10 ms sleep of the event loop woke up (loop busy, GIL taken, or CPU starved)",
    buckets=_LOOP_BUCKETS)
EVENT_LOOP_LAG_MAX = Gauge("cardtable_event_loop_lag_max_seconds",
                           "Largest event loop lag seen since the process started")
EVENT_LOOP_BUSY = Histogram(
    "cardtable_event_loop_busy_seconds",
    "CPU time the event loop's thread used during one lag sample (its own work only)",
    buckets=_LOOP_BUCKETS)
EVENT_LOOP_BUSY_MAX = Gauge("cardtable_event_loop_busy_max_seconds",
                            "Largest event loop CPU time in one lag sample since the start")

LAG_INTERVAL = 0.01
"""Seconds the lag monitor sleeps between samples."""


async def watch_event_loop(interval: float = LAG_INTERVAL) -> None:
    """Sample the event loop until cancelled: sleep ``interval`` seconds, then record how
    late it woke (seconds of wall time) in ``EVENT_LOOP_LAG`` and the CPU time the loop's
    thread used meanwhile in ``EVENT_LOOP_BUSY`` (maxima in the ``_MAX`` gauges).

    Lag is what every socket of the process waits: a callback that does not yield, the
    GIL held by another thread, or a CPU the process did not get (a busy machine). Busy
    is the loop's own work: the monitor cannot run during a callback, so each callback
    lies within one sample, and the largest busy sample bounds the CPU time of the
    longest callback from above, whatever else runs on the machine."""
    worst_lag = worst_busy = 0.0
    while True:
        before, cpu = time.perf_counter(), time.thread_time()
        await asyncio.sleep(interval)
        lag = max(time.perf_counter() - before - interval, 0.0)
        busy = time.thread_time() - cpu
        EVENT_LOOP_LAG.observe(lag)
        EVENT_LOOP_BUSY.observe(busy)
        if lag > worst_lag:
            worst_lag = lag
            EVENT_LOOP_LAG_MAX.set(lag)
        if busy > worst_busy:
            worst_busy = busy
            EVENT_LOOP_BUSY_MAX.set(busy)


INBOX_SOCKETS = Gauge("cardtable_inbox_sockets",
                      "Open /ws/me sockets (an account's notifications in any page)")
INVITATIONS = Counter("cardtable_invitations_total", "Invitations by name sent")


def render() -> tuple[bytes, str]:
    """The metrics text and its content type."""
    return generate_latest(), CONTENT_TYPE_LATEST
