"""CI smoke run of ``bench/redis_memory.py``: one game of each case through its real
server and redis-server. It asserts that every case was played and measured, and that an
archived game holds less than the same game before (the figures are in
docs/operations.md, "Sizing")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.redis_memory import CASES

ROOT = Path(__file__).resolve().parents[2]


def test_the_redis_memory_probe_measures_every_case(tmp_path: Path) -> None:
    out = tmp_path / "memory.json"
    run = subprocess.run([sys.executable, "-m", "bench.redis_memory", "--games", "1",
                          "--json", str(out)], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = json.loads(out.read_text())
    assert [(r["game"], r["seats"]) for r in rows] == list(CASES)
    for r in rows:
        assert r["tables"] == 1 and r["events_mean"] > 0
        assert 0 < r["archived_bytes_mean"] < r["ended_bytes_mean"], r
