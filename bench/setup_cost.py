"""Server cost of a table's set-up, phase by phase (issue 27).

A table is set up as the load run and ``bench/peers/run.py`` set it up, through the wire
of docs/protocol.md exactly as a client does: ``POST /api/tables`` (private, no clock),
four ``POST /api/tables/{id}/join`` one after another, four table websockets each sending
``hello`` with its seat token and waiting for ``welcome``, then ``POST
/api/tables/{id}/start`` with the owner token. ``--tables`` tables go through each phase
together (every table's create, then every table's joins, …), and per phase it reports:

- Redis commands per table, from ``INFO commandstats`` before and after the phase (the
  commands a script runs inside Redis included; ``evalsha`` is one round trip whatever
  its script does). These do not depend on the machine's load: the same code makes the
  same commands.
- Server CPU per table (ms): the server process's user+system time over the phase, less
  its idle rate (measured before) over the phase's wall time. A rough figure that moves
  with the machine's load, printed with the load average.

With ``--monitor``, Redis ``MONITOR`` records each phase too and the commands a client
sent (not those its scripts ran: round trips, each command of a pipeline counted) are
reported per table; MONITOR slows Redis, so the CPU figures of such a run are not kept.

Each of ``--rounds`` rounds takes fresh tables; the CPU figures are reported per round and
as their median. The service is ``bench.load.spawn.SpawnedService`` (a private
``redis-server`` and ``python -m cli serve`` of this checkout, or of ``--server-dir``).

    .venv/bin/python -m bench.setup_cost                      # 100 tables, 3 rounds
    .venv/bin/python -m bench.setup_cost --tables 50 --rounds 5 --json setup.json
    .venv/bin/python -m bench.setup_cost --server-dir /path/to/other/checkout
    .venv/bin/python -m bench.setup_cost --monitor --rounds 1     # + client commands
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
import uvloop

from bench.load.config import LoadConfig
from bench.load.host import machine
from bench.load.redis_monitor import RedisMonitor, commandstats_delta, redis_commandstats
from bench.load.sockets import LightSocket
from bench.load.spawn import SpawnedService
from bench.load.table import TableRun
from bench.load.tracking import Stats

PHASES = ("create", "join x4", "sockets x4", "start")
"""The set-up's phases, in order."""


class Probe:
    """The server's CPU time (s) and Redis's command counts, read between phases."""

    def __init__(self, server_pid: int, redis_url: str, monitor: bool = False) -> None:
        self.proc = psutil.Process(server_pid)
        self.redis_url = redis_url
        self.monitor = monitor
        self.idle_per_s = 0.0

    def cpu(self) -> float:
        """User + system CPU seconds of the server process so far."""
        t = self.proc.cpu_times()
        return t.user + t.system

    async def measure_idle(self, seconds: float) -> None:
        """The server's CPU per second of wall time while nothing is asked of it (its
        periodic work: presence refresh, deadline scan), subtracted from every phase."""
        c0, w0 = self.cpu(), time.perf_counter()
        await asyncio.sleep(seconds)  # idle on purpose: this is what is measured
        self.idle_per_s = (self.cpu() - c0) / (time.perf_counter() - w0)

    async def phase(self, coros: list[Awaitable[Any]], settle: float, tables: int
                    ) -> dict[str, Any]:
        """Run ``coros`` together, wait ``settle`` s for the server's follow-up work (the
        publications the phase caused); returns ``cpu_ms_per_table`` and
        ``commands_per_table``."""
        monitor = RedisMonitor(self.redis_url) if self.monitor else None
        if monitor is not None:
            await asyncio.to_thread(monitor.start)
        before = await asyncio.to_thread(redis_commandstats, self.redis_url)
        c0, w0 = self.cpu(), time.perf_counter()
        await asyncio.gather(*coros)
        await asyncio.sleep(settle)  # the phase's background work lands inside the window
        cpu = self.cpu() - c0 - self.idle_per_s * (time.perf_counter() - w0)
        after = await asyncio.to_thread(redis_commandstats, self.redis_url)
        delta = commandstats_delta(before, after)
        out: dict[str, Any] = {
            "cpu_ms_per_table": round(cpu / tables * 1000, 3),
            "commands_per_table": {k: round(v / tables, 2) for k, v in delta.items()},
            "total_commands_per_table": round(sum(delta.values()) / tables, 2),
        }
        if monitor is not None:
            seen = await asyncio.to_thread(monitor.stop, tables)
            out["client_commands_per_table"] = {
                k: round(v / tables, 2) for k, v in seen["client_commands"].items()}
            out["total_client_commands_per_table"] = seen["client_commands_per_action"]
        return out


async def one_round(url: str, probe: Probe, http: httpx.AsyncClient, tables: int,
                    seed: int, settle: float) -> dict[str, Any]:
    """One round of ``tables`` fresh tables through the four phases; the games are not
    played (their sockets are closed at the end)."""
    cfg = LoadConfig(url=url, tables=tables, players=4, spectators=0, rate=0,
                     ack_timeout=60)
    stats = Stats()
    runs = [TableRun(cfg, stats, http, random.Random(seed + i)) for i in range(tables)]
    owners: dict[int, str] = {}
    seats: dict[int, list[tuple[int, str]]] = {i: [] for i in range(tables)}

    async def create(i: int, run: TableRun) -> None:
        made = await run._post("/api/tables", {"game": cfg.game, "seats": 4, "options": {},
                                               "name": "setup", "private": True})
        run.id, run.key, owners[i] = made["id"], made.get("invite_key"), made["owner_token"]

    async def join(i: int, run: TableRun) -> None:
        for n in range(4):  # one after another, as people arrive
            joined = await run._post(f"/api/tables/{run.id}/join", {"name": f"p{n}"})
            seats[i].append((joined["seat"], joined["token"]))

    async def sockets(i: int, run: TableRun) -> None:
        run.players = [LightSocket(run, token, seat) for seat, token in seats[i]]
        await asyncio.gather(*(s.open(None) for s in run.players))

    async def start(i: int, run: TableRun) -> None:
        await run._post(f"/api/tables/{run.id}/start", {}, token=owners[i])

    steps: list[Callable[[int, TableRun], Awaitable[None]]] = [create, join, sockets, start]
    out: dict[str, Any] = {}
    for name, step in zip(PHASES, steps, strict=True):
        out[name] = await probe.phase([step(i, r) for i, r in enumerate(runs)], settle, tables)
    await asyncio.gather(*(r.finish(0) for r in runs))
    await asyncio.sleep(settle)  # the server's work on the closed sockets, before the next
    if stats.errors:
        raise RuntimeError(f"the set-up was refused: {dict(stats.errors)}")
    return out


