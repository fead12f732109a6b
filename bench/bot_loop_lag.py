"""Event loop lag of a server whose bots search: does a bot move block the event loop?

::

    .venv/bin/python -m bench.bot_loop_lag                       # 4 tables of 4 mcts bots
    .venv/bin/python -m bench.bot_loop_lag --workers 0           # searches in a thread
    .venv/bin/python -m bench.bot_loop_lag --tables 0            # the idle server
    .venv/bin/python -m bench.bot_loop_lag --nice -10       # shielded from other work
    .venv/bin/python -m bench.bot_loop_lag --json /tmp/lag.json

Starts a private Redis and ``cardtable serve`` (``bench.load.spawn.SpawnedService``, not pinned to
a core, so the search workers may use every core), creates ``--tables`` tables whose
``--players`` seats all hold ``--kind`` bots (``mcts`` at ``--level``, 3 by default: about
150 iterations, 100-400 ms a move), starts them with one spectator socket each (so every
move is also fanned out), and lets the bots play with ``--delay`` seconds of think delay
(``CARDTABLE_BOT_DELAY``) and ``--workers`` search processes (``CARDTABLE_BOT_WORKERS``; 0:
a thread). A finished table is replaced by a new one, so the load stays the same.

The lag is measured inside the server: ``server.metrics.watch_event_loop`` sleeps 10 ms
in a loop and records how late it woke up (``cardtable_event_loop_lag_seconds``) and the CPU
time the loop's thread used meanwhile (``cardtable_event_loop_busy_seconds``), with the
largest of each since the start in ``…_max_seconds`` gauges. The script reads
``/metrics`` after ``--warmup`` seconds and again after ``--duration`` more, and reports
from the difference (the window only): samples, p50/p99/p99.9 (interpolated inside the
histogram buckets, as Prometheus' ``histogram_quantile`` does), the samples over 5 ms, the
highest bucket reached, and the exact maximum when it was reached inside the window.

*Lag* counts everything that keeps the loop from running: code that does not yield, the
GIL held by another thread, and a CPU the process did not get (other work on a shared
machine: run ``--tables 0`` for that baseline). *Busy* is the loop's own work only: a
callback cannot span two samples (the monitor cannot wake during it), so the largest busy
sample bounds the CPU time of the longest callback, e.g. one bot move's validation,
storage and fan-out, from above.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from bench.load.host import exit_on_sigterm, machine, prioritized
from bench.load.spawn import SpawnedService
from protocol.connection import dial
from protocol.frames import pack, unpack, ws_url

LAG = "cardtable_event_loop_lag_seconds"
BUSY = "cardtable_event_loop_busy_seconds"
TARGET = 0.005
"""Issue 5: a bot move never blocks the server's event loop for more than 5 ms."""


