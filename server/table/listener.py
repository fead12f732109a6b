"""What the rest of a process does about its tables: one typed collaborator.

``Tables`` is given a ``TableListener`` when it is built (the service object of
server/app.py is the one the server uses) and tells it of every change beyond the table's
own sockets. This base class does nothing, so a ``Tables`` built alone (tests, tools)
drives no bots and sends no mail.
"""

from __future__ import annotations

import asyncio
from typing import Any

from server.table.live import LiveTable


class TableListener:
    """Told by ``Tables`` (every method a no-op here; see server/app.py ``Service``)."""

    drives_bots = False
    """True when ``start_bot`` starts bot tasks: only then does the process claim bot
    tables' leases and load them (server/table/bot_seats.py)."""

    wants_turns = False
    """True when ``turn_changed`` does something (turn mails configured): otherwise no
    task is spawned per action for it."""

    def start_bot(self, table: LiveTable, seat: int) -> asyncio.Task[None]:
        """Start the task that plays ``seat`` of ``table`` (only with ``drives_bots``)."""
        raise NotImplementedError("this process drives no bots")

    def resynced(self, table: LiveTable) -> None:
        """The table was rebuilt from Redis: every local socket needs a fresh welcome."""

    def chat_published(self, table: LiveTable, msg: dict[str, Any]) -> None:
        """A chat message arrived on the table's channel."""

    def chat_removed(self, table: LiveTable, note: dict[str, Any]) -> None:
        """A stored chat message was removed by the administration (``note``: ``id``,
        ``channel``, ``text``)."""

    def seats_suspended(self, table: LiveTable, seats: list[int]) -> None:
        """The account holding ``seats`` was suspended by the moderation: close the local
        sockets of those seats."""

    async def turn_changed(self, table: LiveTable, seats: tuple[int, ...]) -> None:
        """``seats`` are newly to move after an action this process stored."""

    async def game_ended(self, table: LiveTable) -> None:
        """The game is over, before the table is marked ended: an exception leaves it
        unmarked, so the next process to load it tries again (ratings, mails)."""

    def clock_changed(self, table: LiveTable) -> None:
        """This process stored entries of a clocked table, or loaded one (the deadline
        index follows: server/play/deadlines.py)."""

    def presence_announced(self, table: LiveTable) -> None:
        """Another process announced a presence change (server/play/attendance.py)."""
