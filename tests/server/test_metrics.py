"""The per-action metrics (server/metrics.py ``LoopCounter``, ``LoopHistogram``) show
exactly what prometheus_client's own ``Counter`` and ``Histogram`` of the same arguments
show for the same updates: names, help, types, labels, buckets, values and ``_created``."""

from __future__ import annotations

import random
import re

from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from server import metrics
from server.metrics import LoopCounter, LoopHistogram

BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
CREATED = re.compile(rb"^(\S+_created(?:\{[^}]*\})?) \S+$", re.M)


def _exposition(registry: CollectorRegistry) -> bytes:
    """The text exposition with every ``_created`` value replaced (the two sides made
    their series at different instants)."""
    return CREATED.sub(rb"\1 T", generate_latest(registry))


def _pair() -> tuple[CollectorRegistry, CollectorRegistry, list, list]:
    stock, loop = CollectorRegistry(), CollectorRegistry()
    ours = [LoopCounter("x_actions_total", "Actions handled", ["result"], registry=loop),
            LoopCounter("x_deliveries_total", "Delta frames\nqueued", registry=loop),
            LoopHistogram("x_latency_seconds", "Latency", BUCKETS, registry=loop)]
    theirs = [Counter("x_actions_total", "Actions handled", ["result"], registry=stock),
              Counter("x_deliveries_total", "Delta frames\nqueued", registry=stock),
              Histogram("x_latency_seconds", "Latency", buckets=BUCKETS, registry=stock)]
    return stock, loop, ours, theirs


@given(st.lists(st.tuples(st.sampled_from(["accepted", "refused", "failed"]),
                          st.integers(0, 7),
                          st.one_of(st.sampled_from([0.0, *BUCKETS, 3.0]),
                                    st.floats(0, 5, allow_nan=False))),
                max_size=40))
def test_the_loop_metrics_expose_what_prometheus_client_would(updates):
    stock, loop, ours, theirs = _pair()
    for result, n, seconds in updates:
        for side in (ours, theirs):
            side[0].labels(result).inc()
            side[1].inc(n)
            side[2].observe(seconds)
    assert _exposition(loop) == _exposition(stock)


def test_the_exposition_differs_when_a_count_differs():
    # The comparison above can fail: one update more on one side shows.
    stock, loop, ours, theirs = _pair()
    ours[2].observe(0.003)
    assert _exposition(loop) != _exposition(stock)
    theirs[2].observe(0.003)
    assert _exposition(loop) == _exposition(stock)
    ours[0].labels("accepted").inc()
    assert _exposition(loop) != _exposition(stock)


def test_created_is_when_the_series_was_made():
    loop = CollectorRegistry()
    counter = LoopCounter("y_total", "Y", ["result"], registry=loop)
    counter.labels("accepted").inc(random.Random(1).randint(1, 9))
    text = generate_latest(loop).decode()
    created = float(re.search(r'^y_created\{result="accepted"\} (\S+)$', text, re.M)[1])
    assert created == counter.labels("accepted").created


def test_the_service_metrics_are_registered_once_with_their_names():
    text = metrics.render()[0].decode()
    for name in ("cardtable_actions_total", "cardtable_deliveries_total",
                 "cardtable_deliveries_direct_total", "cardtable_action_latency_seconds",
                 "cardtable_fanout_seconds"):
        assert text.count(f"# TYPE {name} ") == 1, name
    assert 'cardtable_action_latency_seconds_bucket{le="+Inf"}' in text
