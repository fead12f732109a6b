"""``cardtable balance``'s rolling restart (SIGHUP; docs/operations.md, "Rolling deploys
and upgrades"): every process is replaced, one at a time, while a game is played through
the balancer; the game goes on to its end and its record verifies."""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

import pytest

from tests.cli.test_balance import Balanced
from tests.server.client import Lobby, Player
from tests.trust.chaos import verify_record


async def until(check, what: str, timeout: float = 120.0):  # type: ignore[no-untyped-def]
    """Poll ``check`` until it holds (the pause is the polling's own)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not (got := check()):
        assert asyncio.get_running_loop().time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.05)
    return got


@pytest.mark.timeout(240)
async def test_sighup_replaces_every_process_one_at_a_time_while_a_game_goes_on(
        two: Balanced, tmp_path: Path) -> None:
    lobby = Lobby(two.url)
    try:
        table = await lobby.create(2)
        tid = table["id"]
        tokens = [(await lobby.join(tid, f"P{i}"))["token"] for i in range(2)]
        players = [Player(lambda: two.ws_url, tid, token, seed=seat, delay=0.05,
                          allow_drops=True) for seat, token in enumerate(tokens)]
        await lobby.start(tid, table["owner_token"])
        running = [asyncio.create_task(p.run(timeout=200)) for p in players]
        await until(lambda: sum(len(p.acks) for p in players) >= 3, "three moves")

        before = two.pids()
        log_at = len(two.log.read_text())
        assert two.proc is not None
        os.kill(two.proc.pid, signal.SIGHUP)
        await until(lambda: "rolling restart done" in two.log.read_text()[log_at:],
                    "the rolling restart's end")
        after = two.pids()
        assert after.keys() == before.keys()
        assert all(after[port] != before[port] for port in before), (before, after)
        # One at a time, in port order: each new process was announced (and answered its
        # /healthz) before the next old one was stopped.
        announced = [int(p) for p in re.findall(r"serve (\d+) pid \d+",
                                                 two.log.read_text()[log_at:])]
        assert announced == sorted(before)

        for task in running:
            await task
        record = (await lobby.get(f"/api/tables/{tid}/record")).json()
        assert verify_record(record, tmp_path / "record.json").returncode == 0
        assert all(p.done for p in players)
    finally:
        await lobby.close()
