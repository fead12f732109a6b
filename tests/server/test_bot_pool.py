"""The bot pool's hang watchdog (server/bots/pool.py) on real worker processes: a pool that
finishes nothing for its allowance is ended, and the next pool gets twice as long, so
work slower than the bound (a fresh worker's start on a busy machine) still gets done."""

from __future__ import annotations

import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from server.bots.pool import MAX_STALLS, BotPool


async def test_each_pool_ended_as_hung_gets_twice_as_long_until_the_work_is_done() -> None:
    pool = BotPool(workers=1, stall=0.2)
    hung = []
    try:
        # Each call needs a fresh worker and 0.5 s of work: more than 0.2 s and 0.4 s.
        for _ in range(MAX_STALLS):
            try:
                await pool.run(time.sleep, 0.5)
                break
            except BrokenProcessPool as e:
                hung.append(str(e))
        else:
            raise AssertionError(f"never done: {hung}")
        assert hung[:2] == ["no worker finished anything in 0.2 s: ended as hung",
                            "no worker finished anything in 0.4 s: ended as hung"]
        # Done once: the next hang is timed from the plain bound again.
        with pytest.raises(BrokenProcessPool, match=r"in 0\.2 s: ended as hung"):
            await pool.run(time.sleep, 0.5)
    finally:
        await pool.close()
