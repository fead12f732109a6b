"""CI smoke run of the pure action path bench (``bench/core_path.py``): every game's seeded
games replay through decide, chain, seal, fold and frames without an error."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engine import GAMES


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_core_path_bench_replays_every_action(game: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.core_path", "--game", game, "--games", "1",
         "--rounds", "1"], capture_output=True, text=True, timeout=300, check=True).stdout
    first, steps = out.splitlines()
    assert first.startswith(f"{game}: ") and " actions of 1 games" in first
    assert int(first.split(": ")[1].split(" ")[0]) > 10  # a whole game's actions
    assert steps.startswith("median per step: decode ")
