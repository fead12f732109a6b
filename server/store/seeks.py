"""The seek pool of quick pairing in Redis (docs/protocol.md §7, "In Redis"), one family of
keys per game, all in one hash slot (``{seeks:<game>}``) so that every change below is one
Lua script on one node of a Redis Cluster:

- ``{seeks:<game>}:s:<seek id>`` hash: the seek (``status``: ``waiting``, ``claimed``
  (seated at a table being created), ``paired``, ``cancelled``, ``expired``; ``table``,
  ``seat`` once claimed; ``secret``: SHA-256 of the seeker's seek token; ``seat_hash``:
  SHA-256 of the seat token it gets; ``seen``: ms of the seeker's last sign of life);
- ``{seeks:<game>}:pool`` sorted set: the waiting seek ids by creation time (ms);
- ``{seeks:<game>}:open`` hash: account owner → its one open seek of the game;
- ``{seeks:<game>}:pending`` sorted set: table ids claimed but not yet created, by the
  time of the claim (ms); ``{seeks:<game>}:pair:<table id>`` hash: that pairing (``seeks``:
  JSON list of seek ids in seat order, ``bots``, ``starter``: the token that starts the
  table, ``claimed``). Whoever finds a pending pairing finishes it: table creation is
  idempotent (``Store.create_new``) and so is the start.

A seek moves out of ``waiting`` exactly once, by exactly one of the claim, cancel and
expiry scripts: each checks ``status == 'waiting'`` and changes it in the same script.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server.store import client as redis_client
from server.store.client import bounded

ADD_LUA = """
local seek, pool, open = KEYS[1], KEYS[2], KEYS[3]
local owner, sid, created, ttl, prefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if owner ~= '' then
  local held = redis.call('HGET', open, owner)
  if held then
    -- Same slot: the held seek's key shares the hash tag of this script's keys.
    local st = redis.call('HGET', prefix .. held, 'status')
    if st == 'waiting' then return {0, held} end
  end
end
for i = 6, #ARGV, 2 do redis.call('HSET', seek, ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', seek, ttl)
redis.call('ZADD', pool, created, sid)
if owner ~= '' then redis.call('HSET', open, owner, sid) end
return {1, sid}
"""

CLAIM_LUA = """
local pool, pending, pair, open = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local tid, now, bots, ids, starter = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
if redis.call('EXISTS', pair) == 1 then return 0 end
for i = 5, #KEYS do
  if redis.call('HGET', KEYS[i], 'status') ~= 'waiting' then return 0 end
end
for i = 5, #KEYS do
  local sid = ARGV[i + 1]
  redis.call('HSET', KEYS[i], 'status', 'claimed', 'table', tid, 'seat', i - 5)
  redis.call('ZREM', pool, sid)
  local owner = redis.call('HGET', KEYS[i], 'owner')
  if owner and owner ~= '' and redis.call('HGET', open, owner) == sid then
    redis.call('HDEL', open, owner)
  end
end
redis.call('HSET', pair, 'seeks', ids, 'bots', bots, 'claimed', now, 'starter', starter)
redis.call('ZADD', pending, now, tid)
return 1
"""

END_LUA = """
local seek, pool, open = KEYS[1], KEYS[2], KEYS[3]
local sid, status, cutoff, ttl = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now = redis.call('HGET', seek, 'status')
if not now then return {0, ''} end
if now ~= 'waiting' then return {0, now} end
if cutoff ~= '' and tonumber(redis.call('HGET', seek, 'seen') or '0') >= tonumber(cutoff) then
  return {0, now}
end
redis.call('HSET', seek, 'status', status)
redis.call('ZREM', pool, sid)
local owner = redis.call('HGET', seek, 'owner')
if owner and owner ~= '' and redis.call('HGET', open, owner) == sid then
  redis.call('HDEL', open, owner)
end
redis.call('EXPIRE', seek, ttl)
return {1, status}
"""

TOUCH_LUA = """
local seek, now, ttl = KEYS[1], ARGV[1], ARGV[2]
if redis.call('HGET', seek, 'status') == 'waiting' then
  redis.call('HSET', seek, 'seen', now)
  redis.call('EXPIRE', seek, ttl)
end
return redis.call('HGETALL', seek)
"""

FINISH_LUA = """
local pending, pair, tid, ttl = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local done = 0
for i = 3, #KEYS do
  if redis.call('HGET', KEYS[i], 'status') == 'claimed'
      and redis.call('HGET', KEYS[i], 'table') == tid then
    redis.call('HSET', KEYS[i], 'status', 'paired')
    redis.call('EXPIRE', KEYS[i], ttl)
    done = done + 1
  end
end
redis.call('ZREM', pending, tid)
redis.call('DEL', pair)
return done
"""


def tag(game: str) -> str:
    """The hash tag of every key of ``game``'s pool."""
    return f"{{seeks:{game}}}"


def seek_key(game: str, sid: str) -> str:
    return f"{tag(game)}:s:{sid}"


def pool_key(game: str) -> str:
    return f"{tag(game)}:pool"


def open_key(game: str) -> str:
    return f"{tag(game)}:open"


def pending_key(game: str) -> str:
    return f"{tag(game)}:pending"


def pair_key(game: str, table_id: str) -> str:
    return f"{tag(game)}:pair:{table_id}"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _fields(flat: Sequence[Any]) -> dict[str, str]:
    return {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat), 2)}


@dataclass(frozen=True)
class Pending:
    """A claimed pairing whose table may not exist yet: ``seeks`` in seat order, ``bots``
    seats more, ``starter`` the token that starts its table, ``claimed`` (ms)."""

    table_id: str
    seeks: list[str]
    bots: int
    starter: str
    claimed: int


