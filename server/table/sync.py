"""Keeping each cached table in step with Redis, across processes.

Another process's appends arrive on the table's channel (``published``) and are applied
when they continue the cached stream; anything else, and every meta change, makes the
table ``sync``: read the meta, check that the stored stream is the cached one
(server/table/continuity.py), apply what is new, or rebuild the table from Redis when it
is not (Redis lost writes: docs/reliability.md) and resend every local socket a welcome.
A table gone from Redis is ``vanished``: its bots stop and its sockets close with 4004.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from server import metrics
from server.logging import get_logger
from server.table import archive, continuity
from server.table.live import LiveTable
from server.table.meta import DELETED, TableMeta

if TYPE_CHECKING:  # the hub that builds this object (no import at run time)
    from server.table.tables import Tables

log = get_logger("tables")


class StreamSync:
    """Syncs the cached tables of ``tables`` with Redis (see the module docstring)."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

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
            fields = await self.tables.store.load_meta(table.id)
            if not fields:
                self.vanished(table)
                return False
            meta = TableMeta.from_fields(table.id, fields)
            verdict = continuity.stored(seq, head, meta.seq, meta.head)
            fresh: list[dict[str, Any]] = []
            if verdict == "ahead":
                loaded = await self.tables.entries(table.id, meta, max(seq - 1, 0))
                if continuity.continues(seq, head, [e["h"] for e in loaded[:1]]):
                    fresh = loaded[1:] if seq else loaded
                else:
                    verdict = "other"
            if verdict == "other":
                await self.rebuild(table, meta, seq)
                return True
            self.set_meta(table, meta)
            if fresh:
                table.apply(fresh, seq + 1)
            self.tables.bots.ensure(table)  # the game may have started meanwhile
            return True

    async def rebuild(self, table: LiveTable, meta: TableMeta, cached_seq: int) -> None:
        """The stored stream is not the one cached: fold Redis's again, in place (bots
        and sockets keep the same object), and resend every local socket a welcome."""
        entries = await self.tables.entries(table.id, meta)
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
        self.tables.listener.resynced(table)
        self.tables.actions.clock_moved(table)  # the clock as stored now
        for seat in table.to_move():
            turn = table.turn.get(seat)
            if turn is not None:
                turn.set()  # a bot waiting for its turn looks again
        if table.game_over():
            for turn in table.turn.values():
                turn.set()
            if table.meta.status != "ended":
                self.tables.ending.game_ended(table)
        self.tables.bots.ensure(table)

    def vanished(self, table: LiveTable) -> None:
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
        if self.tables.cache.get(table.id) is table:
            del self.tables.cache[table.id]
            metrics.TABLES.set(len(self.tables.cache))
        if table.subscribed:
            table.subscribed = False
            self.tables.spawn(self.tables.subscriber.unfollow(table.id))

    def set_meta(self, table: LiveTable, meta: TableMeta) -> None:
        old = table.meta
        table.meta = meta
        meta.seq, meta.head = max(meta.seq, table.seq), meta.head or table.head.hex()
        if (old.version, old.status) != (meta.version, meta.status):
            # An account deleted, or renamed by the administration (same account, new name).
            if table.seq and any((s.account == DELETED and o.account != DELETED)
                                 or (s.account and s.account == o.account and s.name != o.name)
                                 for s, o in zip(meta.seats, old.seats, strict=False)):
                self.tables.spawn(self.renamed(table))  # its name left the stored game too
            # A seat given to someone else drops the sockets of the old token.
            for seat, conns in tuple(table.room.players.items()):
                for conn in tuple(conns):
                    if seat >= len(meta.tokens) or meta.tokens[seat] != conn.token_hash:
                        conn.shut(1008, "seat token no longer valid")
            table.room.publish("table", meta.summary())
            if meta.status == "running" and [x.to_dict() for x in meta.seats] != \
                    [x.to_dict() for x in old.seats]:
                # A seat handed to a bot, taken back or resigned: the lobby's row shows
                # it too (the put keeps the newest version, whichever process writes).
                self.tables.spawn(self.tables.lobby.index(meta))
            self.tables.bots.ensure(table)

    def published(self, table_id: str, msg: dict[str, Any]) -> None:
        table = self.tables.cache.get(table_id)
        if table is None:
            return
        if "chat" in msg:
            self.tables.listener.chat_published(table, msg["chat"])
            return
        if "chat_removed" in msg:
            self.tables.listener.chat_removed(table, msg["chat_removed"])
            return
        if "suspended" in msg:
            self.tables.listener.seats_suspended(table, list(msg["suspended"]["seats"]))
            return
        if "token_revoked" in msg:
            # An API token was revoked (server/http/api_tokens.py): its sockets close.
            for conn in tuple(table.room.connections()):
                if conn.api_token and conn.api_token == msg["token_revoked"]:
                    conn.shut(1008, "API token revoked")
            return
        entries = msg.get("entries") or []
        if entries:
            first = int(msg["from"])
            verdict = continuity.published(table.seq, table.head_at, first, msg.get("prev"),
                                           [e["h"] for e in entries])
            if verdict == "apply":
                table.apply(self.tables.store.opened(table_id, entries), first)
            elif verdict == "check":
                # A gap (filled from the event list), or entries that do not continue the
                # cached stream: the sync finds out which, and rebuilds in the latter case.
                self.tables.spawn(self.safe_sync(table))
        if msg.get("presence"):
            self.tables.listener.presence_announced(table)
        if msg.get("meta"):
            self.tables.spawn(self.safe_sync(table))

    async def safe_sync(self, table: LiveTable) -> None:
        try:
            await self.sync(table)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("sync failed", table=table.id, error=str(e))

    async def resync_all(self) -> None:
        for table in list(self.tables.cache.values()):
            if table.subscribed:
                await self.safe_sync(table)

    async def recheck(self, table: LiveTable) -> None:
        try:
            await self.sync(table)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("table not rechecked", table=table.id, error=str(e))

    async def renamed(self, table: LiveTable) -> None:
        """A seat of a started table was renamed in the store (an account deleted or
        renamed): fold
        the stored entries again, so views carry the new name, and resend welcomes."""
        async with table.lock:
            try:
                entries = await self.tables.entries(table.id, table.meta)
            except (RedisError, archive.ArchiveError) as e:
                log.warning("renamed table not rebuilt", table=table.id, error=repr(e))
                return
            if len(entries) == table.seq:
                table.reset(table.meta, entries)
                self.tables.listener.resynced(table)
