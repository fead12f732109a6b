"""The presence hash of each table: which process holds sockets of which seat, and the
spectators it counts (server/play/presence.py reads it; server/play/attendance.py writes
this process's part). One round trip per write, one pipeline for many tables; on the
store's lane (server/store/lane.py) when it has one: a renewal of 200 tables through
redis-py's pipeline cost about as much CPU as the rest of the refresh together
(docs/benchmarks.md, "Presence refresh (issue 27)").
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from server.store.client import Client, bounded_off_lane
from server.store.lane import Lane
from server.store.route import Route
from server.store.streams import channel, pack


def presence_key(table_id: str) -> str:
    """The table's presence hash (server/play/presence.py)."""
    return f"t:{{{table_id}}}:presence"


def _commands(table_id: str, set_fields: dict[str, str], drop: list[str], ttl: int,
              notify: bool, origin: str = "") -> list[tuple[Any, ...]]:
    """The commands of one table's ``write``, as the lane sends them (HGETALL last); the
    notice carries ``origin`` first when given."""
    key = presence_key(table_id)
    out: list[tuple[Any, ...]] = []
    if set_fields:
        out.append(("HSET", key, *chain.from_iterable(set_fields.items())))
    if drop:
        out.append(("HDEL", key, *drop))
    out.append(("EXPIRE", key, ttl))
    if notify:
        notice = {"table": table_id, "from": 0, "entries": [], "presence": True}
        out.append(("SPUBLISH", channel(table_id),
                    pack({"by": origin, **notice} if origin else notice)))
    out.append(("HGETALL", key))
    return out


def _fields(raw: Any) -> dict[str, str]:
    """An HGETALL reply (redis-py's dict, or the lane's flat list) as text."""
    if isinstance(raw, dict):
        return {k.decode(): v.decode() for k, v in raw.items()}
    it = iter(raw)
    return {k.decode(): v.decode() for k, v in zip(it, it, strict=True)}


class PresenceHashes:
    """The presence hashes of one Redis; every call within ``timeout`` seconds; on
    ``lane`` when given (one Redis), else through redis-py's pipeline (a Redis Cluster,
    TLS). ``origin``: the writing store's name (``Store.origin``), put first in its
    notices so that its own process's subscriber drops them unread (that process read the
    hash in the same round trip); ``""``: notices without it."""

    def __init__(self, client: Client, timeout: float, lane: Lane | None = None,
                 origin: str = "") -> None:
        self.redis = client
        self.timeout = timeout
        self.lane = lane
        self.route = Route(client, lane, timeout)
        self.origin = origin

    @bounded_off_lane
    async def write(self, table_id: str, set_fields: dict[str, str], drop: list[str],
                       ttl: int, notify: bool) -> dict[str, str]:
        """Write this process's presence fields (and drop others of its own), keep the
        hash for ``ttl`` s, optionally publish a presence notice on the table channel, and
        return the whole hash (one round trip)."""
        commands = _commands(table_id, set_fields, drop, ttl, notify, self.origin)
        return _fields((await self.route.commands(*commands))[-1])

    @bounded_off_lane
    async def write_many(self, claims: list[tuple[str, dict[str, str], list[str], bool]],
                         ttl: int) -> list[dict[str, str] | None]:
        """For many tables in one pipeline, per ``(table id, fields to set, fields to
        drop, read)``: ``write`` without a notice when ``read`` (the table's whole hash
        afterwards), else only the fields set and dropped (``None``: a renewal)."""
        commands: list[tuple[Any, ...]] = []
        ends: list[int | None] = []
        for table_id, set_fields, drop, read in claims:
            if read:
                commands += _commands(table_id, set_fields, drop, ttl, False)
                ends.append(len(commands) - 1)
                continue
            key = presence_key(table_id)
            if set_fields:
                commands.append(("HSET", key, *chain.from_iterable(set_fields.items())))
            if drop:
                commands.append(("HDEL", key, *drop))
            ends.append(None)
        if not commands:
            return [None] * len(claims)
        replies = await self.route.commands(*commands)
        return [None if at is None else _fields(replies[at]) for at in ends]
