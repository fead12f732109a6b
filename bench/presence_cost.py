"""What presence costs an idle server: CPU seconds and Redis commands per second.

::

    .venv/bin/python bench/presence_cost.py --tables 200 --seconds 60 \\
        [--server-dir /path/to/another/checkout] [--json out.json]

Steps: start a private ``redis-server`` and one server (``SpawnedService``); create
``--tables`` private tables of 4 seats (no clock: no deadline fires while idle), seat 4
players at each, open their 4 sockets (``hello`` with the seat's token, wait for the
``welcome``) and start the game. Then nobody moves: the window of ``--seconds`` begins
after ``--settle`` s and counts the server process's CPU seconds (user + system,
``psutil``), the Redis commands (``INFO commandstats``) and the ``presence`` messages the
sockets got. An idle server spends its CPU on its timers: the presence refresh, the
deadline scan and the bot leases' scan (the last two a few commands a second, whatever
the tables), so the CPU per table and second is the presence's. The figures depend on
nothing that moves (no action rate), only on the machine's speed and the load of
whatever else runs on it (stated in the result: ``machine``).

``--server-dir`` measures another checkout's server (its own ``cli``), to compare before
and after a change on the same machine. CPU seconds vary with what else runs (other
processes' cache misses, frequency scaling); the Python calls the server makes in the
window (cProfile switched on for the window only: bench/profiled.py) and the Redis
commands do not: ``python_calls_per_s`` and ``redis_commands_per_s`` are the figures to
compare; ``--server-env CARDTABLE_PRESENCE_INTERVAL=3600 --server-env
CARDTABLE_PRESENCE_TTL=7200`` gives the floor (the same server and sockets without any
presence work in the window). Profiling slows the server, so its CPU seconds are not
comparable with an unprofiled run's (``--no-profile``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pstats
import signal
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import psutil

from bench.load.host import machine, raise_nofile
from bench.load.redis_monitor import commandstats_delta, redis_commandstats
from bench.load.spawn import SpawnedService
from protocol.connection import ClientConnection, dial
from protocol.frames import pack, unpack, ws_url
from tests.waiting import until

SEATS = 4
PROFILED = Path(__file__).resolve().parent / "profiled.py"


class Player:
    """One player's idle socket; counts the ``presence`` messages it gets."""

    def __init__(self) -> None:
        self.ws: ClientConnection | None = None
        self.presences = 0
        self.reader: asyncio.Task[None] | None = None

    async def open(self, url: str, token: str) -> None:
        """Connect, say hello with ``token`` and wait for the welcome; then keep reading."""
        self.ws = await dial(url, ping_interval=None, max_queue=None, open_timeout=60,
                             close_timeout=1, max_size=2**22)
        await self.ws.send(pack({"t": "hello", "token": token, "last_seq": None}))
        while unpack(await asyncio.wait_for(self.ws.recv(), 60)).get("t") != "welcome":
            pass
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        async for raw in self.ws:
            if isinstance(raw, bytes) and unpack(raw).get("t") == "presence":
                self.presences += 1

    async def close(self) -> None:
        """Close the socket and stop reading."""
        if self.reader is not None:
            self.reader.cancel()
        if self.ws is not None:
            await self.ws.close()


async def seat_table(http: httpx.AsyncClient, base: str, players: list[Player]) -> None:
    """Create a private 4-seat table, seat and connect 4 players, start it."""
    r = await http.post("/api/tables", json={"seats": SEATS, "private": True, "name": "idle"})
    r.raise_for_status()
    summary = r.json()
    tid = summary["id"]
    key = {"X-Table-Key": summary["invite_key"]} if summary.get("invite_key") else {}
    for i in range(SEATS):
        r = await http.post(f"/api/tables/{tid}/join", json={"name": f"p{i}"}, headers=key)
        r.raise_for_status()
        player = Player()
        await player.open(ws_url(base, tid), r.json()["token"])
        players.append(player)
    r = await http.post(f"/api/tables/{tid}/start", json={},
                        headers={"Authorization": f"Bearer {summary['owner_token']}", **key})
    r.raise_for_status()


