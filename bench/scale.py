"""Horizontal scale on a Redis Cluster: bench/load/ through HAProxy against 1, 2 and 3
server processes (``cardtable balance``), on a private 3+3 cluster (tests/cluster.py), with
``CARDTABLE_REDIS_WAIT=1`` as a deployment with replicas runs.

Per run: accepted actions/s, action latency p50/p99, delivery latency to spectators, CPU
ms per accepted action of each process and of all of them (and of all less what each
process spends idle, measured for 5 s before the load: a fixed cost per process), and
Redis commands per action (summed over the masters). The balancer keeps each table's
sockets on one process (``cardtable balance``'s default); ``--leastconn`` spreads them.
Prints one JSON line per run, then a Markdown table for docs/benchmarks.md.

    .venv/bin/python bench/scale.py --tables 12 --duration 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.load.config import LoadConfig
from bench.load.run import run_load
from bench.load.spawn import BENCH_ENV, free_ports
from server.store.client import connect_sync
from tests.cluster import LocalCluster

REPO = Path(__file__).resolve().parents[1]


def start_balanced(n: int, redis_url: str, log: Path, wait: int = 1, leastconn: bool = False
                   ) -> tuple[subprocess.Popen, str, list[int], list[int]]:
    """``cardtable balance -n n`` (``CARDTABLE_REDIS_WAIT=wait``); returns it, its URL, the
    pids of its processes and their ports."""
    port, *backends_ports = free_ports(n + 1)
    env = {**os.environ, **BENCH_ENV, "CARDTABLE_REDIS_WAIT": str(wait),
           "CARDTABLE_LOG_LEVEL": "warning"}
    env.pop("REDIS_URL", None)
    out = log.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "balance", "-n", str(n), "--port",
                             str(port), "--ports", ",".join(map(str, backends_ports)),
                             "--redis-url", redis_url, *(["--leastconn"] if leastconn else [])],
                            cwd=REPO, env=env, stdout=out, stderr=out)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    backends = [f"http://127.0.0.1:{p}/healthz" for p in backends_ports]
    while time.monotonic() < deadline:
        try:
            urls = [*backends, url + "/healthz"]
            if all(httpx.get(u, timeout=1).status_code == 200 for u in urls):
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    else:
        raise RuntimeError("balanced service did not start: " + log.read_text()[-2000:])
    pids = [int(p) for _, p in re.findall(r"serve (\d+) pid (\d+)", log.read_text())]
    return proc, url, pids, backends_ports


def redis_cpu(url: str) -> dict[str, float]:
    """CPU seconds (user + sys) of each cluster node so far, by role."""
    client = connect_sync(url)
    try:
        infos = client.info("cpu", target_nodes=client.ALL_NODES)
        roles = client.info("replication", target_nodes=client.ALL_NODES)
    finally:
        client.close()
    out = {"master": 0.0, "replica": 0.0}
    for node, info in infos.items():
        role = "master" if roles[node]["role"] == "master" else "replica"
        out[role] += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return out


def idle_cpu(pids: list[int], seconds: float = 5.0) -> list[float]:
    """CPU ms per second of each process while nothing is asked of it (HAProxy's health
    checks, the event-loop monitor, the pub/sub readers, the periodic tasks)."""
    procs = [psutil.Process(p) for p in pids]
    before = [sum(p.cpu_times()[:2]) for p in procs]
    t0 = time.perf_counter()
    time.sleep(seconds)
    wall = time.perf_counter() - t0
    after = [sum(p.cpu_times()[:2]) for p in procs]
    return [round(1000 * (a - b) / wall, 2) for a, b in zip(after, before, strict=True)]


async def followed(ports: list[int], peak: list[int], stop: asyncio.Event) -> None:
    """Until ``stop``: the most tables each process held (``cardtable_tables_cached``: the
    tables it follows, each folding every event and computing its deltas once) into
    ``peak``, sampled every second."""
    async with httpx.AsyncClient(timeout=5) as http:
        while not stop.is_set():
            for i, port in enumerate(ports):
                try:
                    text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
                except httpx.HTTPError:
                    continue
                found = re.search(r"^cardtable_tables_cached (\S+)$", text, re.M)
                if found:
                    peak[i] = max(peak[i], int(float(found.group(1))))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)


async def one_run(n: int, cluster: LocalCluster, args: argparse.Namespace, log: Path) -> dict:
    proc, url, pids, ports = start_balanced(n, cluster.url, log, args.redis_wait,
                                            args.leastconn)
    peak = [0] * n
    try:
        time.sleep(1.0)  # past the start-up work
        idle = idle_cpu(pids)
        cfg = LoadConfig(url=url, tables=args.tables, players=args.players,
                         spectators=args.spectators, rate=args.rate, duration=args.duration,
                         warmup=2.0, redis_url=cluster.url, server_pids=tuple(pids),
                         sources=8)
        cpu0 = redis_cpu(cluster.url)
        stop = asyncio.Event()
        sampler = asyncio.create_task(followed(ports, peak, stop))
        r = await run_load(cfg)
        stop.set()
        await sampler
        cpu1 = redis_cpu(cluster.url)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    accepted = r["accepted_actions"] or 1
    cpu = [s["cpu_s"] for s in r["servers"]]
    redis = r["redis"] or {}
    return {
        "processes": n, "redis_wait": args.redis_wait,
        "balance": "leastconn" if args.leastconn else "table",
        "window_s": r["window_s"],
        "accepted": r["accepted_actions"],
        "actions_per_s": r["actions_per_s"], "errors": r["errors"], "gaps": r["gaps"],
        "duplicates": r["duplicates"],
        "action_ms": r["action_latency_ms"],
        "spectator_ms": r["delivery_latency_ms"]["spectators"],
        "deliveries_per_s": r["deliveries_per_s"],
        "cpu_ms_per_action_total": round(1000 * sum(cpu) / accepted, 3),
        "cpu_ms_per_action_each": [round(1000 * c / accepted, 3) for c in cpu],
        "idle_cpu_ms_per_s_each": idle,
        "tables_followed_each": peak,
        # less what each process spends when idle (a fixed cost per process, not per action)
        "cpu_ms_per_action_net": round(
            (1000 * sum(cpu) - sum(idle) * r["window_s"]) / accepted, 3),
        "core_share_each": [s["core_share"] for s in r["servers"]],
        # over the whole run (set-up, warm-up and the window): an upper bound per action
        "redis_cpu_ms_per_action": {k: round(1000 * (cpu1[k] - cpu0[k]) / accepted, 3)
                                    for k in cpu0},
        "redis_commands_per_action": redis.get("commands_per_action"),
        "redis_commands": redis.get("commands"),
    }


async def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=12)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--spectators", type=int, default=8)
    p.add_argument("--rate", type=float, default=2.0, help="actions/s per table")
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--processes", default="1,2,3")
    p.add_argument("--leastconn", action="store_true",
                   help="cardtable balance --leastconn: a table's sockets spread over the "
                        "processes (the default keeps them on one)")
    p.add_argument("--redis-wait", type=int, default=1,
                   help="CARDTABLE_REDIS_WAIT of the servers (0: ack once the master has it)")
    args = p.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="einauge-scale-"))
    cluster = LocalCluster(folder / "cluster").start()
    rows = []
    try:
        for n in (int(x) for x in args.processes.split(",")):
            row = await one_run(n, cluster, args, folder / f"balance-{n}.log")
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        cluster.stop()
    print(f"\nmachine: {platform.node()} {platform.machine()} {os.cpu_count()} cores, "
          f"python {platform.python_version()}; {args.tables} tables x ({args.players} players"
          f" + {args.spectators} spectators), {args.rate} actions/s per table, "
          f"{args.duration} s windows\n")
    print("| processes | actions/s | action p50 / p99 ms | spectator p50 / p99 ms | "
          "CPU ms per action, all / each | idle CPU ms/s each | CPU ms per action less "
          "idle | tables followed each | Redis commands per action |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        a, s = r["action_ms"], r["spectator_ms"]
        print(f"| {r['processes']} | {r['actions_per_s']} | {a['p50']} / {a['p99']} | "
              f"{s['p50']} / {s['p99']} | {r['cpu_ms_per_action_total']} / "
              f"{r['cpu_ms_per_action_each']} | {r['idle_cpu_ms_per_s_each']} | "
              f"{r['cpu_ms_per_action_net']} | {r['tables_followed_each']} | "
              f"{r['redis_commands_per_action']} |")


if __name__ == "__main__":
    asyncio.run(main())
