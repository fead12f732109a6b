"""Presence across processes: the asyncio shell around server/play/presence.py and
server/play/presence_schedule.py.

Each process vouches for the seats it holds sockets of, in the table's presence hash
(``on:<seat>:<process>`` until now + ``presence_ttl``, ``seen:<seat>``), and for its
spectator count (``spec:<process>``). It writes them when a socket comes or goes (and
then publishes a presence notice on the table's channel, so the other processes read the
hash at once), and renews them every ``renew_period`` (``presence_ttl`` less two ticks of
``presence_interval``; each table in its own tick, spread over the ticks). Between those
writes the hash is read again only when another process's claim in it lapses (that
process renewed it, or died), and the seats that turn away or gone by time alone are
recomputed from the last read hash at that very moment (presence_schedule.py). Whenever
the seats' states differ from what it last sent, it sends every local socket of the
table a ``presence`` message (docs/protocol.md); a changed spectator count alone waits
for the next tick (every ``presence_interval`` s).
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
from server.play.presence_schedule import Need, TableSchedule, renew_period, slot
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
                                     tables.store.lane, tables.store.origin)
        self.process = secrets.token_hex(6)
        self.tick_ms = max(1, int(self.settings.presence_interval * 1000))
        self.ttl_ms = int(self.settings.presence_ttl * 1000)
        self.renew_ms = renew_period(self.ttl_ms, self.tick_ms)
        self.pending: dict[str, list[Connection]] = {}
        """Per table with a change not written yet: the newcomers to tell."""
        self.held: dict[str, tuple[frozenset[int], bool]] = {}
        """Per table: the seats and whether spectators this process last vouched for."""
        self.schedules: dict[str, TableSchedule] = {}
        """Per table watched here: its hash as last read and when it next needs work."""
        self.task: asyncio.Task[None] | None = None
        self._woken = asyncio.Event()
        self._wake_at: int | None = None
        """ms: when the timer sleeps until (``None``: it is awake)."""
        self.next_wake: int | None = None
        """ms: the earliest lapse or turn of any table (``TableSchedule.wake_at``)."""

    def start(self) -> None:
        """Start the timer (renewals, reads at lapses, the seats' turns, the counts)."""
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop the timer (the claims lapse after ``presence_ttl``)."""
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
        grace = int(self.settings.presence_grace * 1000)
        seats = []
        for p in presence.seats(fields, len(meta.seats), now, self._started(table), grace,
                                table.tc.claim_after):
            d = p.to_dict()
            if not (meta.tokens[p.seat] if p.seat < len(meta.tokens) else ""):
                d = {"seat": p.seat, "state": "bot", "since": None}  # nobody's seat: a bot's
            seats.append(d)
        return {"t": "presence", "now": now, "seats": seats,
                "spectators": presence.spectators(fields, now),
                "claim_after": table.tc.claim_after}

    @staticmethod
    def _started(table: LiveTable) -> int:
        """ms: when the table's game started (or it was made): a seat never seen is away
        from then on."""
        meta = table.meta
        return int((meta.started_at or meta.created_at) * 1000)

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
        self._read(table, fields, now, bool(put or drop))
        self._show(table, fields, now, newcomers)

    def _claims(self, table: LiveTable, now: int) -> tuple[dict[str, str], list[str]]:
        """The presence fields this process writes for ``table`` now, and those it drops
        (remembering what it vouches for)."""
        room = table.room
        here = frozenset([s for s, conns in room.players.items() if conns])
        spectators = len(room.spectators)
        before, had_spectators = self.held.get(table.id, (frozenset(), False))
        put, drop = presence.claims(here, before, spectators, had_spectators, self.process,
                                    now + self.ttl_ms, now)
        if here or spectators:
            self.held[table.id] = (here, bool(spectators))
        else:
            self.held.pop(table.id, None)
        return put, drop

    def _read(self, table: LiveTable, fields: dict[str, str], now: int, wrote: bool) -> None:
        """Keep ``fields``, read at ``now``, as the table's schedule's (after this
        process wrote its claims: ``wrote``), and wake the timer if it must come sooner."""
        schedule = self.schedules.get(table.id)
        if schedule is None:
            schedule = self.schedules[table.id] = TableSchedule(slot=slot(table.id))
        meta = table.meta
        people = [s for s, token in enumerate(meta.tokens[:len(meta.seats)]) if token]
        lapse, turn = presence.next_changes(
            fields, people, now, self._started(table), int(self.settings.presence_grace * 1000),
            table.tc.claim_after, self.process)
        schedule.read(fields, now, wrote, lapse, turn)
        at = schedule.wake_at(now)
        if at is not None and (self.next_wake is None or at < self.next_wake):
            self.next_wake = at
            if self._wake_at is not None and at < self._wake_at:
                self._woken.set()

    def _show(self, table: LiveTable, fields: dict[str, str], now: int,
              newcomers: list[Connection] | None = None, periodic: bool = False) -> None:
        """Send ``presence`` to the table's sockets when what they were shown changed: a
        seat's state at once, the spectator count alone only at a tick (``periodic``).
        Told at once, a crowd joining cost a message to every socket already there per
        join: quadratic in the crowd (5,000 spectators took 22 s to join one table).
        Newcomers always get the message as it is now."""
        msg = self.message(table, fields, now)
        shown = table.presence
        schedule = self.schedules.get(table.id)
        if (shown is None or shown["seats"] != msg["seats"]
                or (periodic and shown["spectators"] != msg["spectators"])):
            table.presence = msg
            table.room.publish("message", msg)
        else:
            for conn in newcomers or ():
                if not conn.closed:
                    conn.message(msg)
        if schedule is not None:
            shown = table.presence
            schedule.count_stale = shown is None or shown["spectators"] != msg["spectators"]

    def _watched(self) -> list[LiveTable]:
        """The tables with sockets here or claims of this process still to drop (and the
        schedules of the others forgotten)."""
        tables = [t for t in list(self.tables.cache.values())
                  if len(t.room) or t.id in self.held]
        if len(self.schedules) > len(tables):
            ids = {t.id for t in tables}
            for gone in [k for k in self.schedules if k not in ids]:
                del self.schedules[gone]
        return tables

    async def refresh_all(self, periodic: bool = True) -> None:
        """One pass of the timer over every table this process holds sockets of, at a
        tick (``periodic``) or at a wake-up for a lapse or a turn: the tables that need
        Redis (``Need.REFRESH``, ``Need.RENEW``) in one round trip for all of them (a
        pipeline: at 200 tables, one call instead of 200, which cost about as much CPU as
        the actions: docs/benchmarks.md), the others that need it recomputed from their
        last read hash; the rest are left alone."""
        now = self.tables.now()
        due: list[tuple[LiveTable, bool]] = []  # and whether to read its hash back
        wake: int | None = None
        schedules = self.schedules
        for table in self._watched():
            schedule = schedules.get(table.id)
            if schedule is None:
                due.append((table, True))
                continue
            need, at = schedule.plan(now, periodic, self.tick_ms, self.renew_ms)
            if need is Need.REFRESH or need is Need.RENEW:
                due.append((table, need is Need.REFRESH))
            elif need is Need.SHOW and schedule.fields is not None:
                self._read(table, schedule.fields, now, False)  # the next turn, from here
                self._shown(table, schedule.fields, now)
                at = schedule.wake_at(now)
            if at is not None and (wake is None or at < wake):
                wake = at
        self.next_wake = wake  # the reads below may bring it forward (``_read``)
        if not due:
            return
        claims = []
        for table, read in due:
            put, drop = self._claims(table, now)
            # A seat or count dropped since the last write (a socket went, its own write
            # not made yet) changes what is shown: read back.
            claims.append((table.id, put, drop, read or bool(drop)))
        try:
            all_fields = await self.hashes.write_many(claims, KEEP)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("presence failed", tables=len(due), error=str(e))
            return
        for (table, _), (_, put, drop, _), fields in zip(due, claims, all_fields, strict=True):
            if fields is None:
                schedule = self.schedules.get(table.id)
                if schedule is not None:
                    schedule.renewed(now, put)
                continue
            self._read(table, fields, now, bool(put or drop))
            self._shown(table, fields, now)

    def _shown(self, table: LiveTable, fields: dict[str, str], now: int) -> None:
        try:
            self._show(table, fields, now, periodic=True)
        except Exception:  # a bug must not stop every table's presence
            log.exception("presence refresh failed", table=table.id)

    async def _run(self) -> None:
        """The timer: a pass every ``presence_interval`` s (a tick) and, between ticks,
        one at each table's next lapse or turn (``TableSchedule.wake_at``). The ticks
        keep to real time (not the service clock, which tests may stop or move)."""
        loop = asyncio.get_running_loop()
        interval = self.settings.presence_interval
        next_tick = loop.time() + interval
        while True:
            now = self.tables.now()
            delay = tick_in = next_tick - loop.time()
            if self.next_wake is not None and self.next_wake > now:
                delay = min(delay, (self.next_wake - now) / 1000)
            self._woken.clear()
            self._wake_at = now + int(delay * 1000)
            woken = False
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        woken = await self._woken.wait()
            self._wake_at = None
            # The tick's own timer may fire a little early (uvloop keeps milliseconds).
            periodic = not woken and delay >= tick_in
            if periodic:  # at a fixed rate; a late tick does not make a burst of them
                next_tick = max(next_tick + interval, loop.time())
            try:
                await self.refresh_all(periodic)
            except Exception:  # a bug must not stop the timer
                log.exception("presence refresh failed")
