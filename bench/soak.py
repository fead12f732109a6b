"""Soak run (issue 7; not CI): many concurrent bot tables with spectators for a long time.

Starts a private ``redis-server`` (append-only file on) and ``--processes`` server
processes on it, keeps ``--tables`` all-bot tables running (a finished one is verified and
replaced), each followed by ``--spectators`` spectators that reconnect with their last seq
to any process, optionally SIGKILLs and restarts a process every ``--kill-every`` seconds,
and samples the servers' RSS every ``--sample`` seconds::

    .venv/bin/python -m bench.soak --minutes 30 --tables 100          # the issue's run
    .venv/bin/python -m bench.soak --minutes 1 --tables 10 --kill-every 5   # a quick look

At the end it prints (and with ``--json`` writes) games finished and verified (the checks
of ``cardtable verify`` on every record, and every spectator's deltas checked against the
record's replay and hash chain), gaps/duplicates seen, kills, and the RSS curve per process; the
memory is called flat when the median RSS of the last quarter of the run is within
``--rss-slack`` (default 10 %) of the median of the second quarter (after warm-up), judged
per server on its longest-lived process (a killed process starts a new curve). Exit 0
only when every game finished and verified, no spectator saw a problem, and memory was
flat.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.verify import verify_bytes  # noqa: E402
from server.store.embedded import EmbeddedRedis, free_port  # noqa: E402
from tests.trust.chaos import (  # noqa: E402
    Spectator,
    check_against_record,
    create_bot_table,
    killer,
    poke,
    start_table,
)
from tests.trust.wire import LoggedServer, crashes  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--tables", type=int, default=100, help="concurrent tables")
    p.add_argument("--spectators", type=int, default=2, help="spectators per table")
    p.add_argument("--processes", type=int, default=2, help="server processes on one Redis")
    p.add_argument("--bot-delay", type=float, default=0.3, help="seconds a bot thinks")
    p.add_argument("--kill-every", type=float, default=0.0,
                   help="SIGKILL and restart a process every N seconds (0: never)")
    p.add_argument("--sample", type=float, default=10.0, help="RSS sampling period (s)")
    p.add_argument("--rss-slack", type=float, default=0.10)
    p.add_argument("--table-timeout", type=float, default=600.0,
                   help="seconds a game may take before it counts as a problem")
    p.add_argument("--json", type=Path, help="write the results here")
    return p.parse_args(argv)


class Soak:
    """The run's state: servers, live tables and their spectators, and the tallies."""

    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        self.args = args
        self.work = work
        self.rng = random.Random(1)
        self.redis = EmbeddedRedis(work / "redis", port=free_port())
        self.servers: list[LoggedServer] = []
        self.finished = 0
        self.verified = 0
        self.problems: list[str] = []
        self.reconnects = 0
        self.kills: list[float] = []
        self.rss: dict[int, list[tuple[float, int, float]]] = {}
        self.active: dict[str, float] = {}
        self.start_failures = 0
        self.resyncs = 0
        self.checking: set[asyncio.Task[None]] = set()
        self.clients: dict[str, httpx.AsyncClient] = {}
        self.verifier = ProcessPoolExecutor(1)

    async def start(self) -> None:
        url = self.redis.start()
        env = {"CARDTABLE_BOT_DELAY": str(self.args.bot_delay), "CARDTABLE_LOG_LEVEL": "warning",
               "CARDTABLE_CONNS_PER_ADDR": "100000"}
        for i in range(self.args.processes):
            server = LoggedServer(url, self.work / f"server{i}.log", env)
            await asyncio.to_thread(server.start)
            self.servers.append(server)

    async def table_loop(self, deadline: float, delay: float) -> None:
        """Keep one table slot busy until the deadline: play, verify, replace. The slots
        start ``delay`` apart, so the games (and their checks) do not come in waves."""
        await asyncio.sleep(delay)
        while time.monotonic() < deadline:
            tasks: list[asyncio.Task[None]] = []
            base = self.rng.choice([s for s in self.servers if s.proc is not None] or
                                   self.servers)
            http = self.client(base.url)
            try:
                tid, owner = await create_bot_table(http, self.rng.randrange(2, 6))
                spectators = [Spectator(tid, self.servers, random.Random(f"{tid}/{i}"))
                              for i in range(self.args.spectators)]
                tasks = [asyncio.create_task(s.run(timeout=self.args.table_timeout))
                         for s in spectators]
                await asyncio.sleep(0.3)
                await start_table(http, tid, owner)
            except (httpx.HTTPError, AssertionError) as e:
                self.start_failures += 1  # a process died under us, or overload: next one
                for t in tasks:
                    t.cancel()
                where = ""
                with contextlib.suppress(AttributeError, RuntimeError):  # no request known
                    where = f" ({e.request.method} {e.request.url.path})"
                print(f"start failed{where}: {type(e).__name__}: {str(e)[:120]}",
                      file=sys.stderr)
                await asyncio.sleep(0.5)
                continue
            self.active[tid] = time.monotonic()
            pending = set(tasks)
            while pending:
                _, pending = await asyncio.wait(pending, timeout=5)
                if pending:
                    await poke(self.servers, tid, http)
            del self.active[tid]
            try:
                for t in tasks:
                    t.result()
            except TimeoutError:
                self.problems.append(f"{tid}: did not end within {self.args.table_timeout} s")
                continue
            self.finished += 1
            # Checked in the background: the slot starts its next table at once, so the
            # run keeps ``--tables`` games going however long the checks take.
            check = asyncio.create_task(self.check(tid, spectators))
            self.checking.add(check)
            check.add_done_callback(self.checking.discard)

    def client(self, url: str) -> httpx.AsyncClient:
        """The HTTP client of one server address, made once: a client per request costs
        tens of ms of CPU (its TLS context) and stalled this loop for seconds. Idle
        connections are dropped after 2 s, before uvicorn's 5 s keep-alive ends them: a
        request sent on a connection the server is closing at that moment fails
        ("Server disconnected without sending a response", encode/httpx#2487)."""
        http = self.clients.get(url)
        if http is None:
            http = self.clients[url] = httpx.AsyncClient(
                base_url=url, timeout=10, limits=httpx.Limits(keepalive_expiry=2.0))
        return http

    async def check(self, tid: str, spectators: list[Spectator]) -> None:
        for _ in range(20):
            server = self.rng.choice([s for s in self.servers if s.proc is not None] or
                                     self.servers)
            try:
                r = await self.client(server.url).get(f"/api/tables/{tid}/record")
                if r.status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.5)
        else:
            self.problems.append(f"{tid}: no record")
            return
        record = r.json()
        # What `cardtable verify` runs (engine.verify), in one worker process: cheaper than a
        # CLI process per record, and it keeps the checks off the servers' core share.
        report = await asyncio.get_running_loop().run_in_executor(
            self.verifier, verify_bytes, r.content)
        if all(c.status == "pass" for c in report.checks):
            self.verified += 1
        else:
            self.problems.append(f"{tid}: verify: {[c.to_dict() for c in report.failed()]}")
        for s in spectators:
            self.reconnects += s.reconnects
            self.resyncs += s.resyncs
            self.problems += [f"{tid}: {p}" for p in s.problems + check_against_record(s, record)]

    async def sampler(self, stop: asyncio.Event) -> None:
        t0 = time.monotonic()
        last_report = t0
        while not stop.is_set():
            if time.monotonic() - last_report >= 30:
                last_report = time.monotonic()
                oldest = max((last_report - t for t in self.active.values()), default=0)
                print(f"[{last_report - t0:5.0f}s] finished {self.finished}, verified "
                      f"{self.verified}, running {len(self.active)} (oldest {oldest:.0f}s), "
                      f"kills {len(self.kills)}, problems {len(self.problems)}",
                      file=sys.stderr, flush=True)
            for i, s in enumerate(self.servers):
                if s.proc is None:
                    continue
                try:
                    rss = psutil.Process(s.proc.pid).memory_info().rss / 2**20
                except psutil.Error:
                    continue
                self.rss.setdefault(i, []).append((round(time.monotonic() - t0, 1),
                                                   s.proc.pid, round(rss, 1)))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.args.sample)

    def memory_verdict(self) -> dict[str, Any]:
        """Per server, on the samples of its longest-lived process (a killed process
        starts a new curve): flat when the median RSS of the last quarter is within
        ``--rss-slack`` of the median of the second quarter (after warm-up)."""
        out: dict[str, Any] = {}
        for i, samples in self.rss.items():
            by_pid: dict[int, list[float]] = {}
            for _, pid, rss in samples:
                by_pid.setdefault(pid, []).append(rss)
            curve = max(by_pid.values(), key=len)
            n = len(curve)
            if n < 8:
                out[f"server{i}"] = {"flat": None, "why": f"only {n} samples of one process"}
                continue
            warm = statistics.median(curve[n // 4: n // 2])
            last = statistics.median(curve[3 * n // 4:])
            out[f"server{i}"] = {"samples": n, "warm_mib": warm, "last_mib": last,
                                 "flat": last <= warm * (1 + self.args.rss_slack)}
        return out

    async def run(self) -> dict[str, Any]:
        try:
            return await self._run()
        finally:  # never leave a server or Redis behind, whatever happened
            for s in self.servers:
                s.kill()
            self.redis.stop()

    async def _run(self) -> dict[str, Any]:
        await self.start()
        deadline = time.monotonic() + self.args.minutes * 60
        stop = asyncio.Event()
        sampler = asyncio.create_task(self.sampler(stop))
        chaos = None
        if self.args.kill_every > 0:
            chaos = asyncio.create_task(killer(self.servers, self.args.kill_every, stop,
                                               self.rng, self.kills))
        slots = [asyncio.create_task(self.table_loop(deadline, i * 0.25))
                 for i in range(self.args.tables)]
        await asyncio.gather(*slots)
        while self.checking:
            await asyncio.gather(*list(self.checking))
        self.verifier.shutdown()
        for http in self.clients.values():
            await http.aclose()
        stop.set()
        await sampler
        if chaos:
            await chaos
        logs = [crashes(s.log_text()) for s in self.servers]
        for s in self.servers:
            s.stop()
        memory = self.memory_verdict()
        return {
            "minutes": self.args.minutes, "tables": self.args.tables,
            "spectators_per_table": self.args.spectators, "processes": self.args.processes,
            "bot_delay": self.args.bot_delay, "games_finished": self.finished,
            "games_verified": self.verified, "kills": len(self.kills),
            "reconnects": self.reconnects, "full_view_resyncs": self.resyncs,
            "start_failures": self.start_failures, "problems": self.problems[:50],
            "crash_log_lines": sum(len(c) for c in logs), "memory": memory,
            "rss_mib": {f"server{i}": c for i, c in self.rss.items()},
            "ok": (self.finished == self.verified > 0 and not self.problems
                   and not any(logs) and all(v["flat"] is not False for v in memory.values())),
        }


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM like Ctrl-C: the finally blocks stop every process


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)
    with tempfile.TemporaryDirectory(prefix="einauge-soak-") as work:
        result = asyncio.run(Soak(args, Path(work)).run())
    curves = result.pop("rss_mib")
    print(json.dumps(result, indent=1))
    for name, curve in curves.items():
        points = ", ".join(f"{t:.0f}s:{r:.0f}"
                           for t, _, r in curve[:: max(1, len(curve) // 12)])
        print(f"RSS MiB {name}: {points}")
    if args.json:
        args.json.write_text(json.dumps({**result, "rss_mib": curves}, indent=1))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
