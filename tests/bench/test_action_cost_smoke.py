"""CI smoke run of the per-action cost probe (``bench/action_cost.py``): two tables of four
seats, three actions each, through its real server and client processes. It asserts that
the probe ran and counted what it says (every action accepted, none refused); the figures
themselves are in docs/benchmarks.md."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_action_cost_probe_plays_and_counts_every_action(tmp_path: Path) -> None:
    out = tmp_path / "cost.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench.action_cost", "--tables", "2", "--actions", "3",
         "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    for phase in ("cpu", "profile"):
        assert result[phase]["accepted"] == 2 * 3, result[phase]
        assert result[phase]["errors"] == {}, result[phase]
    assert result["cpu"]["cpu_us_per_action"] > 0
    assert result["profile"]["calls_per_action"] > 0
    assert result["profile"]["by_area"]["engine"] > 0  # the rules ran in the server
