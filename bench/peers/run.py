"""Side by side (issues 18, 27): this service, boardgame.io 0.50 and Colyseus 0.18 under the same
load, interleaved, with the server pinned to core 0 and the load generator to core 1.

::

    .venv/bin/python bench/peers/run.py --quick            # a few seconds per system
    .venv/bin/python bench/peers/run.py --json peers.json  # the issue's sizes, 3 rounds

Scenarios, each run against a freshly started server of each system in turn (A B C, then
A B C again for every further round):

- ``throughput``: ``--tables`` tables × 4 players, no spectator, every seat acting as soon
  as it is prompted; a finished game is replaced by a new table made through the system's
  lobby. Accepted actions/s and server CPU per action (utime + stime from /proc).
- ``fanout``: one table, ``--spectators`` spectators, ``--rate`` moves/s: move sent →
  delta received by each spectator (p50/p99) and → the last spectator has it; server bytes
  written (``wchar`` of /proc/PID/io) per delivered delta.
- ``idle``: ``--connections`` idle spectator sockets on one table: server RSS growth per
  connection (after ``--idle-warmup`` uncounted ones).

All three are driven by one generator, bench/peers/load.cjs (Node; this service as its
``cardtable`` system, bench/peers/cardtable.cjs, speaking the documented protocol), in
every scenario. This service runs as ``SpawnedService`` (its own Redis on core 1 with the
generator). ``--generator python`` drives it with the former generators instead, for
comparison: bench/load/ (``run_load``) and bench/connections.py (``run_connections``);
``--generator node python`` runs both, as the systems ``einauge/node`` and
``einauge/python``. Every result of this service also carries the server's own counters
over the run (``server_counters``: ``cardtable_actions_total{result="accepted"}`` and
``cardtable_deliveries_total`` from ``/metrics``). The peers run
bench/peers/bgio_server.cjs and colyseus_server.cjs (in memory, one Node process each);
the npm packages are installed here by ``npm ci`` from bench/peers/package-lock.json when
node_modules is missing or older than the lockfile.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a file: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import httpx
import uvloop
from prometheus_client.parser import text_string_to_metric_families

from bench.connections import run_connections
from bench.load.config import LoadConfig
from bench.load.host import machine, pin_self, raise_nofile
from bench.load.run import run_load
from bench.load.spawn import SpawnedService, free_port, wait_port

HERE = Path(__file__).resolve().parent
SYSTEMS = ("einauge", "bgio", "colyseus")
GENERATORS = ("node", "python")
SCENARIOS = ("throughput", "fanout", "idle")
SERVER_CORE, GENERATOR_CORE = 0, 1
PEER_SERVERS = {"bgio": "bgio_server.cjs", "colyseus": "colyseus_server.cjs"}


@dataclass
class Sizes:
    """The load of one run of each scenario."""

    tables: int = 200
    spectators: int = 1000
    rate: float = 2.0
    connections: int = 1000
    idle_warmup: int = 100
    duration: float = 20.0
    warmup: float = 2.0
    settle: float = 2.0


QUICK = Sizes(tables=10, spectators=20, rate=5.0, connections=50, idle_warmup=10,
              duration=3.0, warmup=1.0, settle=0.5)


def npm_ci(folder: Path = HERE) -> None:
    """Install the peers' npm packages exactly as locked, unless node_modules is newer than
    the lockfile. Raises ``RuntimeError`` when npm is missing or fails."""
    modules = folder / "node_modules"
    lock = folder / "package-lock.json"
    if modules.is_dir() and modules.stat().st_mtime >= lock.stat().st_mtime:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm not found: the peers need Node 20 and npm")
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                          cwd=folder, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"npm ci failed in {folder}:\n{done.stderr[-2000:]}")
    modules.touch()


def pinned(core: int) -> list[str]:
    """``taskset -c CORE`` where there is such a core and taskset, else nothing."""
    if shutil.which("taskset") is None or core >= (os.cpu_count() or 1):
        return []
    return ["taskset", "-c", str(core)]


class PeerServer:
    """One peer's Node server on a free port, pinned to the server core."""

    def __init__(self, system: str) -> None:
        self.system = system
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """Its HTTP base address (lobby / matchmaker and websockets)."""
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> PeerServer:
        self.proc = subprocess.Popen(
            [*pinned(SERVER_CORE), "node", PEER_SERVERS[self.system], str(self.port)],
            cwd=HERE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        wait_port(self.port, proc=self.proc)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run_node(system: str, scenario: str, sizes: Sizes, url: str, pid: int
             ) -> dict[str, Any]:
    """One scenario of load.cjs (``system``: bgio, colyseus or cardtable) against the
    server at ``url`` whose process is ``pid``; its result. Raises ``RuntimeError`` when
    the generator fails."""
    args = {"warmup": sizes.warmup, "duration": sizes.duration, "settle": sizes.settle,
            "clk-tck": os.sysconf("SC_CLK_TCK")}
    if scenario == "throughput":
        args |= {"mode": "play", "tables": sizes.tables, "spectators": 0, "rate": 0}
    elif scenario == "fanout":
        args |= {"mode": "play", "tables": 1, "spectators": sizes.spectators,
                 "rate": sizes.rate}
    else:
        args |= {"mode": "idle", "connections": sizes.connections,
                 "idle-warmup": sizes.idle_warmup}
    cmd = [*pinned(GENERATOR_CORE), "node", "load.cjs", "--system", system,
           "--url", url, "--server-pid", str(pid),
           *(x for k, v in args.items() for x in (f"--{k}", str(v)))]
    done = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True,
                          timeout=sizes.warmup + sizes.duration + 300)
    if done.returncode != 0:
        raise RuntimeError(f"{system} {scenario}: load.cjs exited {done.returncode}:\n"
                           f"{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def run_peer(system: str, scenario: str, sizes: Sizes) -> dict[str, Any]:
    """One scenario against a fresh server of a peer; the result of load.cjs."""
    with PeerServer(system) as server:
        assert server.proc is not None
        return run_node(system, scenario, sizes, server.url, server.proc.pid)


def server_counters(url: str) -> dict[str, float]:
    """This service's counters of the run from its ``/metrics``: ``accepted_actions``
    (``cardtable_actions_total{result="accepted"}``) and ``deliveries``
    (``cardtable_deliveries_total``: ``deltas`` frames the live fan-out handed to sockets).
    Raises ``httpx.HTTPError`` when the page cannot be read."""
    r = httpx.get(f"{url}/metrics", timeout=10)
    r.raise_for_status()
    out = {"accepted_actions": 0.0, "deliveries": 0.0}
    for family in text_string_to_metric_families(r.text):
        for sample in family.samples:
            if (sample.name == "cardtable_actions_total"
                    and sample.labels.get("result") == "accepted"):
                out["accepted_actions"] = sample.value
            elif sample.name == "cardtable_deliveries_total":
                out["deliveries"] = sample.value
    return out


def run_einauge(scenario: str, sizes: Sizes, generator: str = "node",
                python: str | None = None) -> dict[str, Any]:
    """One scenario against a fresh ``cardtable serve`` (and Redis), driven by load.cjs
    (``generator`` "node") or by bench/load/ or bench/connections.py ("python": the result
    of ``run_load`` / ``run_connections``); with ``server_counters`` read at the end.
    ``python``: the interpreter that runs the server (default: this one), e.g. a
    virtualenv of an optimized build made by bench/deploy_venv.sh."""
    command = [python, "-m", "cli"] if python else None
    with SpawnedService(server_core=SERVER_CORE, redis_core=GENERATOR_CORE,
                        command=command) as service:
        result = (run_node("cardtable", scenario, sizes, service.url, service.server_pid)
                  if generator == "node" else _run_python(service, scenario, sizes))
        result["generator_kind"] = generator
        result["server_python"] = python or sys.executable
        result["server_counters"] = server_counters(service.url)
        return result


def _run_python(service: SpawnedService, scenario: str, sizes: Sizes) -> dict[str, Any]:
    """One scenario of the Python generators against ``service``."""
    if scenario == "idle":
        return uvloop.run(run_connections(
            service.url, sizes.connections, warmup=sizes.idle_warmup,
            settle=sizes.settle, server_pid=service.server_pid))
    tables, spectators, rate = ((sizes.tables, 0, 0.0) if scenario == "throughput"
                                else (1, sizes.spectators, sizes.rate))
    cfg = LoadConfig(url=service.url, tables=tables, players=4, spectators=spectators,
                     rate=rate, duration=sizes.duration, warmup=sizes.warmup,
                     redis_url=service.redis_url, server_pid=service.server_pid,
                     # As the peers' generator: 100 sockets joining at a time.
                     setup_concurrency=100)
    return uvloop.run(run_load(cfg))


def bytes_per_move_per_viewer(r: dict[str, Any]) -> float | None:
    """Server bytes written in the window / (accepted moves × (4 players + spectators)):
    what one move costs on the wire for each viewer, whatever number of frames it takes."""
    viewers = 4 + int(r["config"]["spectators"])
    wrote = (r.get("server") or {}).get("bytes_written")
    if not wrote or not r["accepted_actions"]:
        return None
    return round(wrote / (r["accepted_actions"] * viewers), 1)


def figures(system: str, scenario: str, r: dict[str, Any]) -> dict[str, float | None]:
    """The compared numbers of one result, by the name of the table's column."""
    s = r.get("server") or {}
    if scenario == "idle":
        return {"rss_kib_per_connection": s.get("rss_kib_per_connection",
                                                r.get("rss_kib_per_connection")),
                "opened": r.get("opened"), "errors": r.get("errors")}
    if "cpu_s_per_1000_actions" in s:  # bench/load/'s result (this service, Python)
        per_action = s["cpu_s_per_1000_actions"]
        cpu_us = 1000 * per_action if per_action is not None else None
    else:
        cpu_us = s.get("cpu_us_per_action")
    lat = r["delivery_latency_ms"]
    out: dict[str, float | None] = {
        "actions_per_s": r["actions_per_s"], "cpu_us_per_action": cpu_us,
        "server_core_share": s.get("core_share"),
        "generator_core_share": r["generator"]["core_share"],
        "errors": r["errors"],
    }
    if scenario == "fanout":
        last = lat.get("last_spectator") or {}
        out |= {"spectator_p50_ms": lat["spectators"]["p50"],
                "spectator_p99_ms": lat["spectators"]["p99"],
                "last_spectator_p50_ms": last.get("p50"),
                "last_spectator_p99_ms": last.get("p99"),
                "bytes_per_delivery": s.get("bytes_per_delivery"),
                "bytes_per_move_per_viewer": bytes_per_move_per_viewer(r),
                # The table made and every spectator's socket joined (one table: the
                # crowd's join time).
                "setup_s": r.get("setup_s")}
    return out


def interleaved(systems: Sequence[str], scenarios: Sequence[str], rounds: int,
                one: Callable[[str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """Every scenario, ``rounds`` times, each time the systems in turn (A B C A B C …)."""
    runs = []
    for scenario in scenarios:
        for n in range(rounds):
            for system in systems:
                t0 = time.time()
                result = one(system, scenario)
                runs.append({"system": system, "scenario": scenario, "round": n,
                             "load_average_1m": round(os.getloadavg()[0], 2),
                             "wall_s": round(time.time() - t0, 1),
                             "figures": figures(system, scenario, result),
                             "result": result})
                print(f"{scenario:10} {system:14} round {n}: {runs[-1]['figures']}",
                      flush=True)
    return runs


def medians(runs: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, float | None]]]:
    """Per scenario and system, the median of each figure over the rounds."""
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for run in runs:
        slot = out.setdefault(run["scenario"], {}).setdefault(run["system"], {})
        for k, v in run["figures"].items():
            slot.setdefault(k, []).append(v)  # type: ignore[arg-type, union-attr]
    for by_system in out.values():
        for figs in by_system.values():
            for k, values in figs.items():
                present = [v for v in values if v is not None]  # type: ignore[union-attr]
                figs[k] = round(statistics.median(present), 2) if present else None
    return out


def markdown(table: dict[str, dict[str, dict[str, float | None]]]) -> str:
    """The medians as one markdown table per scenario."""
    lines = []
    for scenario, by_system in table.items():
        keys = list(next(iter(by_system.values())))
        lines += [f"**{scenario}**", "", "| system | " + " | ".join(keys) + " |",
                  "|---" * (len(keys) + 1) + "|"]
        for system, figs in by_system.items():
            lines.append(f"| {system} | " + " | ".join(str(figs[k]) for k in keys) + " |")
        lines.append("")
    return "\n".join(lines)


def python_label(path: str) -> str:
    """A short name for an interpreter path: its virtualenv's folder (``.venv-deploy``
    for ``.venv-deploy/bin/python``), else the path."""
    p = Path(path)
    return p.parent.parent.name if p.parent.name == "bin" else path


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison; prints the medians; 1 when any run reported errors."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small loads for a few seconds")
    p.add_argument("--rounds", type=int, default=None, help="default 3, --quick 1")
    p.add_argument("--systems", nargs="+", choices=SYSTEMS, default=list(SYSTEMS))
    p.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    p.add_argument("--generator", nargs="+", choices=GENERATORS, default=["node"],
                   help="what drives this service (default node: load.cjs, as the peers; "
                        "python: bench/load/ and bench/connections.py; both: each in turn)")
    p.add_argument("--server-python", nargs="+", default=[], metavar="PYTHON",
                   help="interpreters that run this service's server, each in turn "
                        "(default: this one; e.g. .venv-deploy/bin/python, made by "
                        "bench/deploy_venv.sh from an optimized build)")
    p.add_argument("--tables", type=int)
    p.add_argument("--spectators", type=int)
    p.add_argument("--connections", type=int)
    p.add_argument("--duration", type=float)
    p.add_argument("--json", type=Path, help="write every run and the medians here")
    args = p.parse_args(argv)
    sizes = replace(QUICK if args.quick else Sizes())
    for k in ("tables", "spectators", "connections", "duration"):
        if getattr(args, k) is not None:
            setattr(sizes, k, getattr(args, k))
    rounds = args.rounds or (1 if args.quick else 3)
    npm_ci()
    raise_nofile(4 * (sizes.spectators + sizes.connections) + 4096)
    host = machine()
    pin_self(GENERATOR_CORE)  # the Python generator; Node generators are pinned by taskset

    pythons = {python_label(p): p for p in args.server_python}
    if len(pythons) == 1:  # one interpreter: the runs keep their usual names
        pythons = {"": next(iter(pythons.values()))}

    def one(system: str, scenario: str) -> dict[str, Any]:
        if system.startswith("einauge/"):
            _, generator, *label = system.split("/", 2)
            return run_einauge(scenario, sizes, generator, pythons.get(label[0] if label else ""))
        return run_peer(system, scenario, sizes)

    # this service's runs are named by their generator (einauge/node, einauge/python) and,
    # with several --server-python, by the interpreter (einauge/node/.venv-deploy)
    variants = [f"einauge/{g}" + (f"/{label}" if label else "")
                for g in args.generator for label in (pythons or [""])]
    systems = [x for s in args.systems for x in (variants if s == "einauge" else [s])]
    runs = interleaved(systems, args.scenarios, rounds, one)
    table = medians(runs)
    print(f"\n{host}\n\n" + markdown(table))
    if args.json:
        args.json.write_text(json.dumps({"machine": host, "sizes": vars(sizes),
                                         "rounds": rounds, "medians": table,
                                         "runs": runs}, indent=1) + "\n")
    return 1 if any(run["figures"].get("errors") for run in runs) else 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