class SeekStore:
    """The seek scripts and reads on one Redis or cluster (each call ``bounded`` by
    ``timeout`` seconds; raises ``RedisError``)."""

    def __init__(self, client: redis_client.Client, timeout: float) -> None:
        self.redis = client
        self.timeout = timeout
        self._add = client.register_script(ADD_LUA)
        self._claim = client.register_script(CLAIM_LUA)
        self._end = client.register_script(END_LUA)
        self._touch = client.register_script(TOUCH_LUA)
        self._finish = client.register_script(FINISH_LUA)

    @bounded
    async def add(self, game: str, sid: str, owner: str, fields: dict[str, str],
                  created: int, ttl: int) -> str | None:
        """Store a waiting seek and put it in the pool. ``owner`` (``''``: none) may hold
        one waiting seek per game: returns ``None`` when stored, else the id of the seek
        it already holds (nothing stored)."""
        args: list[Any] = [owner, sid, created, ttl, f"{tag(game)}:s:"]
        for k, v in fields.items():
            args += [k, v]
        ok, held = await self._add(keys=[seek_key(game, sid), pool_key(game), open_key(game)],
                                   args=args)
        return None if int(ok) == 1 else _text(held)

    @bounded
    async def held(self, game: str, owner: str) -> str | None:
        """The id of the waiting seek ``owner`` holds in ``game``'s pool (``None``: none;
        one it held may have moved on since: ``end`` says)."""
        got = await self.redis.hget(open_key(game), owner)
        return None if got is None else _text(got)

    @bounded
    async def touch(self, game: str, sid: str, now: int, ttl: int) -> dict[str, str]:
        """A waiting seek's seeker was seen at ``now`` (ms); returns the seek's fields
        (``{}``: no such seek)."""
        return _fields(await self._touch(keys=[seek_key(game, sid)], args=[now, ttl]))

    @bounded
    async def end(self, game: str, sid: str, status: str, ttl: int,
                  seen_before: int | None = None) -> tuple[bool, str]:
        """Move a waiting seek to ``status`` (``cancelled``, ``expired``; with
        ``seen_before``: only if its seeker was last seen before that ms). Returns
        ``(True, status)`` when done, else ``(False, its status)`` (``''``: no such seek)."""
        done, now = await self._end(
            keys=[seek_key(game, sid), pool_key(game), open_key(game)],
            args=[sid, status, "" if seen_before is None else seen_before, ttl])
        return int(done) == 1, _text(now)

    @bounded
    async def claim(self, game: str, table_id: str, sids: Sequence[str], bots: int,
                    starter: str, now: int) -> bool:
        """Seat ``sids`` (in this order) at the new table ``table_id`` with ``bots`` bots,
        all or nothing: only when every one is still waiting. True when claimed."""
        keys = [pool_key(game), pending_key(game), pair_key(game, table_id), open_key(game),
                *(seek_key(game, s) for s in sids)]
        args: list[Any] = [table_id, now, bots, json.dumps(list(sids)), starter, *sids]
        return int(await self._claim(keys=keys, args=args)) == 1

    @bounded
    async def finish(self, game: str, pending: Pending, ttl: int) -> int:
        """The pairing's table is running: its seeks are ``paired`` and the pending record
        goes. Returns how many seeks moved (0 when another process finished it first)."""
        keys = [pending_key(game), pair_key(game, pending.table_id),
                *(seek_key(game, s) for s in pending.seeks)]
        return int(await self._finish(keys=keys, args=[pending.table_id, ttl]))

    @bounded
    async def waiting(self, game: str, limit: int) -> list[dict[str, str]]:
        """The oldest ``limit`` waiting seeks of ``game`` (fields plus ``id``); a seek may
        have changed since (the claim checks again)."""
        ids = [_text(i) for i in await self.redis.zrange(pool_key(game), 0, limit - 1)]
        if not ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for sid in ids:
            pipe.hgetall(seek_key(game, sid))
        out = []
        for sid, raw in zip(ids, await pipe.execute(), strict=True):
            if raw:
                out.append({**{_text(k): _text(v) for k, v in raw.items()}, "id": sid})
            else:  # its key expired (no process ran for a day): nothing left to pair
                await self.redis.zrem(pool_key(game), sid)
        return out

    @bounded
    async def pool_size(self, game: str) -> int:
        """How many seeks of ``game`` wait."""
        return int(await self.redis.zcard(pool_key(game)))

    @bounded
    async def pending(self, game: str, claimed_before: int) -> list[Pending]:
        """The pairings of ``game`` claimed before ``claimed_before`` (ms) and not yet
        finished."""
        tids = [_text(t) for t in await self.redis.zrangebyscore(
            pending_key(game), "-inf", f"({claimed_before}")]
        out = []
        for tid in tids:
            p = await self.pair(game, tid)
            if p is not None:
                out.append(p)
            else:  # the record went with a finish that raced this read
                await self.redis.zrem(pending_key(game), tid)
        return out

    async def pair(self, game: str, table_id: str) -> Pending | None:
        raw = await self.redis.hgetall(pair_key(game, table_id))
        if not raw:
            return None
        f = {_text(k): _text(v) for k, v in raw.items()}
        return Pending(table_id, json.loads(f["seeks"]), int(f["bots"]), f["starter"],
                       int(f["claimed"]))

    @bounded
    async def seek(self, game: str, sid: str) -> dict[str, str]:
        """The seek's fields (``{}``: none)."""
        raw = await self.redis.hgetall(seek_key(game, sid))
        return {_text(k): _text(v) for k, v in raw.items()}
