"""Bot seats: one asyncio task per bot seat, acting through the same path as people.

A bot waits until its seat is to move, thinks for ``bot_delay`` seconds (so people can
follow), picks an action from what its seat may know, and submits it through
``Tables.act`` with the action id ``bot:<seq>``: two processes driving the same bot at
the same seq store it at most once (the append script's idempotency check). Bot kinds are
the engine's registry (``engine.bots.make_bot``), so a new kind needs no server change.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from engine.game import IllegalAction
from server.logging import get_logger
from server.tables import LiveTable, Tables, Unavailable

log = get_logger("bots")


def bot_kinds() -> list[str]:
    """The bot kinds a seat may hold."""
    from engine.bots import KINDS

    return list(KINDS)


def make(kind: str, table_id: str, seat: int, level: int | None) -> Any:
    """A bot of ``kind`` seeded from the table id and seat; raises ``ValueError``."""
    from engine.bots import make_bot

    return make_bot(kind, f"{table_id}:{seat}", level=level)


def check_kind(kind: str, level: int | None) -> None:
    """Raise ``ValueError`` (with the reason) for a kind/level the registry refuses."""
    make(kind, "check", 0, level)


class BotDriver:
    """Starts the task of each bot seat of the tables of one process."""

    def __init__(self, tables: Tables, delay: float) -> None:
        self.tables = tables
        self.delay = delay
        tables.bot_runner = self.start

    def start(self, table: LiveTable, seat: int) -> asyncio.Task[None]:
        """The task that plays ``seat`` of ``table`` until the game ends."""
        task = asyncio.get_running_loop().create_task(self._play(table, seat))
        task.add_done_callback(lambda _t: self.tables.bots_done(table, seat))
        return task

    async def _play(self, table: LiveTable, seat: int) -> None:
        s = table.meta.seats[seat]
        bot = make(s.bot or "random", table.id, seat, s.level)
        game = table.game
        with contextlib.suppress(Unavailable):
            await self.tables.get(table.id, watch=True)
        turn = table.turn[seat]
        while not self.tables.game_over(table):
            if seat not in game.to_move(table.state):
                turn.clear()
                await turn.wait()
                continue
            seq = table.seq
            await asyncio.sleep(self.delay)
            if table.seq != seq or seat not in game.to_move(table.state):
                continue
            action = await self._choose(bot, table, seat)
            try:
                await self.tables.act(table, seat, f"bot:{seq}", action.to_dict(), seq)
            except IllegalAction as e:
                log.info("bot action refused", table=table.id, seq=seq, seat=seat, code=e.code)
                await asyncio.sleep(0.05)
            except Unavailable:
                await asyncio.sleep(0.5)

    async def _choose(self, bot: Any, table: LiveTable, seat: int) -> Any:
        # Heavy bots search in a thread on a snapshot of what the seat may know, so the
        # event loop keeps serving while they think and the live state is never shared.
        if getattr(bot, "kind", "") == "random" or not hasattr(bot, "act"):
            return bot.choose(table.game, table.state, seat)
        from engine.bots import observe

        observation = observe(table.state, seat)
        return await asyncio.to_thread(bot.act, observation, bot.budget)
