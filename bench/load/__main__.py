"""Load generator for the live service: real tables, real websocket players and spectators.

Run against a service that is already up (``--url``, ``--redis-url``, ``--server-pid``) or
let it start its own (``--spawn-server``: a private ``redis-server`` on a free port and
``python -m cli serve`` pinned to core 1, the generator pinned to core 0)::

    .venv/bin/python -m bench.load --spawn-server --tables 1000 --spectators 4 \\
        --rate 1 --duration 60 --json /tmp/load.json

What it does, per table: create it (HTTP lobby API), join every seat (one token each),
connect one websocket per seat and ``--spectators`` spectator sockets, start it, then act
at ``--rate`` actions per second (jittered): the seat the server prompted picks a random
action from the ``legal_actions`` of its ``prompt`` and sends it, so every action crosses
the wire and the full validated path. When a game ends a new table takes its place (unless
``--until-end``), so the load stays steady for ``--duration`` seconds.

What it measures (one process, ``time.perf_counter_ns``):

- accepted actions per second (acks inside the measured window);
- action latency: send of the ``action`` frame to receipt of its ``ack``;
- delta delivery latency to players and to spectators: the action's send time, keyed by
  table and the ``seq`` of its ack, to the receipt of the ``deltas`` frame ending at that
  ``seq`` on each socket (one frame per action: the socket has the whole effect);
- gaps, duplicates and missing deltas per socket (all must be 0), errors by code;
- the server's CPU seconds per 1,000 accepted actions, its share of one core and its RSS
  (psutil on ``--server-pid`` or the process listening on the port);
- Redis commands per accepted action from ``INFO commandstats`` taken before and after
  the window (script calls: ``evalsha``/``eval``/``fcall``; commands a script runs inside
  Redis are counted by Redis too and are listed separately, they are not round trips).

Everything is printed as a short report and, with ``--json FILE``, written as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as ``python bench/load``: import the project
    sys.path[0] = str(Path(__file__).resolve().parents[2])

import httpx
import uvloop

from bench.load.config import LoadConfig
from bench.load.host import exit_on_sigterm, pin_self, prioritized, raise_nofile
from bench.load.probe import find_server_pid
from bench.load.run import format_report, run_load
from bench.load.spawn import SpawnedService


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m bench.load``."""
    p = argparse.ArgumentParser(prog="bench.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000", help="service base address")
    p.add_argument("--redis-url", help="the service's Redis, for INFO commandstats")
    p.add_argument("--server-pid", type=int, help="server pid (default: found from the port)")
    p.add_argument("--spawn-server", action="store_true",
                   help="start redis-server and `python -m cli serve` (core 1) for this run")
    p.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for `cardtable serve` with --spawn-server (repeatable)")
    p.add_argument("--server-dir", type=Path,
                   help="with --spawn-server: run the server of this checkout (default: this one)")
    p.add_argument("--game", default="einauge", help="the game of every table (default einauge)")
    p.add_argument("--tables", type=int, default=10, help="concurrent tables (default 10)")
    p.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N",
                   help="seats per table, 2-5 (default 4)")
    p.add_argument("--spectators", type=int, default=4, help="spectators per table (default 4)")
    p.add_argument("--rate", type=float, default=1.0,
                   help="actions per second per table; 0 = as fast as acks come (default 1)")
    p.add_argument("--jitter", type=float, default=0.5,
                   help="interval jitter, fraction of the interval (default 0.5)")
    p.add_argument("--duration", type=float, default=30.0, help="measured seconds (default 30)")
    p.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds first")
    p.add_argument("--until-end", action="store_true",
                   help="play the first tables to their end; start no new ones")
    p.add_argument("--setup-concurrency", type=int, default=50,
                   help="tables set up at once (default 50)")
    p.add_argument("--sources", type=int, default=1,
                   help="spread sockets over 127.0.0.1..127.0.0.N (default 1)")
    p.add_argument("--client", choices=("sansio", "asyncio"), default="sansio",
                   help="client sockets: websockets' sans-I/O protocol on asyncio (default, "
                        "cheap per frame) or its asyncio client with a task per socket")
    p.add_argument("--redis-monitor", action="store_true",
                   help="count client vs. script commands with MONITOR (slows Redis)")
    p.add_argument("--clocked", action="store_true",
                   help="public tables with the default clock (default: private, no clock)")
    p.add_argument("--seed", type=int, default=1, help="seed of the players' random choices")
    p.add_argument("--nice", type=int, default=0,
                   help="with --spawn-server: niceness of the generator, server and Redis "
                        "(e.g. -15 on a machine shared with other work; needs root)")
    p.add_argument("--generator-core", type=int, default=0,
                   help="core of the generator with --spawn-server (default 0)")
    p.add_argument("--json", type=Path, help="write the result here as JSON")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load test; prints the report; 1 when gaps, duplicates or errors occurred."""
    args = build_parser().parse_args(argv)
    exit_on_sigterm()
    if args.tables < 1 or args.spectators < 0 or args.rate < 0 or args.duration <= 0:
        raise SystemExit("bench.load: need --tables >= 1, --spectators >= 0, --rate >= 0, "
                         "--duration > 0")
    cfg = LoadConfig(
        url=args.url, game=args.game, tables=args.tables, players=args.players,
        spectators=args.spectators,
        rate=args.rate, jitter=args.jitter, duration=args.duration, warmup=args.warmup,
        until_end=args.until_end, setup_concurrency=args.setup_concurrency,
        redis_url=args.redis_url, server_pid=args.server_pid, seed=args.seed,
        sources=args.sources, redis_monitor=args.redis_monitor, client=args.client,
        clocked=args.clocked,
    )
    nofile = raise_nofile((args.players + args.spectators) * args.tables * 2 + 4096)
    service = None
    tail = ""
    if not args.spawn_server and cfg.server_pid is None:
        port = httpx.URL(cfg.url).port or 80
        cfg.server_pid = find_server_pid(port)
        if cfg.server_pid is None:
            print(f"bench.load: no process found listening on port {port}; "
                  "server CPU and RSS left out (give --server-pid)", file=sys.stderr)
    with prioritized(args.nice if args.spawn_server else 0):
        try:
            if args.spawn_server:
                service = SpawnedService(serve_args=args.serve_arg, nofile=max(nofile, 65536),
                                         nice=args.nice, server_dir=args.server_dir).start()
                cfg.url, cfg.redis_url = service.url, service.redis_url
                cfg.server_pid = service.server_pid
                pin_self(args.generator_core, args.nice)
            result = uvloop.run(run_load(cfg))
        finally:
            if service is not None:
                tail = service.log_tail()
                service.stop()
    print(format_report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if service is not None and (result["errors"] or result["gaps"]):
        print("--- server log tail ---\n" + tail, file=sys.stderr)
    bad = result["errors"] or result["gaps"] or result["duplicates"] or result["missing"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
