"""Redis layout of fair play at rated tables (docs/protocol.md §3, "Fair play"): how often
two accounts were rated against each other, and each account's games left (abandoned,
timed out).

Every command touches one key (or the keys of one account's slot ``{u:<uid>}``); each is
safe to repeat: a table is added to a set by its id, so a retried settle counts it once.
Only this module knows these key names.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from server.store.accounts import rated_key

PAIR_COUNT_LUA = """
local key, table_id = KEYS[1], ARGV[1]
local now, window, cap = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window - 1)
if redis.call('ZSCORE', key, table_id) then return 1 end
if redis.call('ZCOUNT', key, now - window, '+inf') >= cap then return 0 end
redis.call('ZADD', key, now, table_id)
redis.call('PEXPIRE', key, window)
return 1
"""

def pair_key(a: str, b: str) -> str:
    """Sorted set table id → time (ms, the service's clock) of the rated results that
    counted between the accounts ``a`` and ``b`` (either order) in the window."""
    first, second = sorted((a, b))
    return f"pair:{{p:{first}:{second}}}"


def verdict_key(table_id: str) -> str:
    """String: whether the table's rated result counted (``counted``, ``aborted``,
    ``capped``), in the table's slot."""
    return f"t:{{{table_id}}}:verdict"


def flagged_key(table_id: str) -> str:
    """String: set once the table's capped result was flagged to the moderators."""
    return f"t:{{{table_id}}}:flagged"


def left_key(uid: str, how: str) -> str:
    """Sorted set table id → time (ms) of the finished games the account left (``how``:
    ``abandoned`` or ``timed_out``), in the account's slot."""
    return f"u:{{u:{uid}}}:left:{how}"


LEFT_KINDS = ("abandoned", "timed_out")


def left_keys(uid: str) -> list[str]:
    """Every key ``left_key`` gives the account (deletion)."""
    return [left_key(uid, how) for how in LEFT_KINDS]


class FairPlayStore:
    """Typed access to the fair-play keys of one Redis."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client
        self._pair = client.register_script(PAIR_COUNT_LUA)

    async def count_pair(self, a: str, b: str, table_id: str, now_ms: int, window_ms: int,
                         cap: int) -> bool:
        """Count the rated result of ``table_id`` between ``a`` and ``b`` unless ``cap``
        results already counted in the ``window_ms`` before ``now_ms`` (one script on the
        pair's key); True when it counts (also when it already did)."""
        return bool(int(await self._pair(keys=[pair_key(a, b)],
                                         args=[table_id, now_ms, window_ms, cap])))

    async def record_left(self, uid: str, how: str, table_id: str, now_ms: int) -> None:
        """Note that the account left ``table_id`` (``how``: one of ``LEFT_KINDS``)."""
        await self.redis.zadd(left_key(uid, how), {table_id: now_ms})

    async def left_counts(self, uid: str) -> dict[str, int]:
        """How many finished games the account left, per ``LEFT_KINDS``."""
        pipe = self.redis.pipeline(transaction=False)
        for how in LEFT_KINDS:
            pipe.zcard(left_key(uid, how))
        return dict(zip(LEFT_KINDS, [int(n) for n in await pipe.execute()], strict=True))

    async def set_verdict(self, table_id: str, verdict: str) -> None:
        """Store whether the table's rated result counted."""
        await self.redis.set(verdict_key(table_id), verdict)

    async def verdict(self, table_id: str) -> str | None:
        """``counted``, ``aborted``, ``capped`` or ``None`` (not settled, or unrated)."""
        raw = await self.redis.get(verdict_key(table_id))
        return None if raw is None else raw.decode() if isinstance(raw, bytes) else str(raw)

    async def flag_once(self, table_id: str) -> bool:
        """True the first time only: the caller flags the table."""
        return bool(await self.redis.set(flagged_key(table_id), "1", nx=True))

    async def rated_note(self, uid: str, table_id: str) -> dict[str, Any] | None:
        """The rating change ``table_id`` applied to the account (``AccountStore``'s
        history entry: ``before``, ``after``…), or ``None``."""
        raw = await self.redis.hget(rated_key(uid), table_id)
        return None if raw is None else json.loads(raw)

    async def forget(self, uid: str) -> None:
        """Delete the account's record of games left (its deletion; one slot)."""
        await self.redis.delete(*left_keys(uid))
