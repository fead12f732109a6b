"""CI smoke run of the side-by-side harness (bench/peers, issue 18): a few seconds per
system, through the same code as ``bench/peers/run.py``. It asserts that every system
played and finished games through its own lobby and that the numbers were measured (no
speed: the figures are in docs/benchmarks.md). The peers' npm packages are installed by
the harness's own ``npm ci`` (once; about 20 s)."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from bench.peers.run import Sizes, figures, npm_ci, run_einauge, run_peer


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
def test_einauge_side_runs_through_bench_load() -> None:
    r = run_einauge("throughput", THROUGHPUT)
    assert r["errors"] == 0, r["errors_by_code"]
    assert r["gaps"] == 0 and r["duplicates"] == 0 and r["missing"] == 0
    assert r["tables_started"] >= SIZES.tables
    assert r["tables_ended"] >= 1
    f = figures("einauge", "throughput", r)
    assert f["actions_per_s"] and f["actions_per_s"] > 0
    assert f["cpu_us_per_action"] and f["cpu_us_per_action"] > 0
    assert r["server"]["bytes_written"] > 0