def calls(stats_file: Path) -> tuple[int, dict[str, int]]:
    """All calls in ``stats_file`` (``pstats``), and those of the presence modules'
    functions by name (their callees in redis-py, the lane and so on are in the first
    figure only)."""
    stats = pstats.Stats(str(stats_file))
    ours: dict[str, int] = {}
    for (filename, _, name), (_, ncalls, *_rest) in stats.stats.items():  # type: ignore[attr-defined]
        if filename.endswith(("play/attendance.py", "play/presence.py",
                              "play/presence_schedule.py", "store/presence.py")):
            key = f"{Path(filename).name}:{name}"
            ours[key] = ours.get(key, 0) + ncalls
    return stats.total_calls, ours  # type: ignore[attr-defined]


async def measure(service: SpawnedService, tables: int, settle: float, seconds: float,
                  concurrency: int, stats_file: Path | None) -> dict[str, Any]:
    """Seat the tables, wait ``settle`` s, then count over ``seconds`` s (module doc);
    with ``stats_file``, the server's Python calls too (it runs under bench/profiled.py)."""
    players: list[Player] = []
    gate = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(base_url=service.url, timeout=60) as http:

        async def one() -> None:
            async with gate:
                await seat_table(http, service.url, players)

        await asyncio.gather(*(one() for _ in range(tables)))
    await asyncio.sleep(settle)
    proc = psutil.Process(service.server_pid)
    if stats_file is not None:
        os.kill(service.server_pid, signal.SIGUSR1)
    cpu0, redis0, told0, t0 = (sum(proc.cpu_times()[:2]), redis_commandstats(service.redis_url),
                               sum(p.presences for p in players), time.monotonic())
    await asyncio.sleep(seconds)
    cpu1, redis1, told1, t1 = (sum(proc.cpu_times()[:2]), redis_commandstats(service.redis_url),
                               sum(p.presences for p in players), time.monotonic())
    profiled: dict[str, Any] = {}
    if stats_file is not None:
        os.kill(service.server_pid, signal.SIGUSR2)
        await until(stats_file.exists, timeout=60, what="the server's call counts")
        await until(lambda: stats_file.stat().st_size > 0, what="the counts written")
        total, ours = calls(stats_file)
        profiled = {"python_calls_per_s": round(total / (t1 - t0)),
                    "presence_functions_calls_per_s": {
                        k: round(v / (t1 - t0), 1)
                        for k, v in sorted(ours.items(), key=lambda kv: -kv[1])}}
    await asyncio.gather(*(p.close() for p in players))
    span = t1 - t0
    commands = commandstats_delta(redis0, redis1)
    return {**profiled,
        "tables": tables, "sockets": len(players), "seconds": round(span, 2),
        "server_cpu_s_per_min": round((cpu1 - cpu0) / span * 60, 3),
        "server_cpu_us_per_table_s": round((cpu1 - cpu0) / span / tables * 1e6, 1),
        "redis_commands_per_s": round(sum(commands.values()) / span, 1),
        "redis_commands_per_s_by_name": {k: round(v / span, 2) for k, v in commands.items()},
        "presence_messages_per_s": round((told1 - told0) / span, 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="the measured window")
    parser.add_argument("--settle", type=float, default=10.0,
                        help="seconds between the last table seated and the window")
    parser.add_argument("--concurrency", type=int, default=8, help="tables seated at once")
    parser.add_argument("--server-dir", type=Path, default=None,
                        help="the checkout whose server to measure (default: this one)")
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting of the server (repeatable), e.g. "
                             "CARDTABLE_PRESENCE_INTERVAL=3600 for the floor without presence")
    parser.add_argument("--no-profile", action="store_true",
                        help="no cProfile in the server: CPU seconds comparable to production")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args(argv)
    raise_nofile(args.tables * SEATS * 2 + 1024)
    host = machine()
    env = dict(item.split("=", 1) for item in args.server_env)
    with tempfile.TemporaryDirectory(prefix="presence-cost-") as tmp:
        stats_file = None if args.no_profile else Path(tmp) / "server.prof"
        command = None if stats_file is None else [sys.executable, str(PROFILED),
                                                   str(stats_file)]
        with SpawnedService(server_dir=args.server_dir, env=env, command=command) as service:
            result = asyncio.run(measure(service, args.tables, args.settle, args.seconds,
                                         args.concurrency, stats_file))
    result["machine"] = host
    result["server_dir"] = str(args.server_dir or Path(__file__).resolve().parents[1])
    result["server_env"] = env
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
