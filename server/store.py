"""Redis layout of docs/protocol.md §3: keys, the append and meta scripts, loads.

Every key of a table carries the hash tag ``{<table id>}`` so a Redis Cluster keeps it in
one slot. Appending an action's events is one round trip (``APPEND``): it checks the
expected seq (and, for the start, the lobby version), the action id for idempotency,
pushes the entries, sets ``seq``/``head``, and ``SPUBLISH``es them on the table channel.
Only this module knows key names; everything else calls these functions.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.maint_notifications import MaintNotificationsConfig

APPEND_LUA = """
local meta, events, acts, chan = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local expected, want_version, act = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local head, payload, n = ARGV[4], ARGV[5], tonumber(ARGV[6])
local prev = ARGV[7]
if redis.call('EXISTS', meta) == 0 then return {'missing', 0} end
if act ~= '' then
  local done = redis.call('HGET', acts, act)
  if done then return {'dup', tonumber(done)} end
end
local seq = tonumber(redis.call('HGET', meta, 'seq') or '0')
if seq ~= expected then return {'stale', seq} end
if prev ~= '' and redis.call('HGET', meta, 'head') ~= prev then return {'stale', seq} end
if want_version ~= '' and redis.call('HGET', meta, 'version') ~= want_version then
  return {'stale', seq}
