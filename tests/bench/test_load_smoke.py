"""CI smoke run of the load generator against the real server and Redis: a few tables for
a few seconds. It asserts correctness only (no gap, no duplicate, no error, every table
served, one Redis round trip per action, and the commands that run on timers bounded per
second); the speed figures are in docs/benchmarks.md."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from bench.load.config import LoadConfig
from bench.load.run import run_load
from server.config import Settings
from server.play.presence_schedule import renew_period
from tests.cluster import LocalCluster
from tests.conftest import RedisProcess, ServerProcess

TABLES = 3
DEFAULTS = Settings.model_fields  # the server runs with the default intervals


@pytest.fixture
def quiet_server(own_redis: RedisProcess | LocalCluster) -> Iterator[ServerProcess]:
    """A server on a Redis of its own: nothing else (no bot of another test) sends
    commands while the Redis round trips are counted."""
    # Quick pairing's and the tournaments' passes are timers of their own (counted in
    # their tests): an hour apart here, so that only the action path's commands and the
    # timers below are counted.
    s = ServerProcess(own_redis.url, env={"CARDTABLE_SEEK_SCAN": "3600",
                                          "CARDTABLE_TOURNAMENT_SCAN": "3600"}).start()
    yield s
    s.stop()


@pytest.mark.timeout(120)
async def test_load_smoke(quiet_server: ServerProcess,
                          own_redis: RedisProcess | LocalCluster) -> None:
    server = quiet_server
    assert server.proc is not None
    cfg = LoadConfig(url=server.url, tables=TABLES, players=4, spectators=2, rate=5.0,
                     duration=3.0, warmup=0.5, redis_url=own_redis.url,
                     server_pid=server.proc.pid,
                     # MONITOR watches one node: on a cluster, INFO commandstats (summed
                     # over the masters) counts the script calls instead
                     redis_monitor=shutil.which("redis-cli") is not None
                     and isinstance(own_redis, RedisProcess))
    r = await run_load(cfg)

    assert r["errors"] == 0, r["errors_by_code"]
    assert r["gaps"] == 0
    assert r["duplicates"] == 0
    assert r["missing"] == 0
    assert r["tables_started"] == TABLES
    assert len(r["accepted_by_table"]) == TABLES
    assert all(n >= 1 for n in r["accepted_by_table"].values()), r["accepted_by_table"]
    assert r["accepted_actions"] == sum(r["accepted_by_table"].values())
    # every socket of every table saw every action's delta: 4 players + 2 spectators per
    # action (an action at the window's edge may be counted on one side only)
    edge = range(r["accepted_actions"] - TABLES, r["accepted_actions"] + TABLES + 1)
    assert r["delivery_latency_ms"]["players"]["n"] in range(4 * edge.start, 4 * edge.stop)
    assert r["delivery_latency_ms"]["spectators"]["n"] in range(2 * edge.start, 2 * edge.stop)
    assert r["server"]["cpu_s"] > 0

    # One Redis round trip per accepted action: the append script, nothing else (on a
    # cluster, where the servers wait for a replica, the script and WAIT share one round
    # trip and SPUBLISH follows once replicated). Actions sent inside the window but acked
    # after it (at most one per table) are the slack.
    redis = r["redis"]
    assert set(redis["commands"]) >= {"evalsha"}
    if isinstance(own_redis, LocalCluster):
        assert abs(redis["commands"].get("wait", 0) - r["accepted_actions"]) <= TABLES
        assert abs(redis["commands"].get("spublish", 0) - r["accepted_actions"]) <= TABLES
    assert abs(redis["script_calls"] - r["accepted_actions"]) <= TABLES
    if r["redis_monitor"] is not None:
        client = dict(r["redis_monitor"]["client_commands"])
        seconds = r["redis_monitor"]["seconds"]
        # The rest run on timers, whatever the actions: the deadline scan (one command
        # every deadline_scan s per process), the bot tables' resume scan (one
        # SRANDMEMBER of the bot-table set every bot_lease s per process: server/table/bot_seats.py
        # _keep_leases) and each table's presence: a renewal (hset alone, every
        # renew_period per table with sockets here: server/play/presence_schedule.py)
        # and a read (hset + expire + hgetall in one pipeline: a socket came or went, or
        # the last read is READ_AFTER old), at most one a tick per table. Rated per second
        # and bounded, then set apart.
        scans = client.pop("zrangebyscore", 0)
        assert scans <= seconds / DEFAULTS["deadline_scan"].default + 2, (scans, seconds)
        resumes = client.pop("srandmember", 0)
        assert resumes <= seconds / DEFAULTS["bot_lease"].default + 2, (resumes, seconds)
        refreshes = client.pop("hgetall", 0)
        assert refreshes <= TABLES * (seconds / DEFAULTS["presence_interval"].default + 2), (
            refreshes, seconds)
        assert client.pop("expire", 0) <= refreshes, r["redis_monitor"]  # with a read only
        renew_s = renew_period(int(DEFAULTS["presence_ttl"].default * 1000),
                               int(DEFAULTS["presence_interval"].default * 1000)) / 1000
        renewals = TABLES * (seconds / renew_s + 2)
        assert client.pop("hset", 0) <= refreshes + renewals, r["redis_monitor"]
        # The load's tables are private, the kind without a clock (as the peers' tables):
        # no deadline index command per action (a clocked table's two ZADDs and HGET).
        assert set(client) == {"evalsha"}, r["redis_monitor"]
        assert abs(client["evalsha"] - r["accepted_actions"]) <= TABLES
