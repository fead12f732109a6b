"""Server cost per accepted action, counted so that the machine's load does not change it.

One process runs the server (the app of ``einauge serve`` under uvicorn, ``websockets-
sansio``, uvloop) on a private ``redis-server``; a child process (``--client``) sets up
tables of 4 seats and plays them as fast as it is answered, each seat acting on its prompt
with a seeded random legal action (``bench.load.TableRun``). The server process measures
only the play, never the set-up, in three phases of fresh tables each:

1. warm-up (imports, caches, the script cache of Redis);
2. CPU time of the server's process per accepted action (a rough figure: it moves with
   the machine's load, printed beside it);
3. Python function calls per accepted action, from ``cProfile`` running in the server's
   thread (deterministic: the same code path makes the same calls, whatever the load),
   with the functions that make the most calls.

The per-second work of a process (presence refresh, deadline scan) is switched off
(``EINAUGE_PRESENCE_INTERVAL`` and ``EINAUGE_DEADLINE_SCAN`` set far apart) so that a slow
run does not count more of it: what is left is the cost of the actions themselves.

``--callgrind`` runs the server process under ``valgrind --tool=callgrind`` with the
instrumentation off except during phase 3 (``callgrind_control -i on/off``), and reports
the machine instructions per accepted action (repeatable whatever the load; cProfile is
off then). Needs ``valgrind`` (apt-get install valgrind).

    .venv/bin/python -m bench.action_cost [--tables 20] [--actions 25] [--json FILE]
    .venv/bin/python -m bench.action_cost --callgrind --tables 10 --actions 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import os
import pstats
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

PROBE_ENV = {
    "EINAUGE_TABLES_PER_HOUR": "1000000000",
    "EINAUGE_CONNS_PER_ADDR": "1000000",
    "EINAUGE_RATE_PER_S": "10000",
    "EINAUGE_RATE_BURST": "10000",
    "EINAUGE_LOG_LEVEL": "warning",
    "EINAUGE_STATIC_DIR": "/nonexistent",
    # Per-second work off: only what the actions cost is counted.
    "EINAUGE_PRESENCE_INTERVAL": "3600",
    "EINAUGE_PRESENCE_TTL": "7200",
    "EINAUGE_DEADLINE_SCAN": "3600",
}


# --------------------------------------------------------------------------- the client


async def _client(url: str, tables: int, actions: int, seed: int, spectators: int,
                  clocked: bool = False) -> None:
    """Read commands on stdin (``setup N``: fresh tables for phase N, ``play``, ``quit``);
    answer on stdout."""
    import httpx

    from bench.load.config import LoadConfig
    from bench.load.table import TableRun
    from bench.load.tracking import Stats
    from engine import get_game

    cfg = LoadConfig(url=url, tables=tables, players=4, spectators=spectators, rate=0,
                     ack_timeout=120)
    stats = Stats()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    runs: list[TableRun] = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:

        async def play(run: TableRun) -> int:
            done = 0
            while done < actions and not run.ended:
                if run.prompt is None:
                    run.wake.clear()
                    try:
                        await asyncio.wait_for(run.wake.wait(), 10)
                    except TimeoutError:
                        return done
                    continue
                sock, prompt = run.prompt
                run.prompt = None
                listed = prompt.get("legal_actions") or [
                    a.to_dict() for a in get_game(cfg.game).expand_form(prompt["legal_form"])]
                code = await run._act(sock, str(next(run.counter)), dict(run.rng.choice(listed)))
                if code is None:
                    done += 1
            return done

        while True:
            line = (await reader.readline()).decode().strip()
            if line in ("", "quit"):
                break
            if line.startswith("setup "):
                rng = random.Random(f"{seed}:{line.split()[1]}")
                for run in runs:
                    await run.finish(1.0)
                runs = [TableRun(cfg, stats, http, random.Random(rng.random()))
                        for _ in range(tables)]
                if clocked:
                    for r in runs:
                        r._post = _with_clock(r._post)  # type: ignore[method-assign]
                for r in runs:  # one after the other: each table gets its seeded game
                    await r.setup()
                # Every seat to move has its prompt before the play is measured.
                await asyncio.sleep(0.5)
                print("ready", flush=True)
            elif line == "play":
                done = await asyncio.gather(*(play(r) for r in runs))
                # The last deltas reach every socket before the window closes.
                await asyncio.sleep(0.3)
                print(f"done {sum(done)} {json.dumps(stats.errors)}", flush=True)
        for run in runs:
            await run.finish(1.0)


def _with_clock(post: Any) -> Any:
    """``TableRun._post`` creating its table with a live clock (60 s a move)."""

    async def clocked_post(path: str, body: dict[str, Any] | None = None,
                           token: str | None = None) -> dict[str, Any]:
        if path == "/api/tables" and body is not None:
            body = {**body, "time_control": {"kind": "live", "preset": "slow"}}
        return dict(await post(path, body, token))

    return clocked_post


# --------------------------------------------------------------------------- the server


def _callgrind(pid: int, on: bool) -> None:
    """Switch callgrind's instrumentation of this process on or off (a few tries: the
    request goes through valgrind's gdbserver, which now and then misses one)."""
    for attempt in range(5):
        done = subprocess.run(["callgrind_control", "-i", "on" if on else "off", str(pid)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if done.returncode == 0:
            return
        time.sleep(0.5 * (attempt + 1))
    raise RuntimeError("callgrind_control did not reach the server's process")


async def _serve(args: argparse.Namespace) -> dict[str, Any]:
    import uvicorn

    from cli.serve import _tune_gc, uvicorn_config
    from server import config
    from server.app import create_app
    from server.logging import configure
    from server.store.embedded import EmbeddedRedis, free_port

    games = _seeded_games(args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="einauge-cost-"))
    redis = EmbeddedRedis(tmp / "redis", port=free_port())
    redis_url = redis.start()
    if not args.inner_callgrind and args.server_core < (os.cpu_count() or 1):
        os.sched_setaffinity(0, {args.server_core})  # after Redis started: not on its core
    port = free_port()
    for k, v in PROBE_ENV.items():
        os.environ.setdefault(k, v)
    settings = config.from_env(host="127.0.0.1", port=port, redis_url=redis_url)
    configure(settings.log_level, settings.log_json)
    app = create_app(settings, None)
    _tune_gc()
    cfg = uvicorn_config(app, settings)  # as einauge serve runs it
    server = uvicorn.Server(cfg)
    serving = asyncio.get_running_loop().create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.05)
        if serving.done():
            serving.result()
    client = await asyncio.create_subprocess_exec(
        *_pin(args.client_core), sys.executable, "-m", "bench.action_cost", "--client",
        "--url", f"http://127.0.0.1:{port}", "--tables", str(args.tables),
        "--actions", str(args.actions), "--seed", str(args.seed),
        "--spectators", str(args.spectators), *(["--clocked"] if args.clocked else []),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    assert client.stdin is not None and client.stdout is not None

    async def ask(cmd: str) -> str:
        assert client.stdin is not None and client.stdout is not None
        client.stdin.write(f"{cmd}\n".encode())
        await client.stdin.drain()
        return (await client.stdout.readline()).decode().strip()

    async def phase(number: int, before: Any = None, after: Any = None
                    ) -> tuple[int, dict[str, int], float, float]:
        """Fresh tables with the games of phase ``number`` (the same in every run, whatever
        other phases run), then their play, measured."""
        games.seed(f"{args.seed}:{number}")
        if await ask(f"setup {number}") != "ready":
            raise RuntimeError("the client's set-up failed")
        load = os.getloadavg()[0]
        cpu = time.process_time()
        if before is not None:
            before()
        answer = await ask("play")
        if after is not None:
            after()
        cpu = time.process_time() - cpu
        _, accepted, errors = answer.split(" ", 2)
        return int(accepted), json.loads(errors), cpu, load

    result: dict[str, Any] = {"tables": args.tables, "actions_per_table": args.actions,
                              "clocked": args.clocked,
                              "spectators_per_table": args.spectators, "seed": args.seed}
    try:
        await phase(0)  # warm-up
        accepted, errors, cpu, load = await phase(1)
        result["cpu"] = {"accepted": accepted, "errors": errors, "load_avg_1m": load,
                         "cpu_us_per_action": round(cpu / max(accepted, 1) * 1e6, 1)}
        if args.syscalls:
            result["syscalls"] = await _syscalls(phase, tmp)
        if args.inner_callgrind:
            pid = os.getpid()
            # The games of the cProfile phase.
            accepted, errors, _, load = await phase(2, lambda: _callgrind(pid, True),
                                                    lambda: _callgrind(pid, False))
            result["callgrind"] = {"accepted": accepted, "errors": errors,
                                   "load_avg_1m": load}
        else:
            prof = cProfile.Profile()
            accepted, errors, _, load = await phase(2, prof.enable, prof.disable)
            stats = pstats.Stats(prof)
            calls = sum(v[1] for v in stats.stats.values())  # type: ignore[attr-defined]
            top = sorted(stats.stats.items(), key=lambda kv: -kv[1][1])[:args.top]  # type: ignore[attr-defined]
            result["profile"] = {
                "accepted": accepted, "errors": errors, "load_avg_1m": load,
                "calls_per_action": round(calls / max(accepted, 1), 1),
                "by_area": _areas(stats.stats, accepted),  # type: ignore[attr-defined]
                "top": [{"function": pstats.func_std_string(f),
                         "calls_per_action": round(v[1] / max(accepted, 1), 2)}
                        for f, v in top]}
            if args.dump:
                stats.dump_stats(args.dump)
        await ask("quit")
    finally:
        with contextlib.suppress(ProcessLookupError):
            client.kill()
        await client.wait()
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(serving, 10)
        redis.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return result


AREAS = (("engine/", "engine"), ("/server/", "server"), ("/redis/", "redis-py"),
         ("/websockets/", "websockets"), ("/uvicorn/", "uvicorn"), ("/starlette/", "starlette"),
         ("/asyncio/", "asyncio"), ("/msgpack/", "msgpack"), ("/pydantic", "pydantic"),
         ("/prometheus_client/", "prometheus"), ("/structlog/", "structlog"))


def _areas(raw: dict[Any, Any], accepted: int) -> dict[str, float]:
    """Calls per action by where the called function lives (built-ins: ``~``)."""
    out: dict[str, float] = {}
    for (file, _, _), v in raw.items():
        area = next((name for part, name in AREAS if part in file),
                    "built-in" if file == "~" else "other")
        out[area] = out.get(area, 0) + v[1]
    ranked = sorted(out.items(), key=lambda kv: -kv[1])
    return {k: round(v / max(accepted, 1), 1) for k, v in ranked}


def _seeded_games(seed: int) -> random.Random:
    """Every run deals the same games: the server seeds and the seats' seed contributions
    of new tables come from ``seed`` (in the order the tables are made) instead of
    ``secrets``. With the client's
    seeded choices the actions are then the same in every run, and so is their cost."""
    from server.table import lobby

    rng = random.Random(seed)
    real = lobby.secrets

    class Seeded:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        @staticmethod
        def token_bytes(n: int | None = None) -> bytes:
            return rng.randbytes(n or 32)

        @staticmethod
        def token_hex(n: int | None = None) -> str:  # the seats' seed contributions
            return rng.randbytes(n or 32).hex()

    lobby.secrets = Seeded()  # type: ignore[assignment]
    return rng


async def _syscalls(phase: Any, tmp: Path) -> dict[str, Any]:
    """System calls of the server's process per accepted action over one phase
    (``strace -c``, attached for the play only: counts, not times, are the figure)."""
    import signal

    out = tmp / "strace.txt"
    tracer: subprocess.Popen[bytes] | None = None

    def attach() -> None:
        nonlocal tracer
        tracer = subprocess.Popen(["strace", "-f", "-c", "-o", str(out), "-p",
                                   str(os.getpid())], stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # attached before the play starts

    def detach() -> None:
        assert tracer is not None
        tracer.send_signal(signal.SIGINT)
        tracer.wait()

    accepted, errors, _, load = await phase(3, attach, detach)
    calls: dict[str, int] = {}
    for line in out.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] != "total":
            calls[parts[-1]] = int(parts[3])
    per = {k: round(v / max(accepted, 1), 2) for k, v in sorted(calls.items(),
                                                                key=lambda kv: -kv[1])}
    return {"accepted": accepted, "errors": errors, "load_avg_1m": load,
            "per_action": round(sum(calls.values()) / max(accepted, 1), 2), "by_call": per}


def _pin(core: int | None) -> list[str]:
    if core is None or shutil.which("taskset") is None or core >= (os.cpu_count() or 1):
        return []
    return ["taskset", "-c", str(core)]


def _run_callgrind(args: argparse.Namespace) -> dict[str, Any]:
    """This probe again, under callgrind (the server's process only: the client and Redis
    are children it does not follow)."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found: apt-get install valgrind")
    out = Path(tempfile.mkdtemp(prefix="einauge-callgrind-")) / "callgrind.out"
    report = out.with_suffix(".json")
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
           sys.executable, "-m", "bench.action_cost", "--inner-callgrind",
           "--tables", str(args.tables), "--actions", str(args.actions),
           "--seed", str(args.seed), "--spectators", str(args.spectators),
           *(["--clocked"] if args.clocked else []), "--json", str(report)]
    # Some 50 times slower under valgrind: no Redis call or ack may time out meanwhile.
    env = {**os.environ, "PYTHONHASHSEED": "0", "EINAUGE_REDIS_TIMEOUT": "120",
           "EINAUGE_HELLO_TIMEOUT": "120"}
    log = out.with_suffix(".log")  # valgrind's and the inner probe's messages
    with log.open("wb") as err:
        done = subprocess.run([*_pin(args.server_core), *cmd], cwd=ROOT, env=env, stderr=err)
    if done.returncode != 0:
        raise SystemExit(f"the probe under callgrind failed; see {log}")
    result = json.loads(report.read_text())
    text = out.read_text(errors="replace")
    # ``totals``: the costs collected (only while the instrumentation was on).
    found = re.search(r"^totals:\s+(\d+)", text, re.M)
    instructions = int(found.group(1)) if found else 0
    accepted = result["callgrind"]["accepted"]
    result["callgrind"]["instructions_per_action"] = round(instructions / max(accepted, 1))
    result["callgrind"]["file"] = str(out)
    return result


def _print(r: dict[str, Any]) -> None:
    print(f"tables {r['tables']} x 4 seats, {r['actions_per_table']} actions per table, "
          f"{r['spectators_per_table']} spectators per table")
    c = r["cpu"]
    print(f"CPU per action (rough: load average {c['load_avg_1m']:.1f}): "
          f"{c['cpu_us_per_action']} us over {c['accepted']} actions, errors {c['errors']}")
    if "profile" in r:
        p = r["profile"]
        print(f"Python calls per action (cProfile, deterministic): {p['calls_per_action']} "
              f"over {p['accepted']} actions, errors {p['errors']}")
        print("  by area: " + ", ".join(f"{k} {v}" for k, v in p["by_area"].items()))
        for t in p["top"]:
            print(f"  {t['calls_per_action']:8.2f}  {t['function']}")
    if "syscalls" in r:
        s = r["syscalls"]
        print(f"system calls per action (strace -c): {s['per_action']} over {s['accepted']} "
              f"actions: " + ", ".join(f"{k} {v}" for k, v in s["by_call"].items()))
    if "callgrind" in r:
        g = r["callgrind"]
        print(f"instructions per action (callgrind): {g['instructions_per_action']:,} over "
              f"{g['accepted']} actions, errors {g['errors']} ({g['file']})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=20)
    p.add_argument("--actions", type=int, default=25, help="accepted actions per table")
    p.add_argument("--spectators", type=int, default=0, help="spectators per table")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--clocked", action="store_true",
                   help="tables with a live clock (60 s a move): each action moves it")
    p.add_argument("--top", type=int, default=25, help="functions listed by calls")
    p.add_argument("--server-core", type=int, default=1)
    p.add_argument("--client-core", type=int, default=0)
    p.add_argument("--callgrind", action="store_true", help="instructions per action")
    p.add_argument("--syscalls", action="store_true",
                   help="also system calls per action (strace -c)")
    p.add_argument("--dump", help="write the cProfile stats to this file")
    p.add_argument("--json", help="write the figures to this file")
    p.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--inner-callgrind", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    import uvloop

    if args.client:
        uvloop.run(_client(args.url, args.tables, args.actions, args.seed, args.spectators,
                           args.clocked))
        return 0
    result = _run_callgrind(args) if args.callgrind else uvloop.run(_serve(args))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    if not args.inner_callgrind:
        _print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