def parse_histogram(text: str, name: str) -> dict[str, Any]:
    """Histogram ``name`` of a ``/metrics`` text: cumulative ``buckets`` ``[(le, count)]``
    (``le`` in seconds, the last one ``inf``), ``count``, ``sum``, and ``max`` from the
    gauge ``<name without _seconds>_max_seconds``."""
    gauge = name.removesuffix("_seconds") + "_max_seconds"
    buckets: list[tuple[float, float]] = []
    out: dict[str, Any] = {"count": 0.0, "sum": 0.0, "max": 0.0}
    for line in text.splitlines():
        if line.startswith(f"{name}_bucket"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((math.inf if le == "+Inf" else float(le), float(line.split()[-1])))
        elif line.startswith(f"{name}_count"):
            out["count"] = float(line.split()[-1])
        elif line.startswith(f"{name}_sum"):
            out["sum"] = float(line.split()[-1])
        elif line.startswith(gauge + " "):
            out["max"] = float(line.split()[-1])
    out["buckets"] = sorted(buckets)
    return out


def window(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The histogram of the samples taken between two ``parse_lag`` snapshots."""
    b0 = dict(before["buckets"])
    return {"count": after["count"] - before["count"], "sum": after["sum"] - before["sum"],
            "buckets": [(le, c - b0.get(le, 0.0)) for le, c in after["buckets"]]}


def quantile(q: float, buckets: list[tuple[float, float]]) -> float:
    """``histogram_quantile``: the q-quantile (seconds) of cumulative ``buckets``, linear
    inside the bucket it falls in (the top finite bound if it falls in ``+Inf``)."""
    total = buckets[-1][1] if buckets else 0.0
    if total <= 0:
        return math.nan
    rank = q * total
    lower, below = 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if math.isinf(le):
                return lower
            inside = count - below
            return lower + (le - lower) * ((rank - below) / inside if inside else 0.0)
        lower, below = le, count
    return lower


def top_bucket(buckets: list[tuple[float, float]]) -> tuple[float, float]:
    """``(lower, upper)`` bounds (seconds) of the highest bucket that holds a sample."""
    lower, below, found = 0.0, 0.0, (0.0, 0.0)
    for le, count in buckets:
        if count > below:
            found = (lower, le)
        lower, below = le, count
    return found


class Tables:
    """Keeps ``n`` tables of bots playing, with one spectator each; counts the deltas
    (events) the spectators receive and the games finished."""

    def __init__(self, url: str, n: int, players: int, kind: str, level: int | None) -> None:
        self.url, self.n, self.players, self.kind, self.level = url, n, players, kind, level
        self.http = httpx.AsyncClient(base_url=url, timeout=30)
        self.deltas = 0
        self.games = 0
        self.tasks: list[asyncio.Task[None]] = []

    async def _table(self) -> tuple[str, str]:
        r = await self.http.post("/api/tables", json={"seats": self.players, "options": {}})
        r.raise_for_status()
        table = r.json()
        body: dict[str, Any] = {"kind": self.kind}
        if self.level is not None:
            body["level"] = self.level
        for seat in range(self.players):
            (await self.http.post(f"/api/tables/{table['id']}/seats/{seat}/bot", json=body,
                                  headers={"Authorization": f"Bearer {table['owner_token']}"})
             ).raise_for_status()
        return table["id"], table["owner_token"]

    async def _run_one(self) -> None:
        while True:
            tid, owner = await self._table()
            async with dial(ws_url(self.url, tid), max_size=2**22,
                            ping_interval=None) as ws:
                await ws.send(pack({"t": "hello", "token": None, "last_seq": None}))
                (await self.http.post(f"/api/tables/{tid}/start",
                                      headers={"Authorization": f"Bearer {owner}"})
                 ).raise_for_status()
                async for frame in ws:
                    msg = unpack(frame)
                    if msg.get("t") != "deltas":
                        continue
                    self.deltas += len(msg["events"])
                    if any(e["event"]["type"] == "game_ended" for e in msg["events"]):
                        self.games += 1
                        break

    def start(self) -> None:
        """Start the table loops."""
        self.tasks = [asyncio.create_task(self._run_one()) for _ in range(self.n)]

    async def stop(self) -> None:
        """Stop the table loops."""
        for t in self.tasks:
            t.cancel()
        for t in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        await self.http.aclose()


async def scrape(url: str) -> dict[str, dict[str, Any]]:
    async with httpx.AsyncClient(timeout=30) as http:
        text = (await http.get(f"{url}/metrics")).text
    return {"lag": parse_histogram(text, LAG), "busy": parse_histogram(text, BUSY)}


def summarize(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Figures (ms) of one histogram over the window between two snapshots."""
    win = window(before, after)
    buckets, count = win["buckets"], win["count"]
    within = next((c for le, c in buckets if le >= TARGET), count) if buckets else count
    lo, hi = top_bucket(buckets)
    return {
        "samples": int(count),
        "mean_ms": round(1000 * win["sum"] / count, 3) if count else None,
        "p50_ms": round(1000 * quantile(0.5, buckets), 3),
        "p99_ms": round(1000 * quantile(0.99, buckets), 3),
        "p999_ms": round(1000 * quantile(0.999, buckets), 3),
        "over_5ms": int(count - within),
        "over_5ms_share": round((count - within) / count, 5) if count else None,
        "max_bucket_ms": [round(1000 * lo, 2), round(1000 * hi, 2)],
        # The gauge holds the maximum since the start: exact for the window only when
        # it grew during the window.
        "max_ms": round(1000 * after["max"], 3) if after["max"] > before["max"] else None,
        "max_since_start_ms": round(1000 * after["max"], 3),
    }


async def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    tables = Tables(url, args.tables, args.players, args.kind,
                    args.level if args.kind == "mcts" else None)
    tables.start()
    try:
        await asyncio.sleep(args.warmup)
        before = await scrape(url)
        t0, deltas0 = time.monotonic(), tables.deltas
        await asyncio.sleep(args.duration)
        after = await scrape(url)
        elapsed, deltas = time.monotonic() - t0, tables.deltas - deltas0
    finally:
        await tables.stop()
    return {"seconds": round(elapsed, 1), "games_finished": tables.games,
            "events_in_window": deltas,
            "lag": summarize(before["lag"], after["lag"]),
            "busy": summarize(before["busy"], after["busy"])}


def report(result: dict[str, Any]) -> str:
    """A human-readable summary of one run."""
    s, m = result["settings"], result["measured"]
    lines = [
        f"{result['date']}  {result['machine']['cpu']}, {result['machine']['cores']} cores, "
        f"load {result['machine']['load_average_1m']} (start) / {result['load_after']} (end)",
        f"{s['tables']} tables x {s['players']} {s['kind']}"
        + (f" level {s['level']}" if s["kind"] == "mcts" else "")
        + f" bots, delay {s['delay']} s, workers {s['workers']}, nice {s['nice']}, "
        f"window {m['seconds']} s after {s['warmup']} s warm-up; "
        f"{m['events_in_window']} events, {m['games_finished']} games finished",
    ]
    for key, what in (("lag", "lag (wall)"), ("busy", "busy (loop CPU per sample)")):
        f = m[key]
        lines.append(
            f"{what}: {f['samples']} samples, mean {f['mean_ms']} ms, p50 {f['p50_ms']} ms, "
            f"p99 {f['p99_ms']} ms, p99.9 {f['p999_ms']} ms; over 5 ms {f['over_5ms']} "
            f"({f['over_5ms_share']}); highest bucket {f['max_bucket_ms'][0]}-"
            f"{f['max_bucket_ms'][1]} ms; max in window "
            f"{f['max_ms'] if f['max_ms'] is not None else '(not above the warm-up max)'}; "
            f"max since start {f['max_since_start_ms']} ms")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one measurement; prints the report (and writes ``--json``)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=4)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--kind", default="mcts", choices=["random", "greedy", "mcts"])
    p.add_argument("--level", type=int, default=3)
    p.add_argument("--workers", type=int, default=2, help="CARDTABLE_BOT_WORKERS (0: thread)")
    p.add_argument("--delay", type=float, default=0.2, help="CARDTABLE_BOT_DELAY (seconds)")
    p.add_argument("--warmup", type=float, default=10.0)
    p.add_argument("--duration", type=float, default=60.0)
    p.add_argument("--nice", type=int, default=0,
                   help="niceness of the server, Redis and this session's autogroup "
                        "(negative needs root): shields the run from other work")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    exit_on_sigterm()
    env = {"CARDTABLE_BOT_DELAY": str(args.delay), "CARDTABLE_BOT_WORKERS": str(args.workers),
           "CARDTABLE_LOG_LEVEL": "warning"}
    info = machine()
    with prioritized(args.nice), SpawnedService(server_core=None, redis_core=None, env=env,
                                                nice=args.nice) as svc:
        lag = asyncio.run(measure(svc.url, args))
    result = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": info, "load_after": round(os.getloadavg()[0], 2),
        "settings": {k: v for k, v in vars(args).items() if k != "json"}, "measured": lag,
    }
    print(report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
