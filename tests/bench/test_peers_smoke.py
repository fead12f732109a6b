"""CI smoke run of the side-by-side harness (bench/peers, issues 18 and 27): a few seconds
per system, through the same code as ``bench/peers/run.py``. It asserts that every system
played and finished games through its own lobby and that the numbers were measured (no
speed: the figures are in docs/benchmarks.md); for this service driven by the Node
generator (bench/peers/cardtable.cjs) also that the generator's counts over the run are
the server's own (``/metrics``). The npm packages are installed by the harness's own
``npm ci`` (once; about 20 s)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from bench.peers.run import QUICK, Sizes, figures, main, npm_ci, run_einauge, run_peer


@pytest.fixture(autouse=True, scope="module")
def _node() -> None:
    """Node and npm are part of the set-up (the web client's build needs them): missing,
    these tests fail rather than pass unseen as skips."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("the peers need Node and npm, which the web client's build needs too "
                    "(scripts/setup.sh)", pytrace=False)


SIZES = Sizes(tables=4, spectators=5, rate=20.0, connections=20, idle_warmup=5,
              duration=3.0, warmup=0.5, settle=0.3)
THROUGHPUT = replace(SIZES, duration=10.0)
"""Long enough for a table to finish its game on a busy machine (one game is about 80
moves; at a load of 40 a 3 s run sometimes ended none)."""
PEERS = ("bgio", "colyseus")
CARDTABLE_THROUGHPUT = replace(SIZES, tables=2, duration=12.0)
"""This service's throughput runs (either generator): Einauge's games are longer than the
pick game's 80 moves, and two tables get twice the actions each of four from the same
server: at a load average of 28, four tables in 10 s ended no game."""


@pytest.fixture(scope="module", autouse=True)
def npm_packages() -> None:
    npm_ci()


@pytest.mark.timeout(180)
@pytest.mark.parametrize("system", PEERS)
def test_peer_throughput_finishes_games(system: str) -> None:
    r = run_peer(system, "throughput", THROUGHPUT)
    assert r["errors"] == 0, r["errors_by_code"]
    assert r["skipped"] == 0  # every socket saw every move, one state per move
    # 4 tables acting as fast as the server answers for 10 s finish 80-move games
    assert r["tables_ended"] >= 1
    assert r["tables_started"] >= SIZES.tables
    assert r["accepted_actions"] >= 80
    # every player socket saw every accepted move
    assert r["delivery_latency_ms"]["players"]["n"] >= 4 * r["accepted_actions"] - 4 * 4
    assert r["server"]["cpu_s"] > 0
    f = figures(system, "throughput", r)
    assert f["actions_per_s"] and f["actions_per_s"] > 0
    assert f["cpu_us_per_action"] and f["cpu_us_per_action"] > 0


@pytest.mark.timeout(180)
@pytest.mark.parametrize("system", PEERS)
def test_peer_fanout_reaches_every_spectator(system: str) -> None:
    r = run_peer(system, "fanout", SIZES)
    assert r["errors"] == 0, r["errors_by_code"]
    assert r["accepted_actions"] >= 1
    spectators = r["delivery_latency_ms"]["spectators"]["n"]
    last = r["delivery_latency_ms"]["last_spectator"]["n"]
    # each move measured reached all 5 spectators (a move at the window's edge may not)
    assert last >= r["accepted_actions"] - 1
    assert spectators >= SIZES.spectators * last
    f = figures(system, "fanout", r)
    assert f["bytes_per_delivery"] and f["bytes_per_delivery"] > 0
    assert f["last_spectator_p50_ms"] is not None


@pytest.mark.timeout(180)
@pytest.mark.parametrize("system", PEERS)
def test_peer_idle_connections_measured(system: str) -> None:
    r = run_peer(system, "idle", SIZES)
    assert r["errors"] == 0, r["errors_by_code"]
    assert r["opened"] == SIZES.connections
    assert r["server"]["rss_kib_per_connection"] is not None


@pytest.mark.timeout(180)
def test_cardtable_throughput_counts_agree_with_the_server() -> None:
    r = run_einauge("throughput", CARDTABLE_THROUGHPUT, "node")
    assert r["system"] == "cardtable" and r["generator_kind"] == "node"
    assert r["errors"] == 0, r["errors_by_code"]
    assert r["gaps"] == 0 and r["duplicates"] == 0 and r["missing"] == 0
    assert r["tables_started"] >= CARDTABLE_THROUGHPUT.tables
    assert r["tables_ended"] >= 1  # a finished game was replaced through the lobby
    assert r["accepted_actions"] >= 80
    # every ack and every `deltas` frame of the run, as the server counted them
    counted = r["server_counters"]
    assert r["totals"]["accepted"] == counted["accepted_actions"] > r["accepted_actions"]
    assert r["totals"]["deliveries"] == counted["deliveries"] > r["deliveries"]
    # every player socket saw every accepted action's frame, timed from its send; at
    # each edge of the window at most one action per table is in flight
    players = r["delivery_latency_ms"]["players"]["n"]
    assert players >= 4 * (r["accepted_actions"] - 2 * r["tables_started"])
    assert players <= r["deliveries"]
    assert r["action_latency_ms"]["n"] == r["accepted_actions"]
    f = figures("einauge/node", "throughput", r)
    assert f["actions_per_s"] and f["actions_per_s"] > 0
    assert f["cpu_us_per_action"] and f["cpu_us_per_action"] > 0
    assert r["server"]["bytes_written"] > 0


