"""The tables of one process: the cache of live tables, loading by replay, following
their channels, and the collaborators every change to a table goes through.

``Tables`` holds the tables something local watches (sockets, bots) and loads the others
on demand (rebuilt by replay, in a thread). What happens to a table is done by one small
object each, all built here and reached through it:

- ``streams`` (server/table/sync.py): keeping each cached table in step with Redis;
- ``actions`` (server/table/actions.py): a player's or bot's action, a seat's change of hands;
- ``lobby`` (server/table/lobby.py): creating, changing and starting open tables;
- ``ending`` (server/table/ending.py): the end of a game, its record and archive;
- ``bots`` (server/table/bot_seats.py): which tables' bots this process drives.

What the rest of the process does about a table (sockets, mails, clocks, presence, bot
tasks) it is told through the ``TableListener`` it passes in (server/table/listener.py).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Coroutine
from typing import Any

from redis.exceptions import RedisError

from server import metrics
from server.config import Settings
from server.errors import Unavailable
from server.fanout.subscriber import Subscriber
from server.logging import get_logger
from server.store.streams import Store
from server.table import archive
from server.table.actions import Actions
from server.table.bot_seats import BotSeats
from server.table.ending import Ending
from server.table.listener import TableListener
from server.table.live import LiveTable
from server.table.lobby import TableLobby
from server.table.meta import TableMeta
from server.table.sync import StreamSync

log = get_logger("tables")


class Tables:
    """The tables of this process (see the module docstring)."""

    def __init__(self, settings: Settings, store: Store,
                 listener: TableListener | None = None) -> None:
        self.settings = settings
        self.store = store
        self.listener = listener or TableListener()
        self.now: Callable[[], int] = settings.now_ms
        """The service's clock (ms since the epoch; injectable: ``Settings.clock_file``)."""
        self.cache: dict[str, LiveTable] = {}  # the tables something local watches
        self.loading: dict[str, asyncio.Future[LiveTable | None]] = {}
        self.peeking: dict[str, asyncio.Future[TableMeta | None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self.closing = False
        self.streams = StreamSync(self)
        self.actions = Actions(self)
        self.lobby = TableLobby(self)
        self.ending = Ending(self)
        self.bots = BotSeats(self)
        self.subscriber = Subscriber(store.redis, self.streams.published,
                                     self.streams.resync_all, store.own_echo,
                                     store.lane.params if store.lane is not None else None)

    # ---- ``TableEvents`` of every live table (server/table/live.py) ----------------------

    def control_changed(self, table: LiveTable) -> None:
        """A seat changed hands: the bot seats see to it."""
        self.bots.control_changed(table)

    def game_ended(self, table: LiveTable) -> None:
        """The game ended: settled by ``ending``."""
        self.ending.game_ended(table)

    async def start(self) -> None:
        """Open the subscription."""
        await self.subscriber.start()

    async def stop(self) -> None:
        """Stop bots, give their leases up (another process takes them over at its next
        scan) and the subscription."""
        self.closing = True
        await self.bots.stop()
        await self.subscriber.stop()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the background, keeping a reference until it ends; its failure
        is logged (background work is best effort: a later sync repairs it)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None and not self.closing:
            log.warning("background task failed", error=repr(task.exception()))

    async def get(self, table_id: str, watch: bool = False, seen: TableMeta | None = None
                  ) -> LiveTable | None:
        """The table, loaded (by replay) if needed and synced with Redis; ``watch``: keep it
        subscribed. ``None`` for an unknown table. Raises ``Unavailable``.

        ``seen``: the table's meta as the caller just peeked it (``peek``; not changed
        here), for a ``watch``: a load starts from it instead of reading it again, since
        the subscription's sync (``follow``) reads the meta after subscribing, before
        this returns. Ignored without ``watch``."""
        try:
            table = self.cache.get(table_id)
            if table is None:
                table = await self._load(table_id, seen if watch else None)
                if table is None:
                    return None
            elif not table.subscribed and not await self.streams.sync(table):
                self.cache.pop(table_id, None)  # expired (an unstarted table) meanwhile
                metrics.TABLES.set(len(self.cache))
                return None
            if watch or table.bot_tasks:
                table = self.cache.setdefault(table_id, table)
                metrics.TABLES.set(len(self.cache))
                # Until the caller's socket is in the room, an unwatch of another socket
                # that just left must not drop the table (it would be served orphaned).
                table.joining += 1
                try:
                    await self.follow(table)
                finally:
                    table.joining -= 1
                if self.cache.get(table_id) is not table:
                    return None  # the follow's sync found it gone from Redis (``vanished``)
            return table
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            raise Unavailable(str(e)) from None

    async def peek(self, table_id: str, fresh: bool = False) -> TableMeta | None:
        """The table's meta without loading the table: the cached table's (unless
        ``fresh``), else one ``HGETALL`` (shared with the peeks of that table already
        waiting for theirs: a caller that must not act on a meta read before it asked
        checks again, as ``server/ws/endpoint.py`` does); ``None`` for an unknown table. A
        private table's
        secret is checked on it first, so a refusal costs what an unknown id costs (no
        replay: nothing to time). The meta is shared (the cached table's, or one parse
        for all the peeks of one read): read it, never change it. Raises ``Unavailable``,
        and ``KeyError``/``ValueError`` for a hash that is no meta."""
        cached = None if fresh else self.cache.get(table_id)
        if cached is not None:
            return cached.meta
        # Sockets arriving together (a thousand spectators after a link was shared, a
        # table's four players) share one HGETALL in flight, and its parse, instead of
        # one each, which overran the Redis timeout (1013) on a loaded machine.
        pending = self.peeking.get(table_id)
        if pending is None:
            pending = asyncio.ensure_future(self._peek(table_id))
            self.peeking[table_id] = pending
            pending.add_done_callback(lambda _: self.peeking.pop(table_id, None))
        try:
            return await asyncio.shield(pending)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            raise Unavailable(str(e)) from None

    async def _peek(self, table_id: str) -> TableMeta | None:
        fields = await self.store.load_meta(table_id)
        return TableMeta.from_fields(table_id, fields) if fields else None

    async def _load(self, table_id: str, seen: TableMeta | None = None) -> LiveTable | None:
        """``seen``: see ``get`` (its caller follows the table before it returns)."""
        pending = self.loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[LiveTable | None] = asyncio.get_running_loop().create_future()
        self.loading[table_id] = fut
        try:
            if seen is None:
                fields = await self.store.load_meta(table_id)
                if not fields:
                    fut.set_result(None)
                    return None
                meta = TableMeta.from_fields(table_id, fields)
            else:
                # The peek's meta is shared with its other callers, and the table changes
                # its own (seq, head): a copy (every change replaces a field, none edits
                # one in place).
                meta = copy.copy(seen)
            table = self._live(meta)
            if meta.seq:
                entries = await self.entries(table_id, meta)
                # Folding a whole game is 10-20 ms of pure Python: in a thread, the event
                # loop gets its turn every switch interval (5 ms) instead of waiting for it
                # (a GET of an unwatched table per request). Nobody sees the table yet.
                await asyncio.to_thread(table.replay, entries)
            if table.tc.clocked:
                self.listener.clock_changed(table)
            self.bots.ensure(table)
            if table.bot_tasks:
                await self.follow(table)
            if table.game_over() and meta.status != "ended":
                self.spawn(self.ending.finish(table))  # the ending process died before marking it
            fut.set_result(table)
            return table
        except BaseException as e:
            fut.set_exception(e)
            fut.exception()  # mark retrieved: waiters re-raise it
            raise
        finally:
            self.loading.pop(table_id, None)

    def _live(self, meta: TableMeta, ring: int | None = None) -> LiveTable:
        return LiveTable(meta, ring or self.settings.recent_deltas, events=self, now=self.now)

    async def follow(self, table: LiveTable) -> None:
        """Subscribe to the table's channel, then sync it; a caller that finds it being
        followed waits for that sync (its outcome too: raises ``redis.RedisError``), so
        no socket is served the meta its load started from before that is checked."""
        if table.subscribed:
            if table.following is not None:
                await asyncio.shield(table.following)
            return
        table.subscribed = True
        done = table.following = asyncio.get_running_loop().create_future()
        try:
            await self.subscriber.follow(table.id)
            await self.streams.sync(table)  # stored between the load and the subscription
        except Exception as e:
            done.set_exception(e)
            done.exception()  # marked retrieved: the waiters re-raise it
            raise
        finally:
            table.following = None
            if not done.done():  # synced (or this caller cancelled: the others go on)
                done.set_result(None)

    async def unwatch(self, table: LiveTable) -> None:
        """Drop the subscription, and the table from the cache, when no local socket or bot
        watches it any more. Whatever its status: an unwatched table changes only through
        Redis, which rebuilds it on demand by replay, so keeping it would grow memory with
        every game played and every lobby abandoned (docs/reliability.md, "Soak runs")."""
        if not self._unwatched(table) or not table.subscribed:
            return
        table.subscribed = False
        await self.subscriber.unfollow(table.id)
        # A socket may have come (and subscribed again) while we waited.
        if self._unwatched(table) and not table.subscribed and self.cache.get(table.id) is table:
            del self.cache[table.id]
            metrics.TABLES.set(len(self.cache))
            if table.meta.status == "ended" and table.game_over():
                self.spawn(self.ending.archive_later(table))  # no longer watched here

    async def entries(self, table_id: str, meta: TableMeta, after: int = 0
                      ) -> list[dict[str, Any]]:
        """The stored entries of seqs ``after+1 … meta.seq`` (and any stored since),
        rebuilt by replay from the archive once the game is archived (server/table/archive.py).
        Raises ``redis.RedisError``, and ``ArchiveError`` for an archive that does not
        rebuild the game."""
        got = await self.store.load_entries(table_id, after)
        if len(got) >= meta.seq - after:
            return got
        blob = await self.store.load_archive(table_id)
        if blob is None:
            return got
        return archive.rebuild(meta, blob)[after:]

    @staticmethod
    def _unwatched(table: LiveTable) -> bool:
        return not len(table.room) and not table.bot_tasks and not table.joining
