"""The presence hash of each table: which process holds sockets of which seat, and the
spectators it counts (server/play/presence.py reads it; server/play/attendance.py writes
this process's part). One round trip per refresh, one pipeline for many tables.
"""

from __future__ import annotations

from server.store.client import Client, bounded
from server.store.streams import channel, pack


def presence_key(table_id: str) -> str:
    """The table's presence hash (server/play/presence.py)."""
    return f"t:{{{table_id}}}:presence"


class PresenceHashes:
    """The presence hashes of one Redis; every call within ``timeout`` seconds.
    ``origin``: the writing store's name (``Store.origin``), put first in its notices so
    that its own process's subscriber drops them unread (that process read the hash in
    the same round trip); ``""``: notices without it."""

    def __init__(self, client: Client, timeout: float, origin: str = "") -> None:
        self.redis = client
        self.timeout = timeout
        self.origin = origin

    @bounded
    async def write(self, table_id: str, set_fields: dict[str, str], drop: list[str],
                       ttl: int, notify: bool) -> dict[str, str]:
        """Write this process's presence fields (and drop others of its own), keep the
        hash for ``ttl`` s, optionally publish a presence notice on the table channel, and
        return the whole hash (one round trip)."""
        key = presence_key(table_id)
        pipe = self.redis.pipeline(transaction=False)
        if set_fields:
            pipe.hset(key, mapping=set_fields)
        if drop:
            pipe.hdel(key, *drop)
        pipe.expire(key, ttl)
        if notify:
            notice = {"table": table_id, "from": 0, "entries": [], "presence": True}
            pipe.spublish(channel(table_id),
                          pack({"by": self.origin, **notice} if self.origin else notice))
        pipe.hgetall(key)
        raw = (await pipe.execute())[-1]
        return {k.decode(): v.decode() for k, v in raw.items()}

    @bounded
    async def write_many(self, claims: list[tuple[str, dict[str, str], list[str]]],
                            ttl: int) -> list[dict[str, str]]:
        """``write`` (without a notice) for many tables in one pipeline: per ``(table
        id, fields to set, fields to drop)``, the table's whole hash afterwards."""
        pipe = self.redis.pipeline(transaction=False)
        for table_id, set_fields, drop in claims:
            key = presence_key(table_id)
            if set_fields:
                pipe.hset(key, mapping=set_fields)
            if drop:
                pipe.hdel(key, *drop)
            pipe.expire(key, ttl)
            pipe.hgetall(key)
        replies = await pipe.execute()
        out, at = [], 0
        for _, set_fields, drop in claims:
            at += bool(set_fields) + bool(drop) + 2
            out.append({k.decode(): v.decode() for k, v in replies[at - 1].items()})
        return out
