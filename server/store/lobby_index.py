"""The lobby lists as a read model: table summaries kept in one hash slot, read in one
round trip.

The authority on a table is its meta hash (``t:{<id>}:meta``, in the table's own slot);
this index holds a copy of each listed table's summary, written after every lobby change
by the process that made it, so listing never touches the tables' slots: a refresh is one
``EVALSHA`` on the lobby's slot, whatever the number of tables (at most ``limit`` rows per
status come back; at most ``PURGE_BATCH`` expired rows are dropped per call). Every key
carries the hash tag ``{lobby}``, so both scripts are single-slot on a Redis Cluster.

| key | type | holds |
|---|---|---|
| ``lobby:{lobby}:open`` / ``:running`` / ``:ended`` | sorted set | table ids by creation time |
| ``lobby:{lobby}:rows`` | hash | id → summary (JSON) as of its last lobby change |
| ``lobby:{lobby}:ver`` | hash | id → meta ``version`` of that row (older writes lose) |
| ``lobby:{lobby}:expiry`` | sorted set | open table ids by the time their meta expires |

A row lags its meta by one round trip; a process that dies between the two leaves the row
at the previous change until the table's next one. The ``seq`` of a row is the table's
seq at its last lobby change (the start, the end). The ended list keeps the newest
``KEEP_ENDED`` rows (older games stay reachable by id: only the listing forgets them).
"""

from __future__ import annotations

import json
from typing import Any

STATUSES = ("open", "running", "ended")
KEEP_ENDED = 1000
PURGE_BATCH = 100



def index_keys(tag: str = "lobby") -> list[str]:
    """The index's keys, all in the slot of ``{tag}``: the three lists, rows, versions,
    expiry (tests use a tag of their own)."""
    base = f"lobby:{{{tag}}}"
    return [f"{base}:{s}" for s in STATUSES] + [f"{base}:rows", f"{base}:ver", f"{base}:expiry"]

PUT_LUA = """
local open, running, ended, rows, ver, expiry = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id, version, status, score = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local row, expires, keep = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local cur = redis.call('HGET', ver, id)
if cur and tonumber(cur) >= version then return 0 end
redis.call('HSET', ver, id, version)
redis.call('HSET', rows, id, row)
local lists = {open = open, running = running, ended = ended}
for name, key in pairs(lists) do
  if name == status then redis.call('ZADD', key, score, id) else redis.call('ZREM', key, id) end
end
if expires > 0 then redis.call('ZADD', expiry, expires, id) else redis.call('ZREM', expiry, id) end
if status == 'ended' then
  local n = redis.call('ZCARD', ended)
  if n > keep then
    for _, old in ipairs(redis.call('ZRANGE', ended, 0, n - keep - 1)) do
      redis.call('ZREM', ended, old)
      redis.call('HDEL', rows, old)
      redis.call('HDEL', ver, old)
    end
  end
end
return 1
"""

LIST_LUA = """
local rows, ver, expiry = KEYS[4], KEYS[5], KEYS[6]
local now, limit, batch = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
for _, id in ipairs(redis.call('ZRANGEBYSCORE', expiry, '-inf', now, 'LIMIT', 0, batch)) do
  for i = 1, 3 do redis.call('ZREM', KEYS[i], id) end
  redis.call('HDEL', rows, id)
  redis.call('HDEL', ver, id)
  redis.call('ZREM', expiry, id)
end
local out = {}
for i = 4, #ARGV do
  local ids = redis.call('ZREVRANGE', KEYS[tonumber(ARGV[i])], 0, limit - 1)
  if #ids > 0 then
    for _, row in ipairs(redis.call('HMGET', rows, unpack(ids))) do
      if row then table.insert(out, row) end
    end
  end
end
return out
"""


class LobbyIndex:
    """The read model on a ``redis.asyncio`` client (one node or a cluster); ``keep_ended``
    rows stay in the ended list."""

    def __init__(self, client: Any, tag: str = "lobby", keep_ended: int = KEEP_ENDED) -> None:
        self.keys = index_keys(tag)
        self.keep_ended = keep_ended
        self._client = client
        self._put = client.register_script(PUT_LUA)
        self._list = client.register_script(LIST_LUA)

    async def put(self, summary: dict[str, Any], version: int, expires_at: float = 0.0
                  ) -> bool:
        """List ``summary`` (docs/protocol.md §1) under its ``status`` as of meta
        ``version``; ``expires_at`` (epoch seconds, 0: never) is when an open table's
        meta expires. False when the index already holds this version or a newer one.
        Raises ``redis.RedisError``."""
        args = [summary["id"], version, summary["status"], summary["created_at"],
                json.dumps(summary, separators=(",", ":")), expires_at, self.keep_ended]
        return bool(await self._put(keys=self.keys, args=args))

    async def listing(self, statuses: list[str], limit: int, now: float
                      ) -> list[dict[str, Any]]:
        """Up to ``limit`` summaries per status (newest first within each), dropping rows
        whose table expired before ``now``. Raises ``redis.RedisError``."""
        which = [STATUSES.index(s) + 1 for s in statuses]
        raw = await self._list(keys=self.keys, args=[now, limit, PURGE_BATCH, *which])
        return [json.loads(r) for r in raw]

    async def forget(self, table_id: str) -> None:
        """Drop a table's row from every list (a pruned game: docs/operations.md,
        "Retention"); one slot, one transaction."""
        pipe = self._client.pipeline(transaction=True)
        for key in self.keys[:3]:
            pipe.zrem(key, table_id)
        pipe.hdel(self.keys[3], table_id)
        pipe.hdel(self.keys[4], table_id)
        pipe.zrem(self.keys[5], table_id)
        await pipe.execute()

    async def ids(self, status: str, limit: int) -> list[str]:
        """Up to ``limit`` listed table ids with ``status``, newest first (one command on
        the lobby's slot). Raises ``redis.RedisError``."""
        raw = await self._client.zrevrange(self.keys[STATUSES.index(status)], 0, limit - 1)
        return [r.decode() for r in raw]
