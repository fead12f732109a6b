"""Moving the lobby lists of an older version into the lobby's read model.

Before the read model (server/store/lobby_index.py) the lobby was three sorted sets of table ids
by creation time, ``tables:open``, ``tables:running`` and ``tables:ended``, read by
loading every listed table's meta. A service started on a Redis that still holds them
lists those tables again: ``migrate`` (run by every process at start, in the background)
copies each listed table's summary from its meta hash into the read model and takes the
id out of the old list, then the old list is gone. Idempotent and safe to run from
several processes at once: a row is written with its meta's ``version``, so a copy never
replaces a row as new or newer (``LobbyIndex.put``), and an id whose meta is gone
(expired) or private is only dropped. Of the old ended list only the newest
``keep_ended`` ids are copied (the read model keeps no more); the older ones are dropped
with them (their games stay reachable by id, as with the read model).

Work is bounded per round trip (``BATCH`` ids); the whole run reads each listed meta once.
An old-version process still running (a rolling upgrade) may list a table after the run;
the next start copies it.
"""

from __future__ import annotations

import time
from typing import Any

from server.logging import get_logger
from server.store.lobby_index import KEEP_ENDED, STATUSES
from server.store.streams import Store, meta_key
from server.table.meta import TableMeta, expand

log = get_logger("lobby_migration")

BATCH = 100


def old_list(status: str) -> str:
    """The older version's lobby list of ``status`` (a sorted set of table ids)."""
    return f"tables:{status}"


def row(table_id: str, fields: dict[str, str], ttl_ms: int, now: float, idle_expiry: int
        ) -> tuple[dict[str, Any], int, float] | None:
    """What the read model lists for a table whose meta hash is ``fields`` and expires in
    ``ttl_ms`` (``PTTL``: negative for none): ``(summary, meta version, expires_at epoch
    s, 0: never)``; ``None`` for a gone, private or unreadable meta (nothing to list).
    An open table's row expires with its meta (``idle_expiry`` from ``now`` if the meta
    has no expiry), as ``TableLobby.index`` lists it."""
    if not fields:
        return None
    try:
        meta = TableMeta.from_fields(table_id, fields)
        version = int(meta.version)
    except (KeyError, ValueError, TypeError):
        return None
    if meta.private:
        return None
    expires = 0.0
    if meta.status == "open":
        expires = now + (ttl_ms / 1000 if ttl_ms > 0 else idle_expiry)
    return meta.summary(), version, expires


async def _copy(store: Store, ids: list[str], idle_expiry: int) -> int:
    pipe = store.redis.pipeline(transaction=False)
    for t in ids:
        pipe.hgetall(meta_key(t))
        pipe.pttl(meta_key(t))
    got = await pipe.execute()
    now, copied = time.time(), 0
    for i, t in enumerate(ids):
        listed = row(t, expand(got[2 * i]), int(got[2 * i + 1]), now, idle_expiry)
        if listed is not None:
            summary, version, expires = listed
            await store.lobby.put(summary, version, expires)
            copied += 1
    return copied


async def migrate(store: Store, idle_expiry: int, keep_ended: int = KEEP_ENDED) -> int:
    """Copy every table of the old lobby lists into the read model and empty the lists
    (see the module docstring). Returns how many rows were copied. Raises
    ``redis.RedisError`` (what was copied stays; the next run does the rest)."""
    copied = 0
    for status in STATUSES:
        key = old_list(status)
        if status == "ended":
            ids = [r.decode() for r in await store.redis.zrevrange(key, 0, keep_ended - 1)]
            for start in range(0, len(ids), BATCH):
                copied += await _copy(store, ids[start:start + BATCH], idle_expiry)
            if ids:  # the copied ones and every older one
                oldest = await store.redis.zscore(key, ids[-1])
                await store.redis.zrem(key, *ids)
                if oldest is not None:
                    await store.redis.zremrangebyscore(key, "-inf", oldest)
            continue
        while ids := [r.decode() for r in await store.redis.zrange(key, 0, BATCH - 1)]:
            copied += await _copy(store, ids, idle_expiry)
            await store.redis.zrem(key, *ids)
    if copied:
        log.info("old lobby lists copied into the read model", rows=copied)
    return copied
