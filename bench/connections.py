"""Idle websocket connections: server RSS per connection, and reconnect throughput.

::

    .venv/bin/python -m bench.connections --spawn-server --connections 20000 \\
        --json /tmp/connections.json

Steps: create one table, seat its players (no sockets for them) and start it, so the
spectators watch a live game; open ``--warmup`` spectator sockets (not counted; they warm
the server's allocator and code paths); read the server's RSS; open ``--connections``
more spectator sockets (``hello`` with no token, each waits for its ``welcome``), at most
``--concurrency`` handshakes in flight; wait ``--settle`` seconds and read the RSS again.
RSS per connection = (after - before) / K.

Then the reconnect storm: every one of the K sockets is dropped at once (the TCP
connection is aborted, as when a network goes away) and reconnects with ``last_seq`` set
to the seq it had; the figure is the time from the drop until every socket has its new
``welcome``. Finally one action is played and every reconnected socket must receive its
delta (no socket lost by the storm).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import psutil
import uvloop

from bench.load.host import exit_on_sigterm, machine, pin_self, prioritized, raise_nofile
from bench.load.probe import find_server_pid
from bench.load.spawn import SpawnedService
from bench.load.tracking import summarize_ns
from protocol.connection import ClientConnection, dial
from protocol.frames import pack, unpack, ws_url


class Spectator:
    """One idle spectator socket and the seq it has seen."""

    __slots__ = ("seq", "ws")

    def __init__(self) -> None:
        self.ws: ClientConnection | None = None
        self.seq = 0

    async def open(self, url: str, last_seq: int | None, source: str | None) -> None:
        """Connect, say hello, and wait for the welcome (and the deltas it announces)."""
        kwargs: dict[str, Any] = {"local_addr": (source, 0)} if source else {}
        self.ws = await dial(url, ping_interval=None, max_queue=None,
                             open_timeout=60, close_timeout=1, max_size=2**22, **kwargs)
        await self.ws.send(pack({"t": "hello", "token": None, "last_seq": last_seq}))
        while True:
            msg = unpack(await asyncio.wait_for(self.ws.recv(), 60))
            if msg.get("t") == "welcome":
                self.seq = msg["seq"]
                return
            if msg.get("t") == "error":
                raise RuntimeError(f"error {msg.get('code')}: {msg.get('message')}")

    def drop(self) -> None:
        """Abort the TCP connection (no closing handshake), as a dead network would."""
        if self.ws is not None:
            self.ws.transport.abort()
            self.ws = None

    async def wait_seq(self, seq: int) -> int:
        """Read frames until the one ending at ``seq``; returns the receipt time
        (perf_counter_ns)."""
        assert self.ws is not None
        while True:
            msg = unpack(await self.ws.recv())
            if msg.get("t") == "deltas":
                if msg["prev"] != self.seq:
                    raise RuntimeError(f"gap or duplicate: had {self.seq}, got {msg['prev']}+")
                self.seq = msg["seq"]
                if self.seq >= seq:
                    return time.perf_counter_ns()


async def open_many(spectators: Sequence[Spectator], url: str, concurrency: int,
                    sources: int, last_seq: Any = None) -> tuple[float, list[str]]:
    """Open every spectator (at most ``concurrency`` handshakes at once).

    ``last_seq``: ``None`` for a fresh connection, ``"own"`` to resume from each
    spectator's seq. Returns (seconds, error texts).
    """
    gate = asyncio.Semaphore(concurrency)
    errors: list[str] = []

    async def one(i: int, s: Spectator) -> None:
        source = f"127.0.0.{1 + i % sources}" if sources > 1 else None
        async with gate:
            try:
                await s.open(url, s.seq if last_seq == "own" else None, source)
            except Exception as e:
                errors.append(f"{type(e).__name__}: {e}")

    t0 = time.perf_counter()
    await asyncio.gather(*(one(i, s) for i, s in enumerate(spectators)))
    return time.perf_counter() - t0, errors


async def run_connections(url: str, k: int, *, warmup: int = 100, concurrency: int = 500,
                          settle: float = 3.0, sources: int = 1,
                          server_pid: int | None = None) -> dict[str, Any]:
    """Open ``k`` idle spectators on one live table, then drop and reconnect them all."""
    raise_nofile(2 * (k + warmup) + 1024)
    proc = psutil.Process(server_pid) if server_pid else None
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        r = await http.post("/api/tables", json={"game": "einauge", "seats": 2,
                                                 "options": {}, "name": "connections"})
        r.raise_for_status()
        table, owner = r.json()["id"], r.json()["owner_token"]
        tokens = []
        for i in range(2):
            j = await http.post(f"/api/tables/{table}/join", json={"name": f"p{i}"})
            j.raise_for_status()
            tokens.append(j.json()["token"])
        (await http.post(f"/api/tables/{table}/start", json={},
                         headers={"Authorization": f"Bearer {owner}"})).raise_for_status()
    address = ws_url(url, table)

    warm = [Spectator() for _ in range(warmup)]
    _, warm_errors = await open_many(warm, address, concurrency, sources)
    await asyncio.sleep(settle)
    rss0 = proc.memory_info().rss if proc else None
    fds0 = proc.num_fds() if proc else None

    spectators = [Spectator() for _ in range(k)]
    open_s, open_errors = await open_many(spectators, address, concurrency, sources)
    await asyncio.sleep(settle)
    rss1 = proc.memory_info().rss if proc else None
    fds1 = proc.num_fds() if proc else None
    opened = sum(1 for s in spectators if s.ws is not None)

    # the storm: drop all at once, then every client reconnects with its last seq
    t0 = time.perf_counter()
    for s in spectators:
        s.drop()
    _, storm_errors = await open_many(spectators, address, concurrency, sources, "own")
    storm_total = time.perf_counter() - t0
    reconnected = sum(1 for s in spectators if s.ws is not None)

    # one action: every reconnected socket must get its delta (nothing lost in the storm)
    delivery: dict[str, Any] | None = None
    live = [s for s in spectators if s.ws is not None]
    async with dial(ws_url(url, table), ping_interval=None) as player:
        await player.send(pack({"t": "hello", "token": tokens[0], "last_seq": None}))
        prompt = None
        while prompt is None:
            msg = unpack(await asyncio.wait_for(player.recv(), 30))
            if msg.get("t") == "prompt":
                prompt = msg
        t_send = time.perf_counter_ns()
        await player.send(pack({"t": "action", "id": "c1",
                                "action": dict(prompt["legal_actions"][0])}))
        ack_seq = None
        while ack_seq is None:
            msg = unpack(await asyncio.wait_for(player.recv(), 30))
            if msg.get("t") == "ack":
                ack_seq = msg["seq"]
            elif msg.get("t") == "error":
                raise RuntimeError(f"action refused: {msg}")
        times = await asyncio.wait_for(asyncio.gather(*(s.wait_seq(ack_seq) for s in live),
                                                      return_exceptions=True), 120)
        ok = [t - t_send for t in times if isinstance(t, int)]
        delivery = summarize_ns(ok)
        delivery["failed"] = len(times) - len(ok)

    for s in spectators + warm:
        if s.ws is not None:
            with contextlib.suppress(Exception):
                s.ws.transport.abort()

    errors = warm_errors + open_errors + storm_errors
    per_conn = (rss1 - rss0) / opened if proc and opened else None
    return {
        "kind": "connections",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        "config": {"url": url, "connections": k, "warmup": warmup, "concurrency": concurrency,
                   "settle": settle, "sources": sources},
        "opened": opened,
        "open_s": round(open_s, 3),
        "opens_per_s": round(opened / open_s, 1) if open_s else None,
        "server_rss_mib_before": round(rss0 / 2**20, 1) if rss0 else None,
        "server_rss_mib_after": round(rss1 / 2**20, 1) if rss1 else None,
        "server_fds_before": fds0,
        "server_fds_after": fds1,
        "rss_kib_per_connection": round(per_conn / 1024, 2) if per_conn is not None else None,
        "reconnected": reconnected,
        "reconnect_s": round(storm_total, 3),
        "reconnects_per_s": round(reconnected / storm_total, 1) if storm_total else None,
        "delivery_after_reconnect_ms": delivery,
        "errors": len(errors),
        "error_samples": errors[:10],
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the connection benchmark; prints the report; 1 when errors occurred."""
    p = argparse.ArgumentParser(prog="bench.connections", description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000", help="service base address")
    p.add_argument("--server-pid", type=int, help="server pid (default: found from the port)")
    p.add_argument("--spawn-server", action="store_true",
                   help="start redis-server and `python -m cli serve` (core 1) for this run")
    p.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for `cardtable serve` with --spawn-server")
    p.add_argument("--connections", "-k", type=int, default=1000,
                   help="idle spectator sockets to open (default 1000)")
    p.add_argument("--warmup", type=int, default=100, help="uncounted sockets opened first")
    p.add_argument("--concurrency", type=int, default=500, help="handshakes in flight")
    p.add_argument("--settle", type=float, default=3.0, help="seconds before reading RSS")
    p.add_argument("--sources", type=int, default=1,
                   help="spread sockets over 127.0.0.1..127.0.0.N (default 1)")
    p.add_argument("--server-dir", type=Path,
                   help="with --spawn-server: run the server of this checkout")
    p.add_argument("--nice", type=int, default=0,
                   help="with --spawn-server: niceness of generator, server and Redis")
    p.add_argument("--json", type=Path, help="write the result here as JSON")
    args = p.parse_args(argv)
    exit_on_sigterm()
    if args.connections < 1:
        raise SystemExit("bench.connections: --connections must be at least 1")
    nofile = raise_nofile(2 * (args.connections + args.warmup) + 4096)
    service = None
    url, pid = args.url, args.server_pid
    if not args.spawn_server and pid is None:
        pid = find_server_pid(httpx.URL(url).port or 80)
    with prioritized(args.nice if args.spawn_server else 0):
        try:
            if args.spawn_server:
                service = SpawnedService(serve_args=args.serve_arg, nofile=max(nofile, 65536),
                                         nice=args.nice, server_dir=args.server_dir).start()
                url, pid = service.url, service.server_pid
                pin_self(0, args.nice)
            r = uvloop.run(run_connections(url, args.connections, warmup=args.warmup,
                                            concurrency=args.concurrency, settle=args.settle,
                                            sources=args.sources, server_pid=pid))
        finally:
            if service is not None:
                service.stop()
    print(f"{r['opened']}/{args.connections} idle spectators opened in {r['open_s']} s "
          f"({r['opens_per_s']}/s); server RSS {r['server_rss_mib_before']} -> "
          f"{r['server_rss_mib_after']} MiB = {r['rss_kib_per_connection']} KiB per connection;"
          f" fds {r['server_fds_before']} -> {r['server_fds_after']}")
    print(f"reconnect storm: {r['reconnected']} reconnected in {r['reconnect_s']} s "
          f"({r['reconnects_per_s']}/s); one delta after it: {r['delivery_after_reconnect_ms']}")
    print(f"errors: {r['errors']} {r['error_samples'][:3]}")
    if args.json:
        args.json.write_text(json.dumps(r, indent=1) + "\n")
    return 1 if r["errors"] or (r["delivery_after_reconnect_ms"] or {}).get("failed") else 0


if __name__ == "__main__":
    sys.exit(main())
