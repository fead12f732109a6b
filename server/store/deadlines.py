"""The deadline index: which tables may have a move deadline due, across processes.

The truth is the clock in each table's stream (server/play/clock.py, entry field ``c``);
this sorted set only says when to look (server/play/deadlines.py scans it).
"""

from __future__ import annotations

from server.store.client import Client, bounded, bounded_off_lane
from server.store.lane import Lane
from server.store.route import Route

DEADLINES = "tables:deadlines"
"""Sorted set: table id → a time (ms) no later than its next move deadline (an index: the
truth is the clock in the table's stream)."""


class DeadlineIndex:
    """The deadline index of one Redis (``Store.deadlines``); every call within
    ``timeout`` seconds (``bounded``)."""

    def __init__(self, client: Client, timeout: float, lane: Lane | None = None) -> None:
        self.redis = client
        self.timeout = timeout
        self.lane = lane  # the hot commands' held connection (server/store/lane.py), if any
        self.route = Route(client, lane, timeout)

    @bounded_off_lane
    async def lower(self, table_id: str, at_ms: int) -> None:
        """Make the table's score in the deadline index at most ``at_ms`` (``ZADD LT``):
        the index only ever wakes a process early, never late."""
        await self.route.command("ZADD", DEADLINES, "LT", at_ms, table_id)

    @bounded_off_lane
    async def set(self, table_id: str, at_ms: int | None) -> None:
        """Set the table's score in the deadline index (``None``: drop it)."""
        await self.route.command(*(("ZREM", DEADLINES, table_id) if at_ms is None
                                   else ("ZADD", DEADLINES, at_ms, table_id)))

    @bounded
    async def due(self, now_ms: int, limit: int = 64) -> list[str]:
        """Tables whose score in the deadline index is at most ``now_ms``."""
        raw = await self.redis.zrangebyscore(DEADLINES, "-inf", now_ms, start=0, num=limit)
        return [r.decode() if isinstance(r, bytes) else str(r) for r in raw]