@pytest.mark.timeout(180)
def test_cardtable_fanout_reaches_every_spectator() -> None:
    r = run_einauge("fanout", SIZES, "node")
    assert r["errors"] == 0, r["errors_by_code"]
    assert r["gaps"] == 0 and r["duplicates"] == 0 and r["missing"] == 0
    assert r["accepted_actions"] >= 1
    assert r["totals"]["accepted"] == r["server_counters"]["accepted_actions"]
    assert r["totals"]["deliveries"] == r["server_counters"]["deliveries"]
    spectators = r["delivery_latency_ms"]["spectators"]["n"]
    last = r["delivery_latency_ms"]["last_spectator"]["n"]
    # each action measured reached all 5 spectators (one at the window's edge may not)
    assert last >= r["accepted_actions"] - 1
    assert spectators >= SIZES.spectators * last
    f = figures("einauge/node", "fanout", r)
    assert f["bytes_per_delivery"] and f["bytes_per_delivery"] > 0
    assert f["last_spectator_p50_ms"] is not None


@pytest.mark.timeout(180)
def test_cardtable_idle_connections_measured() -> None:
    r = run_einauge("idle", SIZES, "node")
    assert r["errors"] == 0, r["errors_by_code"]
    assert r["opened"] == SIZES.connections
    assert r["server"]["rss_kib_per_connection"] is not None
    # the table's start reached its 4 players; no spectator socket got a frame or acted
    assert r["server_counters"] == {"accepted_actions": 0, "deliveries": 4}


@pytest.mark.timeout(180)
def test_einauge_side_runs_through_bench_load() -> None:
    r = run_einauge("throughput", CARDTABLE_THROUGHPUT, "python")
    assert r["generator_kind"] == "python"
    assert r["errors"] == 0, r["errors_by_code"]
    assert r["gaps"] == 0 and r["duplicates"] == 0 and r["missing"] == 0
    assert r["tables_started"] >= CARDTABLE_THROUGHPUT.tables
    assert r["tables_ended"] >= 1
    f = figures("einauge/python", "throughput", r)
    assert f["actions_per_s"] and f["actions_per_s"] > 0
    assert f["cpu_us_per_action"] and f["cpu_us_per_action"] > 0
    assert r["server"]["bytes_written"] > 0
    # bench/load/ counts only the window; the server's counters hold the whole run
    assert r["server_counters"]["accepted_actions"] >= r["accepted_actions"]


@pytest.mark.timeout(180)
def test_run_py_reports_each_generator(tmp_path: Path) -> None:
    out = tmp_path / "runs.json"
    cores = os.sched_getaffinity(0)
    try:  # main pins this process to the generator's core: not the later tests
        code = main(["--quick", "--systems", "einauge", "--scenarios", "idle",
                     "--generator", "node", "python", "--json", str(out)])
    finally:
        os.sched_setaffinity(0, cores)
    runs = json.loads(out.read_text())["runs"]
    assert code == 0, [(r["system"], r["result"].get("errors_by_code")) for r in runs]
    assert [r["system"] for r in runs] == ["einauge/node", "einauge/python"]
    assert [r["result"]["generator_kind"] for r in runs] == ["node", "python"]
    for r in runs:
        assert r["figures"]["opened"] == QUICK.connections
        assert r["figures"]["rss_kib_per_connection"] is not None


def test_run_py_runs_the_server_under_each_interpreter(tmp_path: Path) -> None:
    """``--server-python``: each interpreter in turn, named by its virtualenv's folder."""
    import site
    import subprocess
    import sys

    alt = tmp_path / "alt"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(alt)], check=True)
    packages = next((alt / "lib").glob("python3*/site-packages"))
    (packages / "locked.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    alt_python = str(alt / "bin" / "python")
    out = tmp_path / "runs.json"
    cores = os.sched_getaffinity(0)
    try:
        code = main(["--quick", "--systems", "einauge", "--scenarios", "idle",
                     "--server-python", sys.executable, alt_python, "--json", str(out)])
    finally:
        os.sched_setaffinity(0, cores)
    runs = json.loads(out.read_text())["runs"]
    assert code == 0, [(r["system"], r["result"].get("errors_by_code")) for r in runs]
    own = Path(sys.executable).parent.parent.name
    assert [r["system"] for r in runs] == [f"einauge/node/{own}", "einauge/node/alt"]
    assert [r["result"]["server_python"] for r in runs] == [sys.executable, alt_python]
    for r in runs:
        assert r["figures"]["opened"] == QUICK.connections