async def run_setup_cost(tables: int = 100, rounds: int = 3, warmup: int = 5,
                         settle: float = 0.5, idle: float = 1.0,
                         server_dir: Path | None = None,
                         monitor: bool = False) -> dict[str, Any]:
    """Start a private service, warm it up with ``warmup`` tables, then measure
    ``rounds`` rounds of ``tables`` tables. Returns the figures (see ``format_report``)."""
    host = machine()
    svc = SpawnedService(server_dir=server_dir).start()
    try:
        probe = Probe(svc.server_pid, svc.redis_url)
        async with httpx.AsyncClient(base_url=svc.url, timeout=60) as http:
            # Imports, caches, the script cache of Redis, the first pooled connections.
            await one_round(svc.url, probe, http, warmup, 10_000_000, settle)
            await probe.measure_idle(idle)
            probe.monitor = monitor
            per_round = [await one_round(svc.url, probe, http, tables, 1000 * r, settle)
                         for r in range(rounds)]
    finally:
        svc.stop()
    phases = {}
    for name in PHASES:
        cpu = [r[name]["cpu_ms_per_table"] for r in per_round]
        phases[name] = {"cpu_ms_per_table": cpu,
                        "cpu_ms_median": round(statistics.median(cpu), 3),
                        # the same in every round (load-free); the last round's
                        "commands_per_table": per_round[-1][name]["commands_per_table"],
                        "total_commands_per_table":
                            per_round[-1][name]["total_commands_per_table"]}
        if monitor:
            for key in ("client_commands_per_table", "total_client_commands_per_table"):
                phases[name][key] = per_round[-1][name][key]
    totals = [sum(r[n]["cpu_ms_per_table"] for n in PHASES) for r in per_round]
    return {
        "machine": host,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "tables": tables, "rounds": rounds,
        "idle_cpu_ms_per_s": round(probe.idle_per_s * 1000, 2),
        "phases": phases,
        "total_cpu_ms_per_table": [round(t, 3) for t in totals],
        "total_cpu_ms_median": round(statistics.median(totals), 3),
        "total_commands_per_table": round(sum(
            p["total_commands_per_table"] for p in phases.values()), 2),
    }


def format_report(r: dict[str, Any]) -> str:
    """The figures as text: per phase the median CPU (each round's beside it) and the
    Redis commands per table."""
    m = r["machine"]
    lines = [f"{m['cpu']}, {m['cores']} cores, Python {m['python']}; load average "
             f"{m['load_average_1m']} before, {r['load_average_after'][0]} after "
             f"(the CPU figures move with it; the command counts do not)",
             f"{r['tables']} tables x {r['rounds']} rounds; server idle "
             f"{r['idle_cpu_ms_per_s']} ms CPU/s (subtracted)", ""]
    for name, p in r["phases"].items():
        rounds = " / ".join(f"{x:.2f}" for x in p["cpu_ms_per_table"])
        lines.append(f"{name:11} {p['cpu_ms_median']:6.2f} ms CPU per table ({rounds})")
        cmds = ", ".join(f"{k} {v:g}" for k, v in p["commands_per_table"].items())
        lines.append(f"{'':11} {p['total_commands_per_table']:g} Redis commands per "
                     f"table: {cmds}")
        if "client_commands_per_table" in p:
            sent = ", ".join(f"{k} {v:g}" for k, v in p["client_commands_per_table"].items())
            lines.append(f"{'':11} {p['total_client_commands_per_table']:g} sent by clients "
                         f"(MONITOR): {sent}")
    rounds = " / ".join(f"{x:.2f}" for x in r["total_cpu_ms_per_table"])
    lines.append(f"{'total':11} {r['total_cpu_ms_median']:6.2f} ms CPU per table ({rounds}); "
                 f"{r['total_commands_per_table']:g} Redis commands per table")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=100, help="tables per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of fresh tables")
    ap.add_argument("--warmup", type=int, default=5, help="tables set up before measuring")
    ap.add_argument("--settle", type=float, default=0.5,
                    help="seconds after each phase inside its window (its follow-up work)")
    ap.add_argument("--server-dir", type=Path, default=None,
                    help="run the server of another checkout (to compare a change)")
    ap.add_argument("--monitor", action="store_true",
                    help="also count the commands clients sent (Redis MONITOR; slows Redis)")
    ap.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = ap.parse_args(argv)
    if args.tables < 1 or args.rounds < 1:
        ap.error("--tables and --rounds must be at least 1")
    result = uvloop.run(run_setup_cost(args.tables, args.rounds, args.warmup, args.settle,
                                       server_dir=args.server_dir, monitor=args.monitor))
    print(format_report(result))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
