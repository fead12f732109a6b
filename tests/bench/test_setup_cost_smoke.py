"""CI smoke run of the table set-up probe (``bench/setup_cost.py``): two tables through
create, four joins, four sockets and the start, on its own server and Redis. It asserts
that every phase was measured and that the load-free counts are what the set-up makes
(one create script per table, one subscription per table, one update script per join);
the figures themselves are in docs/benchmarks.md, "Table set-up (issue 27)"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)
def test_the_setup_probe_measures_every_phase(tmp_path: Path) -> None:
    out = tmp_path / "setup.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench.setup_cost", "--tables", "2", "--rounds", "2",
         "--warmup", "1", "--settle", "0.1", "--monitor", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    phases = result["phases"]
    assert list(phases) == ["create", "join x4", "sockets x4", "start"]
    for name, phase in phases.items():
        assert len(phase["cpu_ms_per_table"]) == 2, name
        assert phase["total_commands_per_table"] > 0, name
    # Load-free: one create script per table, one table channel subscribed per table (its
    # four sockets share it), one append script per start.
    assert phases["create"]["commands_per_table"]["evalsha"] == 1
    assert phases["sockets x4"]["commands_per_table"]["ssubscribe"] == 1
    assert phases["start"]["commands_per_table"]["evalsha"] == 1
    # MONITOR: what clients sent, one update script per join (four joins per table).
    assert phases["join x4"]["client_commands_per_table"]["evalsha"] == 4
    assert all(p["total_client_commands_per_table"] > 0 for p in phases.values())
    assert "ms CPU per table" in run.stdout and "load average" in run.stdout
