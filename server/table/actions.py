"""Actions on a live table: a seat's action (a person's or a bot's) and a change of who
plays a seat, each decided on the cached state, appended by one Redis script (expected
seq and idempotency) and applied; nothing is acknowledged before Redis stored it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from engine import seat_control
from engine.game import IllegalAction, Message
from server import metrics
from server.bots.kinds import effective_level, replacement
from server.errors import LobbyError, Unavailable
from server.logging import get_logger
from server.play import clock as clocks
from server.play import roles
from server.table.live import LiveTable
from server.table.meta import Seat

if TYPE_CHECKING:  # the hub that builds this object (no import at run time)
    from server.table.tables import Tables

log = get_logger("tables")


class Actions:
    """Decides, stores and applies actions at the tables of ``tables``."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

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
                    # An earlier append may have been stored unseen.
                    await self.tables.streams.sync(table)
                    table.suspect = False
                for _ in range(2):
                    if expected_seq is not None and table.seq < expected_seq:
                        # The client saw events we have not yet.
                        await self.tables.streams.sync(table)
                    # On every state the action is decided on: a sync (or the lock's wait)
                    # may have brought the seat's change to a bot.
                    if not by_bot and table.by_bot(seat):
                        raise IllegalAction("seat_handed_over", f"seat #{seat + 1} is played "
                                            "by a bot now; this token no longer acts")
                    if table.voided is not None:
                        raise IllegalAction("voided", f"the game was voided: {table.voided}")
                    if expected_seq is not None and table.seq != expected_seq:
                        done = await self.tables.store.act_seq(table.id, act_key)
                        if done is not None:
                            return await self.caught_up(table, done)
                        raise IllegalAction("stale", f"the table is at seq {table.seq}, "
                                                     f"not {expected_seq}; look and try again")
                    try:
                        prefix = self.timeout_events(table, seat) if timed_out else []
                        events = prefix + list(table.game.decide(table.state, action))
                    except IllegalAction:
                        done = await self.tables.store.act_seq(table.id, act_key)
                        if done is not None:
                            return await self.caught_up(table, done)
                        raise
                    prev = table.head.hex()
                    entries, head = table.chain(events, action, len(prefix))
                    extra = await self.clocked(table, entries, seat, timed_out,
                                                by_bot and not timed_out, prefix)
                    before = table.game.to_move(table.state)
                    result = await self.tables.store.append(table.id, table.seq, entries, head,
                                                            act_key,
                                                     prev=prev, **extra)
                    if result.status == "ok":
                        table.apply(entries, result.seq - len(entries) + 1)
                        self.clock_moved(table)
                        self.turn_hook(table, before)
                        return result.seq
                    if result.status == "dup":
                        # Stored before (a resend, or a retry after a lost reply): make
                        # sure this process has applied it before the ack goes out.
                        return await self.caught_up(table, result.seq)
                    if result.status == "missing":
                        self.tables.streams.vanished(table)
                        raise IllegalAction("no_table", "the table no longer exists")
                    # Stale: another process appended first, or the stored stream is not
                    # the cached one (the sync rebuilds the table then).
                    await self.tables.streams.sync(table)
                raise IllegalAction("stale", "the table changed meanwhile; look and try again")
            except RedisError as e:
                metrics.REDIS_ERRORS.inc()
                table.suspect = True
                # The append may have been stored unseen, and this process skips the echo
                # of its own appends (``Store.own_echo``): look, so the table's sockets
                # get it without waiting for the next action.
                self.tables.spawn(self.tables.streams.safe_sync(table))
                raise Unavailable(str(e)) from None

    def timeout_events(self, table: LiveTable, seat: int) -> list[Message]:
        """``seat_timed_out`` (and, at ``timeouts_to_bot`` in a row, the seat's change to
        a bot) before the bot's move for a seat whose time ran out."""
        count = (table.clock.timeouts[seat] if table.clock else 0) + 1
        out: list[Message] = [seat_control.SeatTimedOut(seat, count)]
        if count >= self.tables.settings.timeouts_to_bot:
            kind = replacement(table.meta.game, self.tables.settings.replacement_bot)
            out.append(seat_control.SeatControllerChanged(
                seat, "bot", "timeout", kind, effective_level(kind, None)))
        return out

    async def clocked(self, table: LiveTable, entries: list[dict[str, Any]], seat: int | None,
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
            now = self.tables.now()
            c = table.clock
            if seat is not None:
                c = clocks.moved(table.tc, c, seat, now, timed_out, by_bot)
            for e in changes:
                if e.reason == "returned":
                    # Back at the seat, its player starts a fresh count of timeouts in a
                    # row: the old count would hand the seat to a bot at the next one.
                    c = clocks.returned(c, e.seat)
            # A seat change leaves the clock as it is: a player who takes a seat back goes
            # on with the decision begun at ``turn_at`` (time past per_move is charged to
            # the reserve when it moves). Restarting it gave a fresh move time for every
            # handover (or claim by a colluder) and return.
            entries[-1]["c"] = c.to_dict()
            await self.tables.store.deadlines.lower(table.id, c.turn_at + table.tc.per_move)
        return extra

    def clock_moved(self, table: LiveTable) -> None:
        if table.tc.clocked:
            self.tables.listener.clock_changed(table)

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
                        await self.tables.streams.sync(table)
                        table.suspect = False
                    events = build(table)
                    prev = table.head.hex()
                    entries, head = table.chain(events, None)
                    extra = await self.clocked(table, entries, None, False, False, events)
                    result = await self.tables.store.append(table.id, table.seq, entries, head,
                                                     prev=prev, **extra)
                    if result.status == "ok":
                        table.apply(entries, result.seq - len(entries) + 1)
                        self.clock_moved(table)
                        # The new seats (meta) before the answer.
                        await self.tables.streams.sync(table)
                        if any(table.by_bot(s) for s in range(len(table.meta.seats))):
                            # A handover or a resignation to a bot: the bot plays on after
                            # a restart even when nobody opens the table.
                            await self.tables.bots.note(table.id)
                        return result.seq
                    if result.status == "missing":
                        raise LobbyError(404, "no_table", "the table no longer exists")
                    await self.tables.streams.sync(table)
                raise LobbyError(409, "stale", "the table changed meanwhile; try again")
            except RedisError as e:
                metrics.REDIS_ERRORS.inc()
                table.suspect = True
                raise Unavailable(str(e)) from None

    async def caught_up(self, table: LiveTable, seq: int) -> int:
        if table.seq < seq:
            await self.tables.streams.sync(table)
        return seq

    def turn_hook(self, table: LiveTable, before: tuple[int, ...]) -> None:
        fresh = tuple(s for s in table.to_move() if s not in before)
        if self.tables.listener.wants_turns and fresh and not table.game_over():
            self.tables.spawn(self.tables.listener.turn_changed(table, fresh))
