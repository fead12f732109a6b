"""Live tables: every change to a table, and the process's registry of them.

A ``LiveTable`` (server/table/live.py: the pure core of server/table/core.py under an
asyncio shell) holds the fold of a table's stored events. Actions go through ``act``: the
engine decides, one Redis script appends (expected seq + idempotency), the entries are
applied; on ``stale`` the table syncs and decides once more.

``Tables`` is the process's registry: loads (rebuild by replay), subscriptions while
sockets or bots watch, the lobby operations, and the record after the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from redis.exceptions import RedisError

from engine import get_game, seat_control
from engine.chain import REDACTED, genesis, name_commitment
from engine.game import IllegalAction, Message
from engine.shuffle import combine_seed, commitment
from server import metrics
from server.accounts.ratings import bot_uid
from server.bots.kinds import effective_level, replacement
from server.bots.leases import BotLeases
from server.config import Settings
from server.errors import LobbyError, Unavailable
from server.fanout.subscriber import Subscriber
from server.logging import get_logger
from server.play import clock as clocks
from server.play import roles
from server.store.streams import Store
from server.store.streams import unpack as unpack_entry
from server.table import archive, continuity
from server.table.core import TableCore
from server.table.live import LiveTable
from server.table.meta import DELETED, Seat, TableMeta, token_hash
from server.table.records import make_record

log = get_logger("tables")

RESUME_LIMIT = 10_000
"""Running bot tables a process loads when it starts (``Tables.resume_bots``)."""


class Tables:
    """The tables of this process, and every operation on a table."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self.cache: dict[str, LiveTable] = {}  # the tables something local watches
        self.loading: dict[str, asyncio.Future[LiveTable | None]] = {}
        self.peeking: dict[str, asyncio.Future[dict[str, str]]] = {}
        self.subscriber = Subscriber(store.redis, self._published, self._resync_all)
        self.bot_runner: Callable[[LiveTable, int], asyncio.Task[None]] | None = None
        self.on_resync: Callable[[LiveTable], None] | None = None
        """Called after a table was rebuilt from Redis: every local socket needs a fresh
        welcome (server/ws/endpoint.py ``resync``)."""
        self.on_chat: Callable[[LiveTable, dict[str, Any]], None] | None = None
        # Account hooks (server/app.py wires them): seats newly to move after an action
        # this process stored; the game's end, before the table is marked ended (an
        # exception there leaves it unmarked, so the next process to load it retries).
        self.on_turn: Callable[[LiveTable, tuple[int, ...]], Awaitable[None]] | None = None
        self.on_end: Callable[[LiveTable], Awaitable[None]] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self.closing = False
        self.now: Callable[[], int] = settings.now_ms
        """The service's clock (ms since the epoch; injectable: ``Settings.clock_file``)."""
        self.on_clock: Callable[[LiveTable], None] | None = None
        """Called after this process stored entries of a clocked table, and when it loads
        one (server/play/deadlines.py keeps the deadline index right)."""
        self.on_presence: Callable[[LiveTable], None] | None = None
        """Called when another process announced a presence change (server/play/attendance.py)."""
        self.leases = BotLeases(store, int(settings.bot_lease * 1000))
        """The tables whose bots this process drives (server/bots/leases.py)."""
        self._claiming: set[str] = set()
        self._lease_task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Open the subscription."""
        await self.subscriber.start()

    def start_bots(self) -> None:
        """Resume the bot tables no other process drives (``resume_bots``), then keep the
        leases: renew them, and take over tables whose driving process went."""
        self._lease_task = asyncio.get_running_loop().create_task(self._keep_leases())

    async def stop(self) -> None:
        """Stop bots, give their leases up (another process takes them over at its next
        scan) and the subscription."""
        self.closing = True
        if self._lease_task is not None:
            self._lease_task.cancel()
        for table in self.cache.values():
            for task in table.bot_tasks.values():
                task.cancel()
        with contextlib.suppress(RedisError, TimeoutError):
            await asyncio.gather(*(self.leases.release(t) for t in sorted(self.leases.held)))
        await self.subscriber.stop()

    def spawn(self, coro: Any) -> None:
        """Run ``coro`` in the background, keeping a reference until it ends; its failure
        is logged (background work is best effort: a later sync repairs it)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None and not self.closing:
            log.warning("background task failed", error=repr(task.exception()))

    # ---- loading and following ---------------------------------------------------------

    async def get(self, table_id: str, watch: bool = False) -> LiveTable | None:
        """The table, loaded (by replay) if needed and synced with Redis; ``watch``: keep it
        subscribed. ``None`` for an unknown table. Raises ``Unavailable``."""
        try:
            table = self.cache.get(table_id)
            if table is None:
                table = await self._load(table_id)
                if table is None:
                    return None
            elif not table.subscribed and not await self.sync(table):
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
                    await self._follow(table)
                finally:
                    table.joining -= 1
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
        replay: nothing to time). Raises ``Unavailable``."""
        cached = None if fresh else self.cache.get(table_id)
        if cached is not None:
            return cached.meta
        # Sockets arriving together (a thousand spectators after a link was shared)
        # share one HGETALL in flight instead of one each, which overran the Redis
        # timeout (1013) on a loaded machine.
        pending = self.peeking.get(table_id)
        if pending is None:
            pending = asyncio.ensure_future(self.store.load_meta(table_id))
            self.peeking[table_id] = pending
            pending.add_done_callback(lambda _: self.peeking.pop(table_id, None))
        try:
            fields = await asyncio.shield(pending)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            raise Unavailable(str(e)) from None
        return TableMeta.from_fields(table_id, fields) if fields else None

    async def _load(self, table_id: str) -> LiveTable | None:
        pending = self.loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[LiveTable | None] = asyncio.get_running_loop().create_future()
        self.loading[table_id] = fut
        try:
            fields = await self.store.load_meta(table_id)
            if not fields:
                fut.set_result(None)
                return None
            meta = TableMeta.from_fields(table_id, fields)
            table = self._live(meta)
            if meta.seq:
                entries = await self.entries(table_id, meta)
                # Folding a whole game is 10-20 ms of pure Python: in a thread, the event
                # loop gets its turn every switch interval (5 ms) instead of waiting for it
                # (a GET of an unwatched table per request). Nobody sees the table yet.
                await asyncio.to_thread(table.replay, entries)
            if table.tc.clocked and self.on_clock is not None:
                self.on_clock(table)
            self._ensure_bots(table)
            if table.bot_tasks:
                await self._follow(table)
            if table.game_over() and meta.status != "ended":
                self.spawn(self._finish(table))  # the ending process died before marking it
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

    async def _follow(self, table: LiveTable) -> None:
        if table.subscribed:
            return
        table.subscribed = True
        await self.subscriber.follow(table.id)
        await self.sync(table)  # events stored between the load and the subscription

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
                self.spawn(self._archive_later(table))  # no longer watched here

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

    async def _archive_later(self, table: LiveTable) -> None:
        """Archive the game after ``archive_after`` seconds unless it is watched again."""
        await asyncio.sleep(self.settings.archive_after)
        if table.id not in self.cache and not self.closing:
            await self._archive(table)

    async def _archive(self, table: LiveTable) -> None:
        """Store an ended, unwatched game as its archive (events and action ids go)."""
        try:
            raw = await self.store.load_raw(table.id)
            if len(raw) != table.seq or table.meta.seq != table.seq:
                return  # archived already, or this process is behind
            fields = await self.store.load_meta(table.id)
            entries = [unpack_entry(b) for b in raw]
            blob = archive.pack(table.meta, entries, raw)
            if await self.store.archive(table.id, table.seq, blob, fields):
                log.info("game archived", table=table.id, seq=table.seq,
                         bytes_before=sum(map(len, raw)), bytes_after=len(blob))
        except archive.ArchiveError as e:
            log.error("game not archived: its archive would not rebuild it", table=table.id,
                      error=str(e))
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("game not archived", table=table.id, error=str(e))

    @staticmethod
    def _unwatched(table: LiveTable) -> bool:
        return not len(table.room) and not table.bot_tasks and not table.joining

    async def sync(self, table: LiveTable) -> bool:
        """Fetch and apply the entries this process has not seen (and reload the meta),
        after checking that the stored stream is the cached one (``continuity``): if it
        is not (Redis lost writes), the table is rebuilt from Redis and every local socket
        gets a fresh welcome. Returns False when the table no longer exists in Redis (its
        sockets are closed with 4004 and its bots stop)."""
        async with table.sync_lock:
            # Pub/sub may apply entries while we wait: compare Redis with what the table
            # held before asking, and place loaded entries by the seq they follow (apply
            # skips what is already applied).
            seq, head = table.seq, table.head.hex()
            fields = await self.store.load_meta(table.id)
            if not fields:
                self._vanished(table)
                return False
            meta = TableMeta.from_fields(table.id, fields)
            verdict = continuity.stored(seq, head, meta.seq, meta.head)
            fresh: list[dict[str, Any]] = []
            if verdict == "ahead":
                loaded = await self.entries(table.id, meta, max(seq - 1, 0))
                if continuity.continues(seq, head, [e["h"] for e in loaded[:1]]):
                    fresh = loaded[1:] if seq else loaded
                else:
                    verdict = "other"
            if verdict == "other":
                await self._rebuild(table, meta, seq)
                return True
            self._set_meta(table, meta)
            if fresh:
                table.apply(fresh, seq + 1)
            self._ensure_bots(table)  # the game may have started meanwhile
            return True

    async def _rebuild(self, table: LiveTable, meta: TableMeta, cached_seq: int) -> None:
        """The stored stream is not the one cached: fold Redis's again, in place (bots
        and sockets keep the same object), and resend every local socket a welcome."""
        entries = await self.entries(table.id, meta)
        old_head = table.head.hex()
        table.reset(meta, entries)
        metrics.REBUILDS.inc()
        log.warning("stored stream differs from the cached one; table rebuilt from Redis",
                    table=table.id, cached_seq=cached_seq, cached_head=old_head[:16],
                    stored_seq=table.seq)
        for seat, conns in tuple(table.room.players.items()):
            for conn in tuple(conns):  # Redis may have lost a lobby change too
                if seat >= len(meta.tokens) or meta.tokens[seat] != conn.token_hash:
                    conn.shut(1008, "seat token no longer valid")
        if self.on_resync is not None:
            self.on_resync(table)
        self._stored(table)  # the clock as stored now
        for seat in table.game.to_move(table.state):
            turn = table.turn.get(seat)
            if turn is not None:
                turn.set()  # a bot waiting for its turn looks again
        if table.game_over():
            for turn in table.turn.values():
                turn.set()
            if table.meta.status != "ended":
                self.game_ended(table)
        self._ensure_bots(table)

    def _vanished(self, table: LiveTable) -> None:
        """The table is gone from Redis (expired, or Redis lost it): stop its bots, close
        its sockets with 4004 and forget it."""
        # A running table never expires (every append persists its meta): gone, it was
        # lost, whether or not anyone watched it here at that moment.
        if table.room or table.bot_tasks or table.meta.status == "running":
            log.warning("table no longer in Redis; its sockets are closed", table=table.id,
                        cached_seq=table.seq, sockets=len(table.room))
            metrics.VANISHED.inc()
        for task in list(table.bot_tasks.values()):
            task.cancel()
        for conn in tuple(table.room.connections()):
            conn.shut(4004, "the table no longer exists")
        if self.cache.get(table.id) is table:
            del self.cache[table.id]
            metrics.TABLES.set(len(self.cache))
        if table.subscribed:
            table.subscribed = False
            self.spawn(self.subscriber.unfollow(table.id))

    def _set_meta(self, table: LiveTable, meta: TableMeta) -> None:
        old = table.meta
        table.meta = meta
        meta.seq, meta.head = max(meta.seq, table.seq), meta.head or table.head.hex()
        if (old.version, old.status) != (meta.version, meta.status):
            if table.seq and any(s.account == DELETED and o.account != DELETED
                                 for s, o in zip(meta.seats, old.seats, strict=False)):
                self.spawn(self._renamed(table))  # its name left the stored game too
            # A seat given to someone else drops the sockets of the old token.
            for seat, conns in tuple(table.room.players.items()):
                for conn in tuple(conns):
                    if seat >= len(meta.tokens) or meta.tokens[seat] != conn.token_hash:
                        conn.shut(1008, "seat token no longer valid")
            table.room.publish("table", meta.summary())
            self._ensure_bots(table)

    def _published(self, table_id: str, msg: dict[str, Any]) -> None:
        table = self.cache.get(table_id)
        if table is None:
            return
        if "chat" in msg:
            if self.on_chat is not None:
                self.on_chat(table, msg["chat"])
            return
        entries = msg.get("entries") or []
        if entries:
            first = int(msg["from"])
            verdict = continuity.published(table.seq, table.head_at, first, msg.get("prev"),
                                           [e["h"] for e in entries])
            if verdict == "apply":
                table.apply(entries, first)
            elif verdict == "check":
                # A gap (filled from the event list), or entries that do not continue the
                # cached stream: the sync finds out which, and rebuilds in the latter case.
                self.spawn(self._safe_sync(table))
        if msg.get("presence") and self.on_presence is not None:
            self.on_presence(table)
        if msg.get("meta"):
            self.spawn(self._safe_sync(table))

    async def _safe_sync(self, table: LiveTable) -> None:
        try:
            await self.sync(table)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("sync failed", table=table.id, error=str(e))

    async def _resync_all(self) -> None:
        for table in list(self.cache.values()):
            if table.subscribed:
                await self._safe_sync(table)

    # ---- actions -------------------------------------------------------------------------

    async def act(self, table: LiveTable, seat: int, action_id: str,
                  body: dict[str, Any], expected_seq: int | None = None,
                  by_bot: bool = False, timed_out: bool = False) -> int:
        """Validate, decide, store and apply one action of ``seat``; returns the seq after
        it (the original seq for a repeated ``action_id``). With ``expected_seq`` the
        action is only decided at that seq (else ``stale``); without it, a conflict with
        another process re-decides once on the newer state. Raises ``IllegalAction`` (the
        engine's code, or ``not_started``, ``not_your_seat``, ``stale``) or
        ``Unavailable``; neither changes anything. A seat whose ``kind`` is ``bot`` (e.g.
        handed to a bot by the host) acts only ``by_bot`` (else ``seat_handed_over``).
        Idempotency is per sender (``roles.act_key``): a person's ``action_id`` never
        matches a bot's. ``timed_out``: the bot's move for a seat whose time ran out
        (server/play/deadlines.py; only at ``expected_seq``): stored after a ``seat_timed_out``
        event, and after ``timeouts_to_bot`` in a row the seat goes to a bot in the same
        append."""
        if table.seq == 0:
            raise IllegalAction("not_started", "the game has not started yet")
        data = dict(body)
        if data.setdefault("seat", seat) != seat:
            other = data["seat"]
            shown = f"#{other + 1}" if type(other) is int else repr(other)
            raise IllegalAction("not_your_seat", f"you hold seat #{seat + 1}, not {shown}")
        action = table.game.actions.decode(data)
        act_key = roles.act_key(seat, action_id, by_bot)
        async with table.lock:
            try:
                if table.suspect:
                    await self.sync(table)  # an earlier append may have been stored unseen
                    table.suspect = False
                for _ in range(2):
                    if expected_seq is not None and table.seq < expected_seq:
                        await self.sync(table)  # the client saw events we have not yet
                    # On every state the action is decided on: a sync (or the lock's wait)
                    # may have brought the seat's change to a bot.
                    if not by_bot and table.by_bot(seat):
                        raise IllegalAction("seat_handed_over", f"seat #{seat + 1} is played "
                                            "by a bot now; this token no longer acts")
                    if expected_seq is not None and table.seq != expected_seq:
                        done = await self.store.act_seq(table.id, act_key)
                        if done is not None:
                            return await self._caught_up(table, done)
                        raise IllegalAction("stale", f"the table is at seq {table.seq}, "
                                                     f"not {expected_seq}; look and try again")
                    try:
                        prefix = self._timeout_events(table, seat) if timed_out else []
                        events = prefix + list(table.game.decide(table.state, action))
                    except IllegalAction:
                        done = await self.store.act_seq(table.id, act_key)
                        if done is not None:
                            return await self._caught_up(table, done)
                        raise
                    prev = table.head.hex()
                    entries, head = table.chain(events, action, len(prefix))
                    extra = await self._clocked(table, entries, seat, timed_out,
                                                by_bot and not timed_out, prefix)
                    before = table.game.to_move(table.state)
                    result = await self.store.append(table.id, table.seq, entries, head, act_key,
                                                     prev=prev, **extra)
                    if result.status == "ok":
                        table.apply(entries, result.seq - len(entries) + 1)
                        self._stored(table)
                        self._turn_hook(table, before)
                        return result.seq
                    if result.status == "dup":
                        # Stored before (a resend, or a retry after a lost reply): make
                        # sure this process has applied it before the ack goes out.
                        return await self._caught_up(table, result.seq)
                    if result.status == "missing":
                        self._vanished(table)
                        raise IllegalAction("no_table", "the table no longer exists")
                    # Stale: another process appended first, or the stored stream is not
                    # the cached one (the sync rebuilds the table then).
                    await self.sync(table)
                raise IllegalAction("stale", "the table changed meanwhile; look and try again")
            except RedisError as e:
                metrics.REDIS_ERRORS.inc()
                table.suspect = True
                raise Unavailable(str(e)) from None

    def _timeout_events(self, table: LiveTable, seat: int) -> list[Message]:
        """``seat_timed_out`` (and, at ``timeouts_to_bot`` in a row, the seat's change to
        a bot) before the bot's move for a seat whose time ran out."""
        count = (table.clock.timeouts[seat] if table.clock else 0) + 1
        out: list[Message] = [seat_control.SeatTimedOut(seat, count)]
        if count >= self.settings.timeouts_to_bot:
            kind = replacement(table.meta.game, self.settings.replacement_bot)
            out.append(seat_control.SeatControllerChanged(
                seat, "bot", "timeout", kind, effective_level(kind, None)))
        return out

    async def _clocked(self, table: LiveTable, entries: list[dict[str, Any]], seat: int | None,
                       timed_out: bool, by_bot: bool, control: list[Message]
                       ) -> dict[str, Any]:
        """Put the clock after this append on its last entry (``c``); for seat-control
        events, the seats as they will be (meta, version-checked). Lowers the deadline
        index to a time no later than the next deadline before the append, so a process
        that dies right after it leaves no deadline unenforced (server/play/deadlines.py)."""
        extra: dict[str, Any] = {}
        changes = [e for e in control if isinstance(e, seat_control.SeatControllerChanged)]
        if changes:
            seats = [Seat(**s.to_dict()) for s in table.meta.seats]
            for e in changes:
                old = seats[e.seat]
                resigned = old.resigned or e.reason == "resigned"
                # The seat stays its person's account's while a bot plays it (my games,
                # a second device, deletion); the summary shows it as a bot's
                # (``TableMeta.summary``).
                seats[e.seat] = (Seat(name=old.name, kind="bot", bot=e.bot, level=e.level,
                                      since=old.since, resigned=resigned, account=old.account)
                                 if e.by == "bot"
                                 else Seat(name=old.name, kind="human", since=old.since,
                                           resigned=resigned, account=old.account))
            extra = {"expected_version": table.meta.version, "meta_changed": True,
                     "meta_fields": {"seats": json.dumps([s.to_dict() for s in seats])}}
        if table.tc.clocked and table.clock is not None and entries:
            now = self.now()
            c = table.clock
            if seat is not None:
                c = clocks.moved(table.tc, c, seat, now, timed_out, by_bot)
            # A seat change leaves the clock as it is: a player who takes a seat back goes
            # on with the decision begun at ``turn_at`` (time past per_move is charged to
            # the reserve when it moves). Restarting it gave a fresh move time for every
            # handover (or claim by a colluder) and return.
            entries[-1]["c"] = c.to_dict()
            await self.store.lower_deadline(table.id, c.turn_at + table.tc.per_move)
        return extra

    def _stored(self, table: LiveTable) -> None:
        if table.tc.clocked and self.on_clock is not None:
            self.on_clock(table)

    async def change_control(self, table: LiveTable,
                             build: Callable[[LiveTable], list[Message]]) -> int:
        """Store seat-control events alone (a handover, claim, resignation or return):
        ``build(table)`` checks who may and returns the events, or raises
        ``IllegalAction``/``LobbyError``; it runs again on the newer table after a
        concurrent change. Returns the seq after them. Raises ``Unavailable``."""
        async with table.lock:
            try:
                for _ in range(4):
                    if table.suspect:
                        await self.sync(table)
                        table.suspect = False
                    events = build(table)
                    prev = table.head.hex()
                    entries, head = table.chain(events, None)
                    extra = await self._clocked(table, entries, None, False, False, events)
                    result = await self.store.append(table.id, table.seq, entries, head,
                                                     prev=prev, **extra)
                    if result.status == "ok":
                        table.apply(entries, result.seq - len(entries) + 1)
                        self._stored(table)
                        await self.sync(table)  # the new seats (meta) before the answer
                        if any(table.by_bot(s) for s in range(len(table.meta.seats))):
                            # A handover or a resignation to a bot: the bot plays on after
                            # a restart even when nobody opens the table.
                            await self.note_bots(table.id)
                        return result.seq
                    if result.status == "missing":
                        raise LobbyError(404, "no_table", "the table no longer exists")
                    await self.sync(table)
                raise LobbyError(409, "stale", "the table changed meanwhile; try again")
            except RedisError as e:
                metrics.REDIS_ERRORS.inc()
                table.suspect = True
                raise Unavailable(str(e)) from None

    async def _caught_up(self, table: LiveTable, seq: int) -> int:
        if table.seq < seq:
            await self.sync(table)
        return seq

    def _turn_hook(self, table: LiveTable, before: tuple[int, ...]) -> None:
        fresh = tuple(s for s in table.game.to_move(table.state) if s not in before)
        if self.on_turn is not None and fresh and not table.game_over():
            self.spawn(self.on_turn(table, fresh))

    def game_ended(self, table: LiveTable) -> None:
        """``TableEvents``: settle the end (``_finish``) unless it is marked already."""
        if table.meta.status != "ended":
            self.spawn(self._finish(table))

    async def _finish(self, table: LiveTable) -> None:
        result = table.game.result(table.state)
        winners = result.get("winners") if isinstance(result, dict) else None
        if winners is not None:  # a resigned seat cannot win (docs/rules.md, "Resigning")
            winners = [w for w in winners if not table.control.resigned(w)]
        fields = {"status": "ended", "ended_at": repr(time.time())}
        if winners is not None:
            fields["winners"] = json.dumps(winners)
        scores = result.get("scores") if isinstance(result, dict) else None
        totals = [s.get("total") for s in scores] if isinstance(scores, list) else None
        if totals is not None:
            fields["scores"] = json.dumps(totals)
        try:
            if self.on_end is not None:
                await self.on_end(table)
        except Exception as e:  # ratings not (all) applied: leave it for a retry
            log.warning("end of game not settled", table=table.id, error=repr(e))
            return
        try:
            version = await self.store.update_meta(table.id, fields)
            if version is not None:
                # The lobby row as the meta now stands: winners and totals included.
                await self.index(dataclasses.replace(
                    table.meta, status="ended", winners=winners, scores=totals,
                    version=str(version)))
            await self.store.mark_bot_table(table.id, False)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("could not mark ended", table=table.id, error=str(e))
        log.info("game ended", table=table.id, seq=table.seq)
        if self.cache.get(table.id) is not table:
            await self._archive_later(table)  # nobody here watched it to its end

    # ---- bots ----------------------------------------------------------------------------

    def _ensure_bots(self, table: LiveTable) -> None:
        if self.bot_runner is None or table.seq == 0 or table.game_over():
            return
        idle = [seat for seat in range(len(table.meta.seats))
                if table.by_bot(seat) and seat not in table.bot_tasks]
        if not idle:
            return
        if table.id not in self.leases.held:
            # Another process may drive them: only the lease's holder does.
            if table.id not in self._claiming and not self.closing:
                self._claiming.add(table.id)
                self.spawn(self._claim_bots(table))
            return
        # A bot watches its table: the table stays cached (and, once its task runs,
        # subscribed). Bots play on the cached object only, never on a stray copy.
        if self.cache.setdefault(table.id, table) is not table:
            return
        metrics.TABLES.set(len(self.cache))
        for seat in idle:
            table.turn[seat] = asyncio.Event()
            table.bot_tasks[seat] = self.bot_runner(table, seat)

    async def _claim_bots(self, table: LiveTable) -> None:
        try:
            got = await self.leases.claim(table.id)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("could not claim a table's bots", table=table.id, error=str(e))
            return  # the lease keeper tries again
        finally:
            self._claiming.discard(table.id)
        if got:
            current = self.cache.get(table.id, table)
            self._ensure_bots(current)
            if not current.bot_tasks:
                await self._release(table.id)  # nothing to drive here after all

    async def _recheck(self, table: LiveTable) -> None:
        try:
            await self.sync(table)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("table not rechecked", table=table.id, error=str(e))

    async def _release(self, table_id: str) -> None:
        try:
            await self.leases.release(table_id)
        except RedisError as e:  # it expires on its own
            metrics.REDIS_ERRORS.inc()
            log.warning("could not release a table's bots", table=table_id, error=str(e))

    async def _keep_leases(self) -> None:
        """Every third of the lease: renew the leases held (a table whose lease another
        process took stops its bots here), take over the cached tables whose bots nobody
        drives; every lease period (and at once) resume the listed bot tables."""
        rounds = 0
        while True:
            if rounds % 3 == 0:
                try:
                    await self.resume_bots()
                except RedisError as e:
                    metrics.REDIS_ERRORS.inc()
                    log.warning("bot tables not resumed", error=str(e))
            await asyncio.sleep(self.leases.period)
            rounds += 1
            try:
                for table_id in await self.leases.renew():
                    log.warning("bot lease lost", table=table_id)
                    table = self.cache.get(table_id)
                    if table is not None:
                        for task in list(table.bot_tasks.values()):
                            task.cancel()
                        # To another process, or with the whole table (a Redis that lost
                        # its data): the table's meta tells, and sync notices a lost one.
                        self.spawn(self._recheck(table))
                for table in list(self.cache.values()):
                    self._ensure_bots(table)
            except Exception:  # a bug must not stop the renewals
                log.exception("bot leases not kept this round")

    def control_changed(self, table: LiveTable) -> None:
        """``TableEvents``: wake the bots (one whose seat went back stops), start new ones."""
        for event in table.turn.values():
            event.set()  # a bot whose seat went back to its player stops
        self._ensure_bots(table)

    async def note_bots(self, table_id: str) -> None:
        """Remember that a running table has a bot seat (``resume_bots`` after a restart);
        best effort: a table missed here resumes when someone opens it."""
        try:
            await self.store.mark_bot_table(table_id, True)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("could not note a bot table", table=table_id, error=str(e))

    async def resume_bots(self, limit: int = RESUME_LIMIT, parallel: int = 8) -> int:
        """Drive the listed running tables with bot seats (at most ``limit``,
        ``parallel`` at a time) whose bots no process drives, so that they play on after
        a restart although nobody watches them: a table is loaded only once this process
        holds its lease (server/bots/leases.py); one another process holds costs one Redis
        call. Returns how many tables this call started bots of; drops ended and gone
        ids from the set. Raises ``redis.RedisError`` when the set cannot be read."""
        ids = [t for t in await self.store.bot_tables(limit)
               if t not in self.leases.held and t not in self.cache]
        gate = asyncio.Semaphore(parallel)
        resumed = 0

        async def one(table_id: str) -> None:
            nonlocal resumed
            async with gate:
                try:
                    if not await self.leases.claim(table_id):
                        return
                    table = await self.get(table_id)
                except (Unavailable, RedisError):
                    return
                if table is None or table.game_over():
                    with contextlib.suppress(RedisError):
                        await self.store.mark_bot_table(table_id, False)
                if table is not None and table.bot_tasks:
                    resumed += 1
                else:
                    await self._release(table_id)

        await asyncio.gather(*(one(t) for t in ids))
        if resumed:
            log.info("bot tables resumed", tables=resumed, listed=len(ids))
        return resumed

    def bots_done(self, table: LiveTable, seat: int) -> None:
        """A bot task ended (game over or cancelled)."""
        table.bot_tasks.pop(seat, None)
        table.turn.pop(seat, None)
        if not table.bot_tasks and not self.closing:
            if table.id in self.leases.held:
                self.spawn(self._release(table.id))
            self.spawn(self.unwatch(table))

    # ---- lobby ---------------------------------------------------------------------------

    async def create(self, game_name: str, seats: int, options: dict[str, Any], name: str,
                     private: bool = False, time_control: dict[str, Any] | None = None,
                     rated: bool = False,
                     ) -> tuple[TableMeta, str, str | None]:
        """A new open table with its server seed drawn and committed; returns its meta,
        the creator's token (the host's, ``server.play.roles``) and, for a ``private`` table
        (never listed), its invite secret (stored only as a hash). ``time_control``: as
        ``server.play.clock.parse`` takes it (``None``: none)."""
        game = get_game(game_name)
        if not game.min_players <= seats <= game.max_players:
            raise LobbyError(400, "bad_message",
                             f"{game_name} takes {game.min_players}-{game.max_players} seats")
        server_seed = secrets.token_bytes(32).hex()
        owner = secrets.token_urlsafe(16)
        invite = secrets.token_urlsafe(16) if private else None
        meta = TableMeta(
            id=secrets.token_urlsafe(9), game=game_name, status="open", name=name,
            options=options, seats=[Seat() for _ in range(seats)],
            contributions=[""] * seats, commitment=commitment(server_seed),
            server_seed=server_seed, created_at=time.time(), tokens=[""] * seats,
            name_salts=new_name_salts(seats),
            owner=token_hash(owner), invite=token_hash(invite) if invite else "",
            time_control=dict(time_control or {}), rated=rated)
        meta.head = genesis(meta.id, meta.commitment).hex()
        await self._redis(self.store.create(meta.id, meta.to_fields(), self.settings.idle_expiry))
        await self.index(meta)
        log.info("table created", table=meta.id, seats=seats, private=private)
        return meta, owner, invite

    async def index(self, meta: TableMeta) -> None:
        """Copy the table's summary into the lobby lists (server/store/lobby_index.py). Best
        effort: the meta is the authority, and a row that missed a change is rewritten
        at the table's next lobby change. A private table is never listed."""
        if meta.private:
            return
        expires = time.time() + self.settings.idle_expiry if meta.status == "open" else 0.0
        try:
            await self.store.lobby.put(meta.summary(), int(meta.version), expires)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("lobby list not updated", table=meta.id, error=str(e))

    async def _redis(self, coro: Any) -> Any:
        try:
            return await coro
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("redis failed", error=str(e))
            raise Unavailable(str(e)) from None

    async def _fresh_meta(self, table_id: str) -> TableMeta:
        fields = await self._redis(self.store.load_meta(table_id))
        if not fields:
            raise LobbyError(404, "no_table", f"no table {table_id!r}")
        return TableMeta.from_fields(table_id, fields)

    async def lobby_change(self, table_id: str,
                           change: Callable[[TableMeta], dict[str, str] | Any],
                           statuses: tuple[str, ...] = ("open",),
                           admit: Callable[[TableMeta], None] | None = None) -> TableMeta:
        """Apply ``change(meta)`` (which validates, edits ``meta`` and returns the fields
        to store) to the current meta with an optimistic version check; retried on a
        concurrent change. ``admit(meta)`` runs first (a private table: 404 without its
        secret, before anything else is told). Only while the table's status is one of
        ``statuses`` (else 409 ``started``; ``ended`` when running ones are allowed); only
        an open table's expiry is refreshed."""
        for _ in range(8):
            meta = await self._fresh_meta(table_id)
            if admit is not None:
                admit(meta)
            if meta.status not in statuses:
                if meta.status == "ended" and "running" in statuses:
                    raise LobbyError(409, "ended", "the game has ended")
                raise LobbyError(409, "started", "the game has already started")
            fields = change(meta)
            ttl = self.settings.idle_expiry if meta.status == "open" else 0
            version = await self._redis(self.store.update_meta(
                table_id, fields, expected_version=meta.version, ttl=ttl))
            if version is not None:
                meta.version = str(version)
                await self.index(meta)
                return meta
        raise LobbyError(409, "stale", "the table changed meanwhile; try again")

    async def rename_seats(self, table_id: str, names: dict[int, str],
                           chat_channels: tuple[str, ...]) -> None:
        """Rename seats (seat → name) in what the table stored of the game: the players
        of its first event (or archive) and the ``from`` of their chat messages. The chain
        links names as commitments, so every stored head stays valid (fairness.md §5,
        "Names"). Cached copies rebuild once the meta says so (``_set_meta``). Raises
        ``Unavailable``."""
        def chat(_: int, msg: Any) -> Any:
            sender = msg.get("from") if isinstance(msg, dict) else None
            if isinstance(sender, dict) and sender.get("role") == "player" \
                    and sender.get("seat") in names \
                    and sender.get("name") != names[sender["seat"]]:
                return {**msg, "from": {**sender, "name": names[sender["seat"]]}}
            return None

        await self._redis(self.store.rewrite_first_entry(
            table_id, lambda entry: archive.rename_start(entry, names),
            lambda blob: archive.renamed(blob, names)))
        for key in self.store.chat_keys(table_id, chat_channels):
            await self._redis(self.store.rewrite_list(key, chat))

    async def _renamed(self, table: LiveTable) -> None:
        """A seat of a started table was renamed in the store (an account deleted): fold
        the stored entries again, so views carry the new name, and resend welcomes."""
        async with table.lock:
            try:
                entries = await self.entries(table.id, table.meta)
            except (RedisError, archive.ArchiveError) as e:
                log.warning("renamed table not rebuilt", table=table.id, error=repr(e))
                return
            if len(entries) == table.seq:
                table.reset(table.meta, entries)
                if self.on_resync is not None:
                    self.on_resync(table)

    async def start_game(self, table_id: str, token: str | None,
                         key: str | None = None) -> TableMeta:
        """Start (the host only, ``server.play.roles``): every seat filled; seed =
        combine_seed(server_seed, contributions); store the game's first events in one
        append. Returns the meta. ``key``: a private table's invite secret."""
        for _ in range(4):
            meta = await self._fresh_meta(table_id)
            roles.admit(meta, token, key)
            if meta.status != "open":
                raise LobbyError(409, "started", "the game has already started")
            roles.require_starter(meta, token)
            empty = [i for i, s in enumerate(meta.seats) if s.kind is None or meta.waiting(i)]
            if empty:
                raise LobbyError(409, "seats_empty", f"seat(s) {empty} hold nobody yet")
            started = {"status": "running", "started_at": repr(self.now() / 1000)}
            # Names are chained as salted commitments, so a deleted account's name can
            # leave the record while the chain still verifies (fairness.md §5, "Names").
            if len(meta.name_salts) != len(meta.seats):  # a table created before salts
                meta.name_salts = new_name_salts(len(meta.seats))
            meta.name_commitments = [name_commitment(salt, name) for salt, name
                                     in zip(meta.name_salts, meta.players(), strict=True)]
            started["name_salts"] = json.dumps(meta.name_salts)
            started["name_commitments"] = json.dumps(meta.name_commitments)
            if meta.rated:
                started["accounts"] = json.dumps(rated_accounts(meta))
            game = get_game(meta.game)
            seed = combine_seed(meta.server_seed, meta.contributions)
            try:
                events = list(game.start(meta.players(), meta.options, seed))
            except ValueError as e:
                raise LobbyError(400, "bad_options", str(e)) from None
            shadow = TableCore(meta, 1)
            prev = shadow.head.hex()
            entries, head = shadow.chain(events, None)
            if shadow.tc.clocked:
                now = self.now()
                entries[-1]["c"] = clocks.start(shadow.tc, len(meta.seats), now).to_dict()
                await self._redis(self.store.lower_deadline(table_id, now + shadow.tc.per_move))
            result = await self._redis(self.store.append(
                table_id, 0, entries, head, expected_version=meta.version,
                meta_fields=started, meta_changed=True, prev=prev))
            if result.status == "ok":
                if any(s.kind == "bot" for s in meta.seats):
                    await self.note_bots(table_id)
                meta.status, meta.seq, meta.head = "running", result.seq, head
                meta.version = str(int(meta.version) + 1)  # the script bumped it
                await self.index(meta)
                table = self.cache.get(table_id)
                if table is not None:
                    table.apply(entries, 1)
                    with contextlib.suppress(Unavailable, RedisError):
                        await self.sync(table)
                    self._stored(table)
                elif any(s.kind == "bot" for s in meta.seats) or shadow.tc.clocked:
                    with contextlib.suppress(Unavailable):
                        await self.get(table_id)  # load it here: its bots play, its clock runs
                if self.on_turn is not None:
                    self.spawn(self._first_turn(table_id))
                log.info("game started", table=table_id, seq=result.seq)
                return meta
            if result.status == "missing":
                raise LobbyError(404, "no_table", f"no table {table_id!r}")
        raise LobbyError(409, "stale", "the table changed meanwhile; try again")

    async def _first_turn(self, table_id: str) -> None:
        table = await self.get(table_id)
        if table is not None and self.on_turn is not None and not table.game_over():
            await self.on_turn(table, table.game.to_move(table.state))

    async def listing(self, statuses: list[str], limit: int = 100) -> list[dict[str, Any]]:
        """Summaries of the listed (not private) tables with those statuses, newest first,
        from the lobby's read model (one round trip, at most ``limit`` rows per status;
        expired open tables are dropped from it)."""
        rows = await self._redis(self.store.lobby.listing(statuses, limit, time.time()))
        rows.sort(key=lambda s: s["created_at"], reverse=True)
        return rows[:limit]

    async def record(self, table: LiveTable) -> dict[str, Any]:
        """The game record (CONTRACT §1 with ``seed`` and ``deck``) plus ``server_seed``,
        ``commitment``, ``contributions``, ``table_id``, the final ``head`` and the
        ``result`` (CONTRACT §3, as the replay must end), the seats' ``name_salts`` and
        ``name_commitments`` (a deleted account's salt ``None``, its name ``REDACTED``;
        docs/fairness.md §5). Raises
        ``LobbyError`` (409) before the end."""
        if not table.game_over():
            raise LobbyError(409, "not_ended", "the record is published when the game has ended")
        entries = await self._redis(self.entries(table.id, table.meta))
        game = table.game
        events = [table.decode(e) for e in entries]
        actions = [e["a"] for e in entries if "a" in e]
        meta = table.meta
        seed = combine_seed(meta.server_seed, meta.contributions)
        deck = game.setup_deck(events)
        # The players the game was dealt to (its first event), not the seats' occupants
        # now: a seat handed to a bot stays its player's in the replay and the chain.
        players = list(events[0].to_dict().get("players") or meta.players())
        # A deleted account's name goes from the record (docs/protocol.md, "Deleting an
        # account"), with its salt: the record keeps the seat's name commitment, which
        # is what the chain links (docs/fairness.md §5, "Names").
        redacted = [i for i, seat in enumerate(meta.seats) if seat.account == DELETED]
        for i in redacted:
            players[i] = REDACTED
        names: dict[str, Any] = {}
        if meta.name_commitments:
            names = {"name_salts": [None if i in redacted else salt
                                    for i, salt in enumerate(meta.name_salts)],
                     "name_commitments": list(meta.name_commitments)}
        return make_record(meta.game, players, meta.options, seed, deck, actions,
                           server_seed=meta.server_seed, commitment=meta.commitment,
                           contributions=list(meta.contributions), table_id=table.id,
                           head=entries[-1]["h"] if entries else meta.head,
                           result=game.result(table.state),
                           seat_changes=seat_control.record_changes(entries),
                           resigned=[i for i in range(len(players)) if table.control.resigned(i)],
                           **names, **({"redacted_seats": redacted} if redacted else {}))


def new_name_salts(seats: int) -> list[str | None]:
    """One secret name salt per seat (32 random bytes, hex), drawn with the server seed
    when a table is created (a copy of the meta is the same table: the leak tests' twin
    tables); the chain links each name salted (docs/fairness.md §5, "Names")."""
    return [secrets.token_hex(32) for _ in range(seats)]


def rated_accounts(meta: TableMeta) -> list[str]:
    """The rated account of each seat of a rated table at its start: a person's own, a
    bot's per kind and level (``server.accounts.ratings.bot_uid``). Raises 409 ``account_needed``
    for a seat held by a guest."""
    out = []
    for i, s in enumerate(meta.seats):
        if s.kind == "bot":
            out.append(bot_uid(s.bot or "random", s.level))
        elif s.account and s.account != DELETED:
            out.append(s.account)
        else:
            raise LobbyError(409, "account_needed",
                             f"seat {i} holds a guest; a rated table seats accounts and bots")
    return out
