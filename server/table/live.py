"""The live table: the pure core (server/table/core.py) under a thin asyncio shell.

A ``LiveTable`` is a ``TableCore`` plus what only a running process has: the room of local
sockets (server/fanout/room.py), the locks that order appends and syncs, the bot tasks
and the events they wait on, and whether this process follows the table's channel. It
changes only by applying stored entries in seq order (``apply``), whether this process
appended them or another one did (pub/sub): the core folds them and returns an
``Outbox``, and the shell writes it to the room and tells the ``TableEvents`` it was
given (the game's end, a seat that changed hands).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from server.fanout.room import Room
from server.table.core import Outbox, TableCore
from server.table.meta import TableMeta


class TableEvents(Protocol):
    """What the process does when a table it holds changes in a way beyond its sockets
    (``Tables`` is the one implementation: server/table/tables.py)."""

    def control_changed(self, table: LiveTable) -> None:
        """A seat changed hands (a bot took it over, or its player came back)."""

    def game_ended(self, table: LiveTable) -> None:
        """The table's game has ended (its stored entries say so)."""


class LiveTable(TableCore):
    """One table's cached state in this process (see the module docstring)."""

    def __init__(self, meta: TableMeta, ring_size: int, events: TableEvents | None = None,
                 now: Callable[[], int] | None = None) -> None:
        super().__init__(meta, ring_size)
        self.events = events
        self.now: Callable[[], int] = now or (lambda: int(time.time() * 1000))
        """The service's clock, ms since the epoch."""
        self.room = Room(meta.id)
        self.lock = asyncio.Lock()
        self.sync_lock = asyncio.Lock()
        self.bot_tasks: dict[int, asyncio.Task[None]] = {}
        self.turn: dict[int, asyncio.Event] = {}
        self.subscribed = False
        self.joining = 0  # sockets between ``Tables.get(watch=True)`` and the room
        self.following: asyncio.Future[None] | None = None
        """Done when the subscription's first sync is (``Tables.follow``)."""
        self.suspect = False
        self.presence: dict[str, Any] | None = None
        """The last ``presence`` message this process sent (server/play/attendance.py)."""

    def reset(self, meta: TableMeta, entries: list[dict[str, Any]]) -> None:
        """Fold the stored ``entries`` again from scratch (``TableCore.reset``); deltas of
        the other stream still queued must not go out now."""
        self.room.pending.clear()
        self.suspect = False
        super().reset(meta, entries)

    def apply(self, entries: list[dict[str, Any]], first_seq: int) -> bool:
        """Apply entries whose first has seq ``first_seq`` (already applied ones are
        skipped) and send what they mean: the delta, the clock, the prompts. Returns False
        (and applies nothing) when entries are missing before them."""
        seated = {seat for seat, conns in self.room.players.items() if conns}
        out = self.take(entries, first_seq, seated, self.now())
        if out is None:
            return False
        self.send(out)
        return True

    def send(self, out: Outbox) -> None:
        """Write an outbox: deliver to the room in order, wake the bots, tell the events."""
        if out.delta is None:
            return
        self.room.publish("delta", out.delta)
        if out.clock is not None:
            self.room.publish("message", out.clock)
        if out.control_changed and self.events is not None:
            self.events.control_changed(self)
        for prompt in out.prompts:
            self.room.publish("prompt", prompt)
        for seat in out.to_move:
            turn = self.turn.get(seat)
            if turn is not None:
                turn.set()
        if out.over:
            for turn in self.turn.values():
                turn.set()
            if self.events is not None:
                self.events.game_ended(self)

    def clock_now(self) -> dict[str, Any]:
        """The ``clock`` message as of the service's clock now."""
        return self.clock_message(self.now())
