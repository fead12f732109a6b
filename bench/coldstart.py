"""Cold start: a fresh server process serving many stored tables it has never loaded.

::

    .venv/bin/python -m bench.coldstart --tables 10000 --events 100 --json /tmp/cold.json

Steps (always with its own Redis and server, ``--spawn-server`` style):

1. ``--templates`` tables are created and played through the real server (websocket
   players, random legal actions) until each has at least ``--events`` stored events.
2. Each template is cloned in Redis under new table ids until there are ``--tables``
   stored tables: the same meta, events and action ids, with the hash chain recomputed
   for the new id (``engine.chain``), so every clone is a valid table of its own.
3. The server process is restarted (empty cache), then for every stored table a player
   connects (the seat to move), waits for its ``welcome`` (the server rebuilds the table
   by replaying its events on demand) and its ``prompt``, and sends one random legal
   action; ``--concurrency`` tables at a time.

Reported: per table, connect → ``welcome`` (rebuild), action → ``ack``, and connect →
``ack`` (the first action as the player lives it), p50/p99/max; the server's RSS before
and after, and errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import psutil
import redis
import uvloop

from bench.load.config import LoadConfig
from bench.load.host import exit_on_sigterm, machine, pin_self, prioritized, raise_nofile
from bench.load.spawn import SpawnedService
from bench.load.table import TableRun
from bench.load.tracking import Stats, summarize_ns
from engine import get_game
from engine.chain import genesis, link
from protocol.connection import dial
from protocol.frames import pack, unpack, ws_url
from server.store import streams as store
from server.store.sealing import SeedSeal


async def make_templates(url: str, count: int, events: int) -> list[tuple[str, list[str]]]:
    """Play ``count`` tables to at least ``events`` stored events; returns (id, tokens)."""
    cfg = LoadConfig(url=url, tables=count, spectators=0, rate=0)
    stats = Stats()
    out = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:

        async def one(i: int) -> None:
            table = TableRun(cfg, stats, http, random.Random(i))
            await table.setup()
            await table.drive(float("inf"), stop_seq=events)
            out.append((table.id, [s.token for s in table.players]))
            await table.finish()

        await asyncio.gather(*(one(i) for i in range(count)))
    if stats.errors:
        raise RuntimeError(f"errors while playing the templates: {stats.errors}")
    return out


def clone_tables(redis_url: str, templates: list[tuple[str, list[str]]], total: int,
                 seal: SeedSeal) -> list[tuple[str, list[str], str]]:
    """Copy the templates in Redis until ``total`` tables exist; returns
    (id, tokens, template id) for every table, the templates included. The copies hold
    their seed and entries opened (``seal``: the server's keys; a sealed value is bound to
    its table id), which the server reads as values stored before sealing."""
    r = redis.Redis.from_url(redis_url)
    made = [(tid, tokens, tid) for tid, tokens in templates]
    sources = []
    for tid, tokens in templates:
        meta = {k.decode(): v.decode() for k, v in r.hgetall(store.meta_key(tid)).items()}
        meta["server_seed"] = seal.open(meta["server_seed"], tid)
        entries = [seal.open_entry(store.unpack(b), tid)
                   for b in r.lrange(store.events_key(tid), 0, -1)]
        acts = r.hgetall(store.acts_key(tid))
        game = get_game(meta["game"])
        publics = [game.project(game.events.decode(e["e"]), None) for e in entries]
        sources.append((tid, meta, entries, publics, acts, tokens))
    i = 0
    pipe = r.pipeline(transaction=False)
    while len(made) < total:
        template, meta, entries, publics, acts, tokens = sources[i % len(sources)]
        i += 1
        new_id = secrets.token_urlsafe(9)
        head = genesis(new_id, meta["commitment"])
        packed = []
        for entry, public in zip(entries, publics, strict=True):
            head = link(head, public)
            packed.append(store.pack({**entry, "h": head.hex()}))
        pipe.hset(store.meta_key(new_id), mapping={**meta, "head": head.hex()})
        pipe.rpush(store.events_key(new_id), *packed)
        if acts:
            pipe.hset(store.acts_key(new_id), mapping=acts)
        made.append((new_id, tokens, template))
        if len(made) % 200 == 0:
            pipe.execute()
    pipe.execute()
    r.close()
    return made


async def first_actions(url: str, tables: list[tuple[str, list[str], str]],
                        seat_to_move: dict[str, int], concurrency: int) -> dict[str, Any]:
    """Connect the seat to move of every table, wait for welcome and prompt, act once."""
    welcome_ns: list[int] = []
    ack_ns: list[int] = []
    total_ns: list[int] = []
    errors: list[str] = []
    queue = list(tables)
    rng = random.Random(7)

    async def worker() -> None:
        while queue:
            tid, tokens, template = queue.pop()
            try:
                t0 = time.perf_counter_ns()
                async with dial(ws_url(url, tid), ping_interval=None,
                                open_timeout=30, max_size=2**22) as ws:
                    await ws.send(pack({"t": "hello", "token": tokens[seat_to_move[template]],
                                        "last_seq": None}))
                    prompt = None
                    while prompt is None:
                        msg = unpack(await asyncio.wait_for(ws.recv(), 30))
                        if msg["t"] == "welcome":
                            t1 = time.perf_counter_ns()
                        elif msg["t"] == "prompt":
                            prompt = msg
                        elif msg["t"] == "error":
                            raise RuntimeError(msg["code"])
                    t2 = time.perf_counter_ns()
                    await ws.send(pack({"t": "action", "id": "cold",
                                        "action": rng.choice(prompt["legal_actions"])}))
                    while True:
                        msg = unpack(await asyncio.wait_for(ws.recv(), 30))
                        if msg["t"] == "ack":
                            break
                        if msg["t"] == "error":
                            raise RuntimeError(msg["code"])
                    t3 = time.perf_counter_ns()
                welcome_ns.append(t1 - t0)
                ack_ns.append(t3 - t2)
                total_ns.append(t3 - t0)
            except Exception as e:
                errors.append(f"{tid}: {type(e).__name__} {e}")

    t = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - t
    return {
        "tables": len(tables),
        "wall_s": round(wall, 2),
        "tables_per_s": round(len(tables) / wall, 1),
        "connect_to_welcome_ms": summarize_ns(welcome_ns),
        "action_to_ack_ms": summarize_ns(ack_ns),
        "connect_to_ack_ms": summarize_ns(total_ns),
        "errors": len(errors),
        "error_samples": errors[:5],
    }


def measure(service: SpawnedService, args: argparse.Namespace) -> dict[str, Any]:
    """Templates, clones, restart, first actions; returns the figures."""
    t = time.perf_counter()
    templates = uvloop.run(make_templates(service.url, args.templates, args.events))
    played_s = time.perf_counter() - t
    seat_to_move = {}
    for tid, _ in templates:
        view = httpx.get(f"{service.url}/api/tables/{tid}/view", timeout=30).json()
        seat_to_move[tid] = view["current_seat"]
    t = time.perf_counter()
    tables = clone_tables(service.redis_url, templates, args.tables,
                          SeedSeal.at(service.server_dir / "var" / "seed-keys"))
    cloned_s = time.perf_counter() - t
    events = redis.Redis.from_url(service.redis_url).llen(
        store.events_key(templates[0][0]))
    service.restart_server()
    proc = psutil.Process(service.server_pid)
    rss0 = proc.memory_info().rss
    result = uvloop.run(first_actions(service.url, tables, seat_to_move, args.concurrency))
    rss1 = proc.memory_info().rss
    return {
        "events_per_table_first_template": events,
        "templates_played_s": round(played_s, 1),
        "cloned_s": round(cloned_s, 1),
        "server_rss_mib_after_restart": round(rss0 / 2**20, 1),
        "server_rss_mib_after_all_loaded": round(rss1 / 2**20, 1),
        **result,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Build the stored tables, restart the server, measure first actions."""
    p = argparse.ArgumentParser(prog="bench.coldstart", description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=10_000, help="stored tables (default 10000)")
    p.add_argument("--events", type=int, default=100, help="events per table (default 100)")
    p.add_argument("--templates", type=int, default=20, help="tables really played (20)")
    p.add_argument("--concurrency", type=int, default=20, help="tables measured at once (20)")
    p.add_argument("--server-dir", type=Path,
                   help="run the server of this checkout (default: this one)")
    p.add_argument("--nice", type=int, default=0,
                   help="niceness of generator, server and Redis (e.g. -15; needs root)")
    p.add_argument("--json", type=Path, help="write the result here as JSON")
    args = p.parse_args(argv)
    exit_on_sigterm()
    if not 1 <= args.templates <= args.tables:
        raise SystemExit("bench.coldstart: need 1 <= --templates <= --tables")
    raise_nofile(4 * args.concurrency + 1024)
    host = machine()
    with prioritized(args.nice):
        service = SpawnedService(nice=args.nice, server_dir=args.server_dir).start()
        try:
            pin_self(0, args.nice)
            r = measure(service, args)
        finally:
            service.stop()
    result = {
        "kind": "coldstart",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": host,
        "config": vars(args) | {"json": str(args.json) if args.json else None},
        **r,
    }
    c, w, a = (result["connect_to_ack_ms"], result["connect_to_welcome_ms"],
               result["action_to_ack_ms"])
    print(f"{result['tables']} stored tables "
          f"(~{result['events_per_table_first_template']} events each), fresh process, "
          f"{args.concurrency} at a time: {result['tables_per_s']} tables/s")
    print(f"connect->ack ms p50 {c['p50']} p99 {c['p99']} max {c['max']}; connect->welcome "
          f"p50 {w['p50']} p99 {w['p99']}; action->ack p50 {a['p50']} p99 {a['p99']}")
    print(f"server RSS {result['server_rss_mib_after_restart']} -> "
          f"{result['server_rss_mib_after_all_loaded']} MiB; errors {result['errors']} "
          f"{result['error_samples'][:2]}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str) + "\n")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
