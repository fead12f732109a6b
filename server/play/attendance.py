"""Presence across processes: the asyncio shell around server/play/presence.py.

Each process vouches for the seats it holds sockets of, in the table's presence hash
(``on:<seat>:<process>`` until now + ``presence_ttl``, ``seen:<seat>``), and for its
spectator count (``spec:<process>``). It writes them when a socket comes or goes (and
then publishes a presence notice on the table's channel, so the other processes read the
hash at once) and every ``presence_interval`` s for each table it holds sockets of (which
also notices claims that lapsed: a process that died). Whenever the seats' states differ
from what it last sent, it sends every local socket of the table a ``presence`` message
(docs/protocol.md); a changed spectator count alone waits for the periodic refresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Any

from redis.exceptions import RedisError

from server import metrics
from server.fanout.room import Connection
from server.logging import get_logger
from server.play import presence
from server.store.presence import PresenceHashes
from server.table.live import LiveTable
from server.table.tables import Tables

log = get_logger("attendance")
KEEP = 86_400
"""Seconds the presence hash outlives its last write (an abandoned table's goes away)."""


class Attendance:
    """Presence of the tables this process holds sockets of."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.settings = tables.settings
        self.hashes = PresenceHashes(tables.store.redis, tables.store.timeout,
                                     tables.store.origin)
        self.process = secrets.token_hex(6)
        self.pending: dict[str, list[Connection]] = {}
        """Per table with a change not written yet: the newcomers to tell."""
        self.held: dict[str, tuple[frozenset[int], bool]] = {}
        """Per table: the seats and whether spectators this process last vouched for."""
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the periodic refresh."""
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop refreshing (the claims lapse after ``presence_ttl``)."""
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task

    def changed(self, table: LiveTable, newcomer: Connection | None = None) -> None:
        """A local socket of ``table`` came (``newcomer``) or went: write and announce it;
        the newcomer gets the presence even when nothing changed. The sockets that come
        and go in one turn of the event loop share one write (a storm of a thousand
        spectators made a thousand, each with its notice to every process)."""
        waiting = self.pending.get(table.id)
        if waiting is not None:
            if newcomer is not None:
                waiting.append(newcomer)
            return
        self.pending[table.id] = [newcomer] if newcomer is not None else []
        self.tables.spawn(self._changed(table))

    async def _changed(self, table: LiveTable) -> None:
        await asyncio.sleep(0)  # the others of this turn join
        newcomers = self.pending.pop(table.id, [])
        await self.refresh(table, notify=True, newcomers=newcomers)

    def notice(self, table: LiveTable) -> None:
        """Another process announced a change: read it."""
        if len(table.room):
            self.tables.spawn(self.refresh(table, notify=False))

    def message(self, table: LiveTable, fields: dict[str, str], now: int) -> dict[str, Any]:
        """The ``presence`` message for ``table`` from its hash ``fields`` at ``now``."""
        meta = table.meta
        started = int((meta.started_at or meta.created_at) * 1000)
        grace = int(self.settings.presence_grace * 1000)
        seats = []
        for p in presence.seats(fields, len(meta.seats), now, started, grace,
                                table.tc.claim_after):
            d = p.to_dict()
            if not (meta.tokens[p.seat] if p.seat < len(meta.tokens) else ""):
                d = {"seat": p.seat, "state": "bot", "since": None}  # nobody's seat: a bot's
            seats.append(d)
        return {"t": "presence", "now": now, "seats": seats,
                "spectators": presence.spectators(fields, now),
                "claim_after": table.tc.claim_after}

    async def read(self, table: LiveTable) -> dict[str, str]:
        """The table's presence hash now (for a claim). Raises ``RedisError``."""
        return await self.hashes.write(table.id, {}, [], KEEP, False)

    async def online(self, table: LiveTable, seat: int) -> bool:
        """True while ``seat`` of ``table`` has a socket on some process (a live claim in
        the table's presence hash: ``presence.connected``). Raises ``RedisError``."""
        return presence.connected(await self.read(table), seat, self.tables.now())

    async def refresh(self, table: LiveTable, notify: bool,
                      newcomers: list[Connection] | None = None) -> None:
        """Write this process's part of ``table``'s presence, read the whole, and send a
        ``presence`` message to the local sockets if anything they were shown changed."""
        now = self.tables.now()
        put, drop = self._claims(table, now)
        try:
            fields = await self.hashes.write(table.id, put, drop, KEEP, notify)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("presence failed", table=table.id, error=str(e))
            return
        self._show(table, fields, now, newcomers)

    def _claims(self, table: LiveTable, now: int) -> tuple[dict[str, str], list[str]]:
        """The presence fields this process writes for ``table`` now, and those it drops
        (remembering what it vouches for)."""
        until = str(now + int(self.settings.presence_ttl * 1000))
        here = frozenset(s for s, conns in table.room.players.items() if conns)
        spectators = len(table.room.spectators)
        before, had_spectators = self.held.get(table.id, (frozenset(), False))
        put = {presence.on_field(s, self.process): until for s in here}
        put.update({presence.seen_field(s): str(now) for s in here | before})
        drop = [presence.on_field(s, self.process) for s in before - here]
        if spectators:
            put[presence.spec_field(self.process)] = f"{spectators} {until}"
        elif had_spectators:
            drop.append(presence.spec_field(self.process))
        if here or spectators:
            self.held[table.id] = (here, bool(spectators))
        else:
            self.held.pop(table.id, None)
        return put, drop

    def _show(self, table: LiveTable, fields: dict[str, str], now: int,
              newcomers: list[Connection] | None = None, periodic: bool = False) -> None:
        """Send ``presence`` to the table's sockets when what they were shown changed: a
        seat's state at once, the spectator count alone only at the periodic refresh
        (``periodic``). Told at once, a crowd joining cost a message to every socket
        already there per join: quadratic in the crowd (5,000 spectators took 22 s to
        join one table). Newcomers always get the message as it is now."""
        msg = self.message(table, fields, now)
        shown = table.presence
        if (shown is None or shown["seats"] != msg["seats"]
                or (periodic and shown["spectators"] != msg["spectators"])):
            table.presence = msg
            table.room.publish("message", msg)
            return
        for conn in newcomers or ():
            if not conn.closed:
                conn.message(msg)

    async def refresh_all(self) -> None:
        """The periodic refresh of every table this process holds sockets of, in one
        round trip for all of them (a pipeline: at 200 tables, one call a second instead
        of 200, which cost about as much CPU as the actions: docs/benchmarks.md)."""
        now = self.tables.now()
        tables = [t for t in list(self.tables.cache.values())
                  if len(t.room) or t.id in self.held]
        if not tables:
            return
        claims = [(t.id, *self._claims(t, now)) for t in tables]
        try:
            all_fields = await self.hashes.write_many(claims, KEEP)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("presence failed", tables=len(tables), error=str(e))
            return
        for table, fields in zip(tables, all_fields, strict=True):
            try:
                self._show(table, fields, now, periodic=True)
            except Exception:  # a bug must not stop every table's presence
                log.exception("presence refresh failed", table=table.id)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.settings.presence_interval)
            try:
                await self.refresh_all()
            except Exception:  # a bug must not stop the refreshes
                log.exception("presence refresh failed")
