"""The table run: ``run_load`` plays ``LoadConfig.tables`` tables against a service for
the measured window and returns the result dict; ``format_report`` makes its lines.

A finished table is replaced by a new one (unless ``until_end``); the Redis counters, the
server probe and ``recording`` open and close the window together (see the comments in
``run_load``).
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import asdict
from typing import Any

import httpx
import psutil

from bench.load.config import LoadConfig
from bench.load.host import machine, raise_nofile
from bench.load.probe import FANOUT_METRIC, ServerProbe, histogram_figures, server_histogram
from bench.load.redis_monitor import (
    RedisMonitor,
    commandstats_delta,
    redis_commandstats,
    redis_figures,
)
from bench.load.table import TableRun
from bench.load.tracking import Stats, summarize_ns


async def run_load(cfg: LoadConfig) -> dict[str, Any]:
    """Run one load test against ``cfg.url``; returns the result dict (see module doc)."""
    stats = Stats()
    rng = random.Random(cfg.seed)
    host = machine()  # before the run: its load average shows what else ran
    warmup = 0.0 if cfg.until_end else cfg.warmup
    raise_nofile((cfg.players + cfg.spectators) * cfg.tables * 2 + 1024)
    limits = httpx.Limits(max_connections=cfg.setup_concurrency,
                          max_keepalive_connections=cfg.setup_concurrency)
    gate = asyncio.Semaphore(cfg.setup_concurrency)
    tasks: set[asyncio.Task] = set()

    async with httpx.AsyncClient(base_url=cfg.url, limits=limits, timeout=60) as http:

        async def lifecycle(first: bool) -> None:
            table = TableRun(cfg, stats, http, random.Random(rng.random()))
            try:
                async with gate:
                    await table.setup()
            except Exception as e:
                stats.error(f"setup:{type(e).__name__}")
                await asyncio.gather(*(s.close() for s in table.players + table.spectators))
                return
            if first:
                await started.wait()
            await table.drive(stop_at_box[0])
            await table.finish()
            if table.ended and not cfg.until_end and time.perf_counter() < stop_at_box[0] - 1:
                spawn(False)

        def spawn(first: bool) -> None:
            task = asyncio.create_task(lifecycle(first))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        started = asyncio.Event()
        stop_at_box = [float("inf")]
        t_setup = time.perf_counter()
        for _ in range(cfg.tables):
            spawn(True)
        # wait until every first table is set up (they block on `started`)
        while stats.tables_started + sum(v for k, v in stats.errors.items()
                                         if k.startswith("setup:")) < cfg.tables:
            await asyncio.sleep(0.05)
        setup_s = time.perf_counter() - t_setup
        t0 = time.perf_counter()
        stop_at_box[0] = t0 + warmup + cfg.duration if not cfg.until_end else float("inf")
        started.set()

        await asyncio.sleep(warmup)
        probe = ServerProbe(cfg.server_pid if not cfg.server_pids else None)
        probes = [ServerProbe(pid) for pid in cfg.server_pids]
        me = psutil.Process()
        fanout_before = await asyncio.to_thread(server_histogram, cfg.url, FANOUT_METRIC)
        monitor = RedisMonitor(cfg.redis_url) if cfg.redis_url and cfg.redis_monitor else None
        if monitor:
            monitor.start()
        # From the Redis counters to `recording` no await: the drivers act only while the
        # loop runs, so the script calls and the acks counted cover the same window (up to
        # one action in flight per table at each edge). An await here (the fan-out read
        # was one) let actions through that Redis counted and the acks did not.
        my_cpu0 = sum(me.cpu_times()[:2])
        redis_before = redis_commandstats(cfg.redis_url) if cfg.redis_url else None
        tables_before = stats.tables_started
        stats.recording = True
        probe.start()
        for p in probes:
            p.start()
        w0 = time.perf_counter()
        if cfg.until_end:
            while tasks:
                await asyncio.wait(list(tasks))
        else:
            await asyncio.sleep(max(0.0, stop_at_box[0] - time.perf_counter()))
        window = time.perf_counter() - w0
        stats.recording = False
        server = probe.stop(stats.accepted, stats.deliveries)
        servers = [p.stop(stats.accepted, stats.deliveries) for p in probes]
        my_cpu = sum(me.cpu_times()[:2]) - my_cpu0
        redis_after = redis_commandstats(cfg.redis_url) if cfg.redis_url else None
        monitored = monitor.stop(stats.accepted) if monitor else None
        # Only now may the loop run again (the drivers close their sockets at the stop).
        fanout_after = await asyncio.to_thread(server_histogram, cfg.url, FANOUT_METRIC)
        tables_in_window = stats.tables_started - tables_before
        # let the drivers notice the stop, deliver the last deltas, and close
        if tasks:
            await asyncio.wait(list(tasks), timeout=cfg.ack_timeout + 10)
        for task in list(tasks):
            task.cancel()

    result: dict[str, Any] = {
        "kind": "load",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": host,
        "config": asdict(cfg),
        "setup_s": round(setup_s, 2),
        "window_s": round(window, 3),
        "tables_started": stats.tables_started,
        "tables_started_in_window": tables_in_window,
        "tables_ended": stats.tables_ended,
        "sockets_opened": stats.sockets_opened,
        "accepted_actions": stats.accepted,
        "accepted_by_table": stats.accepted_by_table,
        "actions_per_s": round(stats.accepted / window, 1) if window else None,
        "action_latency_ms": summarize_ns(stats.action_latency),
        "delivery_latency_ms": {
            "players": summarize_ns(stats.player_delivery),
            "spectators": summarize_ns(stats.spectator_delivery),
            "last_spectator": summarize_ns(stats.last_spectator),
        },
        "deliveries": stats.deliveries,
        "deliveries_per_s": round(stats.deliveries / window, 1) if window else None,
        "errors": sum(v for k, v in stats.errors.items() if not k.endswith("(retried)")),
        "errors_by_code": dict(sorted(stats.errors.items())),
        "gaps": stats.gaps,
        "duplicates": stats.duplicates,
        "missing": stats.missing,
        "server": server,
        "servers": servers,
        "server_fanout_ms": histogram_figures(fanout_before, fanout_after),
        "generator": {"cpu_s": round(my_cpu, 3),
                      "core_share": round(my_cpu / window, 3) if window else None},
        "redis": (redis_figures(commandstats_delta(redis_before, redis_after), stats.accepted)
                  if redis_before is not None and redis_after is not None else None),
        "redis_monitor": monitored,
    }
    return result


def format_report(r: dict[str, Any]) -> str:
    """A few human-readable lines from a result dict."""
    lat = r["action_latency_ms"]
    dp = r["delivery_latency_ms"]["players"]
    ds = r["delivery_latency_ms"]["spectators"]
    lines = [
        f"tables {r['config']['tables']} x ({r['config']['players']} players + "
        f"{r['config']['spectators']} spectators), rate {r['config']['rate']}/s per table, "
        f"window {r['window_s']} s (setup {r['setup_s']} s)",
        f"accepted actions: {r['accepted_actions']} ({r['actions_per_s']}/s); "
        f"tables started {r['tables_started']}, ended {r['tables_ended']}",
        f"action latency ms: p50 {lat['p50']} p95 {lat['p95']} p99 {lat['p99']} "
        f"max {lat['max']}",
        f"delivery ms players: p50 {dp['p50']} p99 {dp['p99']} (n {dp['n']}); "
        f"spectators: p50 {ds['p50']} p99 {ds['p99']} (n {ds['n']}); "
        f"{r['deliveries_per_s']} deliveries/s",
        f"errors {r['errors']} {r['errors_by_code']}  gaps {r['gaps']}  "
        f"duplicates {r['duplicates']}  missing {r['missing']}",
        f"generator core share {r['generator']['core_share']}",
    ]
    if r["server"]:
        s = r["server"]
        lines.append(
            f"server: {s['cpu_s_per_1000_actions']} CPU s per 1,000 actions "
            f"({s['cpu_us_per_delivery']} us per delivery), core share "
            f"{s['core_share']}, RSS {s['rss_mib_start']} -> {s['rss_mib_end']} MiB "
            f"(peak {s['rss_mib_peak']})")
    if r.get("server_fanout_ms"):
        f = r["server_fanout_ms"]
        lines.append(f"server fan-out per delta (room to last socket): p50 <= "
                     f"{f['p50_at_most_ms']} ms, p99 <= {f['p99_at_most_ms']} ms (n {f['n']})")
    if r["redis"]:
        rd = r["redis"]
        lines.append(
            f"redis per accepted action: script calls {rd['script_calls_per_action']}, "
            f"all commands {rd['commands_per_action']}  {rd['commands']}")
    if r.get("redis_monitor"):
        m = r["redis_monitor"]
        lines.append(
            f"redis MONITOR: client commands (round trips) per action "
            f"{m['client_commands_per_action']}: {m['client_commands']}; "
            f"inside scripts: {m['script_commands']}")
    return "\n".join(lines)
