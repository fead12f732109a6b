"""Enforcing move deadlines from whichever process is alive.

The truth is the clock in each table's stream (server/play/clock.py, entry field ``c``); the
sorted set ``tables:deadlines`` (server/store/streams.py) is an index of table id → a time no
later than its next deadline. It is kept that way without a cross-slot script:

- before an append the appender lowers the score to a bound of the next deadline
  (``ZADD LT``), so a process that dies right after its append leaves a score that wakes
  someone early, never late;
- after it (and when a process loads a clocked table) ``settle`` writes the exact
  deadline, then re-reads the stored seq: if the table moved meanwhile it syncs and
  writes again, so a slower writer cannot leave a stale, later score behind.

Every process scans the index every ``deadline_scan`` s (``ZRANGEBYSCORE … now``). For a
due table it loads it (replay if needed), checks the deadline in the stream, and stores
the bot's move for the seat (``Actions.act(..., timed_out=True)``) with the expected seq
and the action id ``timeout:<seq>``: when several processes enforce the same deadline,
the append script stores exactly one. A table whose deadline is not due yet is settled.
A starting process re-indexes the running clocked tables (``repair``), so an index entry
Redis lost in a crash comes back without anyone opening the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from redis.exceptions import RedisError

from engine.game import IllegalAction
from server import metrics
from server.bots import kinds as bots
from server.errors import LobbyError, Unavailable
from server.logging import get_logger
from server.play import clock
from server.table.live import LiveTable
from server.table.tables import Tables

log = get_logger("deadlines")
REPAIR_LIMIT = 1000
"""Running tables a starting process re-indexes (the lobby list's newest)."""
BOT_WAKE_MS = 10_000
"""While a bot is to move on a clocked table, the index wakes a process this long after
the last settle: it loads the table, so its bots play even if their process died."""


class Deadlines:
    """The deadline scan of one process (``start``/``stop``), and ``settle``."""

    def __init__(self, tables: Tables, interval: float) -> None:
        self.tables = tables
        self.store = tables.store
        self.interval = interval
        self.task: asyncio.Task[None] | None = None
        self.busy: set[str] = set()

    def start(self) -> None:
        """Start scanning, and re-index the running clocked tables once (``repair``)."""
        self.task = asyncio.get_running_loop().create_task(self._run())
        self.tables.spawn(self.repair())

    async def repair(self, limit: int = REPAIR_LIMIT) -> int:
        """Settle the index entry of every running table with a clock (up to ``limit``,
        newest first): an entry Redis lost (its last second before a crash, with
        ``appendfsync everysec``) comes back when any process starts, not only when
        someone opens the table. Returns how many tables were settled."""
        try:
            ids = await self.store.lobby.ids("running", limit)
            metas = await self.store.metas(ids) if ids else []
        except RedisError as e:
            log.warning("deadline repair failed", error=str(e))
            return 0
        done = 0
        for table_id, fields in zip(ids, metas, strict=True):
            if not fields or not clock.parse(json.loads(fields.get("time_control") or "{}")
                                             ).clocked:
                continue
            with contextlib.suppress(Unavailable, RedisError, ValueError):
                table = await self.tables.get(table_id)  # loading settles it (on_clock)
                if table is not None:
                    await self.settle(table)
                    done += 1
        return done

    async def stop(self) -> None:
        """Stop scanning."""
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task

    def touch(self, table: LiveTable) -> None:
        """Settle ``table``'s score in the background (it was appended to or loaded)."""
        self.tables.spawn(self.settle(table))

    async def settle(self, table: LiveTable) -> None:
        """Write ``table``'s exact next deadline to the index (or drop it), until the
        stored seq is the one the deadline was computed at."""
        for _ in range(8):
            due = table.deadline()
            at = due[0] if due else None
            if at is None and self._bot_to_move(table):
                # A bot's turn has no deadline, but if the process running the bot dies,
                # another one must load the table (which starts its bots): wake one then.
                at = self.tables.now() + BOT_WAKE_MS
            stored = await self.store.settle_deadline(table.id, at)
            if stored is None:
                await self.store.deadlines.set(table.id, None)
                return
            if stored <= table.seq:
                return
            await self.tables.streams.sync(table)

    @staticmethod
    def _bot_to_move(table: LiveTable) -> bool:
        return (table.seq > 0 and not table.game_over()
                and any(table.by_bot(s) for s in table.to_move()))

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                due = await self.store.deadlines.due(self.tables.now())
            except Exception as e:  # Redis down (or a bug): the next scan tries again
                metrics.REDIS_ERRORS.inc()
                log.warning("deadline scan failed", error=str(e))
                continue
            for table_id in due:
                if table_id not in self.busy:
                    self.busy.add(table_id)
                    self.tables.spawn(self._enforce(table_id))
            metrics.DEADLINE_SCANS.inc()

    async def _enforce(self, table_id: str) -> None:
        try:
            table = await self.tables.get(table_id)
            if table is None:
                await self.store.deadlines.set(table_id, None)
                return
            due = table.deadline()
            if due is not None and due[0] <= self.tables.now():
                await self._time_out(table, due[1])
            await self.settle(table)
        except (Unavailable, RedisError) as e:
            log.warning("deadline enforcement failed", table=table_id, error=str(e))
            await asyncio.sleep(0.5)  # Redis is down: the next scan retries
        finally:
            self.busy.discard(table_id)

    async def _time_out(self, table: LiveTable, seat: int) -> None:
        seq = table.seq
        try:
            action = bots.timeout_move(table, seat, self.tables.settings.replacement_bot)
        except ValueError as e:
            log.warning("no move for a timed-out seat", table=table.id, seat=seat, error=str(e))
            return
        try:
            await self.tables.actions.act(table, seat, f"timeout:{seq}", action, seq, by_bot=True,
                                  timed_out=True)
            log.info("move timed out", table=table.id, seat=seat, seq=seq)
        except (IllegalAction, LobbyError) as e:
            # Another process stored it first (stale or dup), or the player moved just now.
            log.info("timeout not stored here", table=table.id, seat=seat, seq=seq,
                     code=getattr(e, "code", "?"))
