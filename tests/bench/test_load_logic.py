"""The load generator's bookkeeping: percentiles, gap/duplicate detection, latency matching,
Redis figures and the JSON result, without a server."""

from __future__ import annotations

import json
from array import array

import pytest

from bench.load.config import LoadConfig
from bench.load.redis_monitor import commandstats_delta, parse_monitor_line, redis_figures
from bench.load.run import format_report
from bench.load.tracking import DeliveryClock, SeqTracker, Stats, percentile, summarize_ns


def test_percentile_nearest_rank() -> None:
    values = list(range(1, 101))  # 1..100
    assert percentile(values, 0.5) == 50
    assert percentile(values, 0.95) == 95
    assert percentile(values, 0.99) == 99
    assert percentile(values, 1.0) == 100
    assert percentile([7], 0.5) == 7
    assert percentile([], 0.5) is None
    # 10 values: p99 is the 10th (ceil(9.9)), p50 the 5th
    assert percentile(list(range(10)), 0.99) == 9
    assert percentile(list(range(10)), 0.5) == 4
    with pytest.raises(ValueError):
        percentile(values, 0)
    with pytest.raises(ValueError):
        percentile(values, 1.5)


def test_percentile_works_on_arrays() -> None:
    assert percentile(array("q", [1, 2, 3, 4]), 0.5) == 2


def test_summarize_ns_in_milliseconds() -> None:
    s = summarize_ns([3_000_000, 1_000_000, 2_000_000, 10_000_000])
    assert s == {"n": 4, "p50": 2.0, "p95": 10.0, "p99": 10.0, "max": 10.0}
    assert summarize_ns([]) == {"n": 0, "p50": None, "p95": None, "p99": None, "max": None}


def test_seq_tracker_in_order() -> None:
    t = SeqTracker()
    t.welcome(3)
    assert all(t.see(s) for s in (4, 5, 6))
    assert (t.gaps, t.duplicates, t.last) == (0, 0, 6)


def test_seq_tracker_counts_duplicates_and_gaps() -> None:
    t = SeqTracker()
    t.welcome(0)
    assert t.see(1)
    assert not t.see(1)  # duplicate
    assert t.see(4)  # gap: 2 and 3 never came
    assert not t.see(3)  # late: counted as a duplicate (below last)
    assert t.see(5)
    assert (t.gaps, t.duplicates, t.last) == (1, 2, 5)


def test_seq_tracker_follows_frames_of_several_events() -> None:
    t = SeqTracker()
    t.welcome(3)
    assert t.see(6, prev=3)  # an action's events 4, 5, 6 in one frame
    assert t.see(7, prev=6)
    assert not t.see(7, prev=6)  # duplicate
    assert t.see(12, prev=9)  # gap: 8 and 9 never came
    assert (t.gaps, t.duplicates, t.last) == (1, 1, 12)


def test_seq_tracker_welcome_resets_the_base() -> None:
    t = SeqTracker()
    t.welcome(10)
    assert t.see(11)
    t.welcome(20)  # a sync: the next delta is 21
    assert t.see(21)
    assert (t.gaps, t.duplicates) == (0, 0)


def test_delivery_clock_matches_ack_seq_either_order() -> None:
    stats = Stats(recording=True)
    clock = DeliveryClock(stats)
    # start events (seq 1, 2) arrive before any ack: dropped once seq 4 is acked
    clock.received(1, 100, spectator=True)
    clock.received(2, 100, spectator=False)
    # action sent at t=1000 produced events 3 and 4; the delta of 4 arrives before the ack
    clock.received(3, 1500, spectator=False)
    clock.received(4, 1600, spectator=True)
    clock.sent(4, 1000)
    assert list(stats.spectator_delivery) == [600]
    assert list(stats.player_delivery) == []
    assert clock.pending == {}
    # the other sockets get seq 3 and 4 after the ack
    clock.received(3, 1700, spectator=False)  # not an ack seq: ignored
    clock.received(4, 1800, spectator=False)
    assert list(stats.player_delivery) == [800]


def test_delivery_clock_records_only_while_recording() -> None:
    stats = Stats(recording=False)
    clock = DeliveryClock(stats)
    clock.sent(5, 0)
    clock.received(5, 10, spectator=False)
    stats.recording = True
    clock.sent(6, 100)
    clock.received(6, 130, spectator=False)
    assert list(stats.player_delivery) == [30]


def test_delivery_clock_last_spectator_is_the_latest_of_all() -> None:
    stats = Stats(recording=True)
    clock = DeliveryClock(stats, spectators=3)
    clock.received(7, 1900, spectator=True)  # before the ack
    clock.sent(7, 1000)
    clock.received(7, 1300, spectator=True)
    clock.received(7, 1200, spectator=False)  # a player: not a spectator receipt
    assert list(stats.last_spectator) == []  # 2 of 3 spectators so far
    clock.received(7, 1500, spectator=True)
    assert list(stats.last_spectator) == [900]  # the receipt at 1900, not the last one seen
    assert clock.seen == {}


def test_commandstats_delta_and_redis_figures() -> None:
    before = {"evalsha": 10, "get": 5, "hgetall": 2}
    after = {"evalsha": 110, "get": 5, "hgetall": 4, "spublish": 100, "rpush": 100}
    delta = commandstats_delta(before, after)
    assert delta == {"evalsha": 100, "hgetall": 2, "rpush": 100, "spublish": 100}
    fig = redis_figures(delta, accepted=100)
    assert fig["script_calls"] == 100
    assert fig["script_calls_per_action"] == 1.0
    assert fig["commands_per_action"] == 3.02
    assert redis_figures(delta, accepted=0)["commands_per_action"] is None


def test_parse_monitor_line() -> None:
    assert parse_monitor_line(
        '1701290000.123456 [0 127.0.0.1:50000] "EVALSHA" "ab12" "4" "t:{x}:meta"') == (
        "client", "evalsha")
    assert parse_monitor_line('1701290000.123457 [0 lua] "HGET" "t:{x}:meta" "seq"') == (
        "lua", "hget")
    assert parse_monitor_line('1701290000.1 [0 unix:/tmp/r.sock] "ping"') == ("client", "ping")
    assert parse_monitor_line("OK") is None
    assert parse_monitor_line("") is None


def test_source_addresses_rotate() -> None:
    assert LoadConfig(sources=1).source_for(5) is None
    cfg = LoadConfig(sources=3)
    assert [cfg.source_for(i) for i in range(4)] == ["127.0.0.1", "127.0.0.2", "127.0.0.3",
                                                     "127.0.0.1"]


def test_report_and_json_result() -> None:
    result = {
        "config": {"tables": 2, "players": 4, "spectators": 1, "rate": 1.0},
        "window_s": 2.0, "setup_s": 0.1, "accepted_actions": 4, "actions_per_s": 2.0,
        "tables_started": 2, "tables_ended": 0,
        "action_latency_ms": summarize_ns([1_000_000] * 4),
        "delivery_latency_ms": {"players": summarize_ns([2_000_000]),
                                "spectators": summarize_ns([])},
        "deliveries_per_s": 10.0, "errors": 0, "errors_by_code": {}, "gaps": 0,
        "duplicates": 0, "missing": 0, "generator": {"core_share": 0.1}, "server": None,
        "redis": redis_figures({"evalsha": 4}, 4),
    }
    text = format_report(result)
    assert "accepted actions: 4 (2.0/s)" in text
    assert "script calls 1.0" in text
    assert json.loads(json.dumps(result)) == result
