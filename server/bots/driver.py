"""Bot seats: one asyncio task per bot seat, acting through the same path as people.

A bot waits until its seat is to move, picks an action from what its seat may know, and,
once ``bot_delay`` seconds have passed since it began (so people can follow, and so the
time to its move does not tell how long it searched), submits it through
``Actions.act`` with the action id ``bot:<seq>``: two processes driving the same bot at
the same seq store it at most once (the append script's idempotency check). Bot kinds are
the game's (``Game.bots`` through ``engine.bots.make_bot``), so a new game or kind needs
no server change.

``random`` decides inline (microseconds). ``greedy`` and ``mcts`` search in the process
pool of ``server.bots.pool`` on the seat's observation (``Game.observation``). Every move
is made by a fresh bot seeded ``bot_seed``, derived from the table's secret server seed:
every process picks the same move, and anyone can check the moves once the record
publishes that seed, but nobody can before (a seed made of the table id and seat alone
let a spectator rerun a random bot and read its hidden hand off the index of each pick).
"""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from engine.game import IllegalAction
from server import metrics
from server.bots.kinds import INLINE_KINDS, bot_seed, make
from server.bots.pool import BotPool
from server.errors import Unavailable
from server.logging import get_logger
from server.table import tutorial
from server.table.live import LiveTable
from server.table.tables import Tables

log = get_logger("bots")

class BotDriver:
    """Starts the task of each bot seat of the tables of one process; searches run in
    ``pool`` (``workers`` processes, 0: a thread); workers that finish nothing for
    ``search_timeout`` seconds while work waits count as hung (``BotPool``)."""

    def __init__(self, tables: Tables, delay: float, workers: int = 2,
                 search_timeout: float = 30.0) -> None:
        self.tables = tables
        self.delay = delay
        self.pool = BotPool(workers, search_timeout)

    def start(self, table: LiveTable, seat: int) -> asyncio.Task[None]:
        """The task that plays ``seat`` of ``table`` until the game ends."""
        task = asyncio.get_running_loop().create_task(self._play(table, seat))
        task.add_done_callback(lambda _t: self.tables.bots.done(table, seat))
        return task

    async def close(self) -> None:
        """Stop the search workers and wait for them (after the bot tasks were
        cancelled)."""
        await self.pool.close()

    async def _play(self, table: LiveTable, seat: int) -> None:
        kind, level = table.bot_of(seat)
        game = table.game
        # A tutorial's bot plays as a plain kind seeded without the table's id: its answers
        # to the lesson's moves are the same at every tutorial table (server/table/tutorial.py).
        seed_id = table.id
        if kind == tutorial.KIND:
            kind, level, seed_id = tutorial.plays_as(game.name), None, tutorial.KIND
        with contextlib.suppress(Unavailable):
            await self.tables.get(table.id, watch=True)
        turn = table.turn[seat]
        # Until the game ends, or the seat's player takes it back (engine/seat_control.py).
        while not table.game_over() and table.by_bot(seat):
            if seat not in table.to_move():
                turn.clear()
                await turn.wait()
                continue
            seq = table.seq
            started = asyncio.get_running_loop().time()
            try:
                if kind in INLINE_KINDS:
                    # A fresh bot per move, as in the pool: every process picks the same.
                    seed = bot_seed(table.meta.server_seed, seed_id, seat, seq)
                    action = make(game.name, kind, seed, level).choose(
                        game, table.state, seat).to_dict()
                else:
                    action = await self._search(kind, level, table, seat, seed_id)
            except (BrokenProcessPool, ValueError, RuntimeError) as e:
                # A worker died or the pool is shutting down: try again on a fresh one.
                log.warning("bot search failed", table=table.id, seq=seq, seat=seat,
                            error=repr(e))
                await asyncio.sleep(0.5)
                continue
            metrics.BOT_MOVES.inc()
            # The delay is served after the search, not before: how long a bot takes to move
            # must not tell how long it thought, which grows with its legal actions, i.e. its
            # hidden hand (docs/fairness.md).
            spent = asyncio.get_running_loop().time() - started
            await asyncio.sleep(max(0.0, self.delay - spent))
            if (table.seq != seq or seat not in table.to_move()
                    or not table.by_bot(seat)):
                continue  # another process stored this move meanwhile, or the seat changed
            try:
                await self.tables.actions.act(table, seat, f"bot:{seq}", action, seq, by_bot=True)
            except IllegalAction as e:
                log.info("bot action refused", table=table.id, seq=seq, seat=seat, code=e.code)
                if e.code == "no_table":
                    return  # the table is gone from Redis: nothing left to play
                await asyncio.sleep(0.05)
            except Unavailable:
                await asyncio.sleep(0.5)

    async def _search(self, kind: str, level: int | None, table: LiveTable,
                      seat: int, seed_id: str) -> dict[str, Any]:
        # The worker gets a snapshot of what the seat may know, never the live state.
        observation = table.game.observation(table.state, seat)
        seed = bot_seed(table.meta.server_seed, seed_id, seat, table.seq)
        return await self.pool.think(table.game.name, kind, seed, level, observation)
