"""Which tables' bots this process drives: a lease per table (server/bots/leases.py),
renewed every third of its length; bot tasks for the seats bots play (started through
the listener: server/bots/driver.py), resumed after a restart for the tables listed as
having bots, and taken over from a process that went.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from server import metrics
from server.bots.leases import BotLeases
from server.errors import Unavailable
from server.logging import get_logger
from server.table.live import LiveTable

RESUME_LIMIT = 10_000
"""Running bot tables a process loads when it starts (``BotSeats.resume``)."""

if TYPE_CHECKING:  # the hub that builds this object (no import at run time)
    from server.table.tables import Tables

log = get_logger("tables")


class BotSeats:
    """The bot seats of the tables of ``tables`` (see the module docstring)."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.leases = BotLeases(tables.store, int(tables.settings.bot_lease * 1000))
        """The tables whose bots this process drives (server/bots/leases.py)."""
        self.claiming: set[str] = set()
        self.task: asyncio.Task[None] | None = None

    async def stop(self) -> None:
        """Stop the lease keeper and every bot, and give the leases up (another process
        takes them over at its next scan)."""
        if self.task is not None:
            self.task.cancel()
        for table in self.tables.cache.values():
            for task in table.bot_tasks.values():
                task.cancel()
        with contextlib.suppress(RedisError, TimeoutError):
            await asyncio.gather(*(self.leases.release(t) for t in sorted(self.leases.held)))

    def start(self) -> None:
        """Resume the bot tables no other process drives (``resume_bots``), then keep the
        leases: renew them, and take over tables whose driving process went."""
        self.task = asyncio.get_running_loop().create_task(self.keep_leases())

    def ensure(self, table: LiveTable) -> None:
        if not self.tables.listener.drives_bots or table.seq == 0 or table.game_over():
            return
        idle = [seat for seat in range(len(table.meta.seats))
                if table.by_bot(seat) and seat not in table.bot_tasks]
        if not idle:
            return
        if table.id not in self.leases.held:
            # Another process may drive them: only the lease's holder does.
            if table.id not in self.claiming and not self.tables.closing:
                self.claiming.add(table.id)
                self.tables.spawn(self.claim(table))
            return
        # A bot watches its table: the table stays cached (and, once its task runs,
        # subscribed). Bots play on the cached object only, never on a stray copy.
        if self.tables.cache.setdefault(table.id, table) is not table:
            return
        metrics.TABLES.set(len(self.tables.cache))
        for seat in idle:
            table.turn[seat] = asyncio.Event()
            table.bot_tasks[seat] = self.tables.listener.start_bot(table, seat)

    async def claim(self, table: LiveTable) -> None:
        try:
            got = await self.leases.claim(table.id)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("could not claim a table's bots", table=table.id, error=str(e))
            return  # the lease keeper tries again
        finally:
            self.claiming.discard(table.id)
        if got:
            current = self.tables.cache.get(table.id, table)
            self.ensure(current)
            if not current.bot_tasks:
                await self.release(table.id)  # nothing to drive here after all

    async def release(self, table_id: str) -> None:
        try:
            await self.leases.release(table_id)
        except RedisError as e:  # it expires on its own
            metrics.REDIS_ERRORS.inc()
            log.warning("could not release a table's bots", table=table_id, error=str(e))

    async def keep_leases(self) -> None:
        """Every third of the lease: renew the leases held (a table whose lease another
        process took stops its bots here), take over the cached tables whose bots nobody
        drives; every lease period (and at once) resume the listed bot tables."""
        rounds = 0
        while True:
            if rounds % 3 == 0:
                try:
                    await self.resume()
                except RedisError as e:
                    metrics.REDIS_ERRORS.inc()
                    log.warning("bot tables not resumed", error=str(e))
            await asyncio.sleep(self.leases.period)
            rounds += 1
            try:
                for table_id in await self.leases.renew():
                    log.warning("bot lease lost", table=table_id)
                    table = self.tables.cache.get(table_id)
                    if table is not None:
                        for task in list(table.bot_tasks.values()):
                            task.cancel()
                        # To another process, or with the whole table (a Redis that lost
                        # its data): the table's meta tells, and sync notices a lost one.
                        self.tables.spawn(self.tables.streams.recheck(table))
                for table in list(self.tables.cache.values()):
                    self.ensure(table)
            except Exception:  # a bug must not stop the renewals
                log.exception("bot leases not kept this round")

    def control_changed(self, table: LiveTable) -> None:
        """``TableEvents``: wake the bots (one whose seat went back stops), start new ones."""
        for event in table.turn.values():
            event.set()  # a bot whose seat went back to its player stops
        self.ensure(table)

    async def note(self, table_id: str) -> None:
        """Remember that a running table has a bot seat (``resume_bots`` after a restart);
        best effort: a table missed here resumes when someone opens it."""
        try:
            await self.tables.store.mark_bot_table(table_id, True)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("could not note a bot table", table=table_id, error=str(e))

    async def resume(self, limit: int = RESUME_LIMIT, parallel: int = 8) -> int:
        """Drive the listed running tables with bot seats (at most ``limit``,
        ``parallel`` at a time) whose bots no process drives, so that they play on after
        a restart although nobody watches them: a table is loaded only once this process
        holds its lease (server/bots/leases.py); one another process holds costs one Redis
        call. Returns how many tables this call started bots of; drops ended and gone
        ids from the set. Raises ``redis.RedisError`` when the set cannot be read."""
        ids = [t for t in await self.tables.store.bot_tables(limit)
               if t not in self.leases.held and t not in self.tables.cache]
        gate = asyncio.Semaphore(parallel)
        resumed = 0

        async def one(table_id: str) -> None:
            nonlocal resumed
            async with gate:
                try:
                    if not await self.leases.claim(table_id):
                        return
                    table = await self.tables.get(table_id)
                except (Unavailable, RedisError):
                    return
                if table is None or table.game_over():
                    with contextlib.suppress(RedisError):
                        await self.tables.store.mark_bot_table(table_id, False)
                if table is not None and table.bot_tasks:
                    resumed += 1
                else:
                    await self.release(table_id)

        await asyncio.gather(*(one(t) for t in ids))
        if resumed:
            log.info("bot tables resumed", tables=resumed, listed=len(ids))
        return resumed

    def done(self, table: LiveTable, seat: int) -> None:
        """A bot task ended (game over or cancelled)."""
        table.bot_tasks.pop(seat, None)
        table.turn.pop(seat, None)
        if not table.bot_tasks and not self.tables.closing:
            if table.id in self.leases.held:
                self.tables.spawn(self.release(table.id))
            self.tables.spawn(self.tables.unwatch(table))
