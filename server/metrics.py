"""Prometheus metrics of one server process (``GET /metrics``).

Labels never carry a table id, token, seed or card: only fixed words.
"""

from __future__ import annotations

import asyncio
import time

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

TABLES = Gauge("cardtable_tables_cached", "Tables held in this process's cache")
SOCKETS = Gauge("cardtable_sockets", "Open websockets that receive deltas")
ACTIONS = Counter("cardtable_actions_total", "Actions handled", ["result"])
ACCEPTED = ACTIONS.labels("accepted")
"""The ``accepted`` child, looked up once: ``labels()`` costs about 2.5 µs per action."""
BOT_MOVES = Counter("cardtable_bot_moves_total",
                    "Bot moves this process decided (searched), whether stored or not")
ACTION_LATENCY = Histogram(
    "cardtable_action_latency_seconds", "Action received to ack sent (validated and stored)",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
DELIVERIES = Counter("cardtable_deliveries_total", "Delta frames queued to sockets")
DIRECT_WRITES = Counter("cardtable_deliveries_direct_total",
                        "Delta frames written at once as prepared frames "
                        "(server/fanout/frames.py); "
                        "the rest waited in a socket's queue")
FANOUT = Histogram(
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