end
if n > 0 then redis.call('RPUSH', events, unpack(ARGV, 8, 7 + n)) end
local new = seq + n
redis.call('HSET', meta, 'seq', new, 'head', head)
for i = 8 + n, #ARGV, 2 do redis.call('HSET', meta, ARGV[i], ARGV[i + 1]) end
if want_version ~= '' then redis.call('HINCRBY', meta, 'version', 1) end
if act ~= '' then redis.call('HSET', acts, act, new) end
redis.call('PERSIST', meta)
redis.call('SPUBLISH', chan, payload)
return {'ok', new}
"""

UPDATE_META_LUA = """
local meta, chan = KEYS[1], KEYS[2]
local want, ttl, payload = ARGV[1], tonumber(ARGV[2]), ARGV[3]
if redis.call('EXISTS', meta) == 0 then return -1 end
if want ~= '' and redis.call('HGET', meta, 'version') ~= want then return -2 end
for i = 4, #ARGV, 2 do redis.call('HSET', meta, ARGV[i], ARGV[i + 1]) end
local v = redis.call('HINCRBY', meta, 'version', 1)
if ttl > 0 then redis.call('EXPIRE', meta, ttl) elseif ttl < 0 then redis.call('PERSIST', meta) end
if payload ~= '' then redis.call('SPUBLISH', chan, payload) end
return v
"""

CHAT_LUA = """
local meta, list, chan = KEYS[1], KEYS[2], KEYS[3]
local entry, cap, ttl, payload = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
if redis.call('EXISTS', meta) == 0 then return 0 end
redis.call('RPUSH', list, entry)
redis.call('LTRIM', list, -cap, -1)
redis.call('EXPIRE', list, ttl)
redis.call('SPUBLISH', chan, payload)
return 1
"""

CREATE_NEW_LUA = """
local meta = KEYS[1]
if redis.call('EXISTS', meta) == 1 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', meta, ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', meta, tonumber(ARGV[1]))
return 1
"""

STATUSES = ("open", "running", "ended")
BOT_TABLES = "tables:bots"
"""Set of the running tables that have a bot seat: a process resumes their bots when it
starts (an index, like the lobby lists: a gone id is dropped when found)."""

REDIS_CONNECTIONS = 64
"""Pooled Redis connections per process (a command beyond them waits for a free one,
within the call's time bound)."""

CALL_TIMEOUT = 2.0
"""Default bound (seconds) on the whole of one store call: waiting for a pooled
connection, every retry and every reply (``EINAUGE_REDIS_TIMEOUT``). A frozen or
unreachable Redis makes the call fail with ``redis.TimeoutError`` after at most this long,
instead of after the retries of several socket timeouts."""

T = TypeVar("T")


def bounded(method: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """Run a ``Store`` coroutine method within ``self.timeout`` seconds in total; raises
    ``redis.TimeoutError`` (a ``RedisError``) when Redis did not answer in time. redis-py
    drops the connection of a cancelled command, so no late reply is read by another."""

    @functools.wraps(method)
    async def run(self: Store, *args: Any, **kwargs: Any) -> T:
        try:
            async with asyncio.timeout(self.timeout):
                return await method(self, *args, **kwargs)
        except TimeoutError:
            raise RedisTimeoutError(f"Redis did not answer within {self.timeout:g} s") from None

    return run


def meta_key(table_id: str) -> str:
    """The table's metadata hash."""
    return f"t:{{{table_id}}}:meta"


def events_key(table_id: str) -> str:
    """The table's event list (index ``seq - 1``)."""
    return f"t:{{{table_id}}}:events"


def acts_key(table_id: str) -> str:
    """The table's action-id hash (idempotency)."""
    return f"t:{{{table_id}}}:acts"


def channel(table_id: str) -> str:
    """The table's sharded pub/sub channel."""
    return f"t:{{{table_id}}}:deltas"


def chat_key(table_id: str, chat_channel: str) -> str:
    """The table's capped chat history of one chat channel (``players``/``spectators``)."""
    return f"t:{{{table_id}}}:chat:{chat_channel}"


def index_key(status: str) -> str:
    """The lobby list (sorted set by creation time) of tables with ``status``."""
    return f"tables:{status}"


def pack(obj: Any) -> bytes:
    """msgpack bytes of a plain value."""
    return msgpack.packb(obj, use_bin_type=True)


def unpack(data: bytes) -> Any:
    """The value of msgpack ``data`` (strings as ``str``)."""
    return msgpack.unpackb(data, raw=False)


@dataclass(frozen=True)
class AppendResult:
    """``status``: ``ok`` (stored; ``seq`` is the new seq), ``dup`` (the action id was
    stored before; ``seq`` is the seq after it), ``stale`` (``seq`` is the stored seq, not
    the expected one, or the lobby changed), ``missing`` (no such table)."""

    status: str
    seq: int


class Store:
    """Typed access to one Redis (``redis.asyncio.Redis`` with bytes responses)."""

    def __init__(self, client: aioredis.Redis, timeout: float = CALL_TIMEOUT) -> None:
        self.redis = client
        self.timeout = timeout
        self._append = client.register_script(APPEND_LUA)
        self._update = client.register_script(UPDATE_META_LUA)
        self._chat = client.register_script(CHAT_LUA)
        self._create_new = client.register_script(CREATE_NEW_LUA)

    @classmethod
    def from_url(cls, url: str, timeout: float = CALL_TIMEOUT) -> Store:
        """A store on ``url`` (``redis://``, ``rediss://`` or ``unix://``) whose calls
        each fail within ``timeout`` seconds (``bounded``)."""
        # A restarted Redis closes every pooled connection: retry on a fresh one. Retrying
        # is safe: the append script deduplicates by action id and checks the seq. The
        # retries and the socket timeout (never longer than the whole call) stay within
        # the call's bound: ``bounded`` cancels what is left of them.
        retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), 4)
        # Every command in flight holds a pooled connection. redis-py's default pool refuses
        # the 101st at once ("Too many connections": `unavailable` for every table beyond
        # 100 acting at the same moment); this one makes it wait for a free connection.
        # More connections would not make the one Redis thread any faster.
        # No CLIENT SETINFO and no CLIENT MAINT_NOTIFICATIONS on connect: Redis before 7.2
        # refuses the first and any Redis outside Redis Cloud the second; redis-py swallows
        # the errors, but each new connection paid three refused round trips and left the
        # exceptions in reference cycles (tests/server/test_garbage.py).
        pool = aioredis.BlockingConnectionPool.from_url(
            url, max_connections=REDIS_CONNECTIONS, timeout=timeout, socket_timeout=timeout,
            socket_connect_timeout=min(timeout, 2.0), health_check_interval=30, retry=retry,
            retry_on_error=[RedisConnectionError, RedisTimeoutError], driver_info=None,
            maint_notifications_config=MaintNotificationsConfig(enabled=False))
        client = aioredis.Redis(connection_pool=pool)
        client.auto_close_connection_pool = True  # aclose() closes the pool too
        return cls(client, timeout)

    async def close(self) -> None:
        """Close the connection pool."""
        await self.redis.aclose()

    @bounded
    async def ping(self) -> bool:
        """True when Redis answers."""
        return bool(await self.redis.ping())

    @bounded
    async def create(self, table_id: str, fields: dict[str, str], ttl: int, score: float,
                     listed: bool = True) -> None:
        """Store a new table's meta (expiring after ``ttl`` s) and, when ``listed`` (not a
        private table), list it as open."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(meta_key(table_id), mapping=fields)
        pipe.expire(meta_key(table_id), ttl)
        if listed:
            pipe.zadd(index_key("open"), {table_id: score})
        await pipe.execute()

    @bounded
    async def create_new(self, table_id: str, fields: dict[str, str], ttl: int,
                         score: float, listed: bool = True) -> bool:
        """``create``, but only if no table ``table_id`` exists (one script: of two
        concurrent calls exactly one creates it). Returns True when this call created it."""
        args: list[Any] = [ttl]
        for k, v in fields.items():
            args += [k, v]
        created = int(await self._create_new(keys=[meta_key(table_id)], args=args))
        if created and listed:
            await self.redis.zadd(index_key("open"), {table_id: score})
        return bool(created)

    @bounded
    async def append_chat(self, table_id: str, chat_channel: str, msg: dict[str, Any],
                          cap: int, ttl: int) -> bool:
        """Push a chat message onto its channel's list (trimmed to the last ``cap``,
        expiring ``ttl`` s after this message) and publish ``{"table", "chat": msg}`` on
        the table channel, in one script. False (nothing stored) when the table is gone."""
        payload = pack({"table": table_id, "chat": msg})
        keys = [meta_key(table_id), chat_key(table_id, chat_channel), channel(table_id)]
        return bool(await self._chat(keys=keys, args=[pack(msg), cap, ttl, payload]))

    @bounded
    async def load_chat(self, table_id: str, chat_channels: tuple[str, ...]
                        ) -> list[list[dict[str, Any]]]:
        """The stored chat messages of each channel, oldest first, in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for ch in chat_channels:
            pipe.lrange(chat_key(table_id, ch), 0, -1)
        rows = await pipe.execute()
        return [[unpack(b) for b in row] for row in rows]

    @bounded
    async def load_meta(self, table_id: str) -> dict[str, str]:
        """The meta hash as ``str → str`` (empty when the table does not exist)."""
        raw = await self.redis.hgetall(meta_key(table_id))
        return {k.decode(): v.decode() for k, v in raw.items()}

    @bounded
    async def load_entries(self, table_id: str, after: int = 0) -> list[dict[str, Any]]:
        """Stored entries ``{"e", "h", "a"?}`` for seqs ``after+1 …`` in order."""
        raw = await self.redis.lrange(events_key(table_id), after, -1)
        return [unpack(b) for b in raw]

    @bounded
    async def append(self, table_id: str, expected_seq: int, entries: list[dict[str, Any]],
                     head: str, act_key: str = "", expected_version: str = "",
                     meta_fields: dict[str, str] | None = None,
                     meta_changed: bool = False, prev: str = "") -> AppendResult:
        """Append ``entries`` after ``expected_seq`` in one round trip (the APPEND script).

        ``prev`` (hex): the chain head the entries were built on; the append is ``stale``
        unless the stored head is still that one too (so a process whose cache holds
        another stream with the same seq, after Redis lost writes, never appends to it).
        Publishes ``{"table", "from", "prev", "entries", "meta"}`` on the table channel
        when stored. Raises ``redis.RedisError`` when Redis fails (then nothing is known to
        be stored; a retry with the same ``act_key`` is safe).
        """
        payload = pack({"table": table_id, "from": expected_seq + 1, "prev": prev,
                        "entries": entries, "meta": meta_changed})
        args: list[Any] = [expected_seq, expected_version, act_key, head, payload, len(entries),
                           prev]
        args += [pack(e) for e in entries]
        for k, v in (meta_fields or {}).items():
            args += [k, v]
        keys = [meta_key(table_id), events_key(table_id), acts_key(table_id), channel(table_id)]
        status, seq = await self._append(keys=keys, args=args)
        return AppendResult(status.decode() if isinstance(status, bytes) else status, int(seq))

    @bounded
    async def update_meta(self, table_id: str, fields: dict[str, str],
                          expected_version: str = "", ttl: int = 0) -> int | None:
        """Set meta ``fields`` if the version is still ``expected_version`` ('' = any),
        bump the version, set the expiry (``ttl`` > 0; < 0 removes it), and publish a
        meta notice. Returns the new version, or ``None`` when the table is gone or changed.
        """
        args: list[Any] = [expected_version, ttl,
                           pack({"table": table_id, "from": 0, "entries": [], "meta": True})]
        for k, v in fields.items():
            args += [k, v]
        result = await self._update(keys=[meta_key(table_id), channel(table_id)], args=args)
        return None if int(result) < 0 else int(result)

    @bounded
    async def act_seq(self, table_id: str, act_key: str) -> int | None:
        """The seq stored for an action id, if that action was applied."""
        raw = await self.redis.hget(acts_key(table_id), act_key)
        return None if raw is None else int(raw)

    @bounded
    async def move_index(self, table_id: str, to_status: str, score: float) -> None:
        """List the table under ``to_status`` only (lobby lists are an index, not state)."""
        pipe = self.redis.pipeline(transaction=False)
        for status in STATUSES:
            if status != to_status:
                pipe.zrem(index_key(status), table_id)
        pipe.zadd(index_key(to_status), {table_id: score})
        await pipe.execute()

    @bounded
    async def list_ids(self, status: str, limit: int) -> list[str]:
        """Up to ``limit`` table ids with ``status``, newest first."""
        raw = await self.redis.zrevrange(index_key(status), 0, limit - 1)
        return [r.decode() for r in raw]

    @bounded
    async def metas(self, table_ids: list[str]) -> list[dict[str, str]]:
        """The meta hashes of several tables in one round trip (empty for gone ones)."""
        pipe = self.redis.pipeline(transaction=False)
        for t in table_ids:
            pipe.hgetall(meta_key(t))
        rows = await pipe.execute()
        return [{k.decode(): v.decode() for k, v in r.items()} for r in rows]

    @bounded
    async def drop_from_index(self, status: str, table_ids: list[str]) -> None:
        """Forget expired tables in a lobby list."""
        if table_ids:
            await self.redis.zrem(index_key(status), *table_ids)

    @bounded
    async def hit(self, key: str, window: int) -> int:
        """Count one event in a fixed window of ``window`` seconds; returns the count."""
        bucket = f"rl:{key}:{int(time.time()) // window}"
        pipe = self.redis.pipeline(transaction=False)
        pipe.incr(bucket)
        pipe.expire(bucket, window)
        count, _ = await pipe.execute()
        return int(count)

    @bounded
    async def mark_bot_table(self, table_id: str, running: bool) -> None:
        """Add the table to (``running``) or remove it from the set of bot tables."""
        if running:
            await self.redis.sadd(BOT_TABLES, table_id)
        else:
            await self.redis.srem(BOT_TABLES, table_id)

    @bounded
    async def bot_tables(self, limit: int) -> list[str]:
        """Up to ``limit`` ids of running tables with bot seats (any order)."""
        raw = await self.redis.srandmember(BOT_TABLES, limit)
        return [r.decode() for r in raw or ()]

    # ---- deadlines and presence (server/deadlines.py, server/attendance.py) -------------

    @bounded
    async def lower_deadline(self, table_id: str, at_ms: int) -> None:
        """Make the table's score in the deadline index at most ``at_ms`` (``ZADD LT``):
        the index only ever wakes a process early, never late."""
        await self.redis.zadd(DEADLINES, {table_id: at_ms}, lt=True)

    @bounded
    async def set_deadline(self, table_id: str, at_ms: int | None) -> None:
        """Set the table's score in the deadline index (``None``: drop it)."""
        if at_ms is None:
            await self.redis.zrem(DEADLINES, table_id)
        else:
            await self.redis.zadd(DEADLINES, {table_id: at_ms})

    @bounded
    async def due(self, now_ms: int, limit: int = 64) -> list[str]:
        """Tables whose score in the deadline index is at most ``now_ms``."""
        raw = await self.redis.zrangebyscore(DEADLINES, "-inf", now_ms, start=0, num=limit)
        return [r.decode() for r in raw]

    @bounded
    async def stored_seq(self, table_id: str) -> int | None:
        """The table's stored seq (``None``: no table)."""
        raw = await self.redis.hget(meta_key(table_id), "seq")
        return None if raw is None else int(raw)

    @bounded
    async def presence(self, table_id: str, set_fields: dict[str, str], drop: list[str],
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
            pipe.spublish(channel(table_id), pack({"table": table_id, "from": 0,
                                                   "entries": [], "presence": True}))
        pipe.hgetall(key)
        raw = (await pipe.execute())[-1]
        return {k.decode(): v.decode() for k, v in raw.items()}


DEADLINES = "tables:deadlines"
"""Sorted set: table id → a time (ms) no later than its next move deadline (an index: the
truth is the clock in the table's stream)."""


def presence_key(table_id: str) -> str:
    """The table's presence hash (server/presence.py)."""
    return f"t:{{{table_id}}}:presence"
