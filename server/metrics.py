"""Prometheus metrics of one server process (``GET /metrics``).

Labels never carry a table id, token, seed or card: only fixed words.
"""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

TABLES = Gauge("einauge_tables_cached", "Tables held in this process's cache")
SOCKETS = Gauge("einauge_sockets", "Open websockets that receive deltas")
ACTIONS = Counter("einauge_actions_total", "Actions handled", ["result"])
ACTION_LATENCY = Histogram(
    "einauge_action_latency_seconds", "Action received to ack sent (validated and stored)",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
DELIVERIES = Counter("einauge_deliveries_total", "Delta frames queued to sockets")
REDIS_ERRORS = Counter("einauge_redis_errors_total", "Redis commands that failed")
REJECTED_SOCKETS = Counter("einauge_sockets_rejected_total", "Sockets closed by a policy",
                           ["reason"])


def render() -> tuple[bytes, str]:
    """The metrics text and its content type."""
    return generate_latest(), CONTENT_TYPE_LATEST
