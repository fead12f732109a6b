"""Redis layout of follows and blocks (docs/protocol.md §1, "Friends and blocking").

Each set lives in its owner's slot (``{u:<uid>}``); a block is written to the blocker's
``blocks`` and to the blocked account's ``blocked_by`` (two one-slot transactions, each
safe to repeat: the reverse set answers "who blocked me" at a join without reading every
seated account's set). Only this module knows these key names.

Follows and blocks: a follow is one script in the follower's slot that refuses when the
follower blocked the other account (in that slot: its ``blocks``) or already follows
``limit`` accounts. A follow of an account that blocked the follower is stored as any
other: nothing of a follow reaches the followed account, and answering it differently
would tell the follower it was blocked (docs/protocol.md §1, "Friends and blocking"). A
block removes the follow both ways, the blocked account's side first (in the same
transaction that writes its ``blocked_by``).
"""

from __future__ import annotations

import asyncio
from typing import Literal

import redis.asyncio as aioredis

FOLLOW_LUA = """
local follows, blocks = KEYS[1], KEYS[2]
local other, limit = ARGV[1], tonumber(ARGV[2])
if redis.call('SISMEMBER', blocks, other) == 1 then return 'blocks' end
if redis.call('SISMEMBER', follows, other) == 1 then return 'ok' end
if redis.call('SCARD', follows) >= limit then return 'full' end
redis.call('SADD', follows, other)
return 'ok'
"""

FollowResult = Literal["ok", "blocks", "full"]


def follows_key(uid: str) -> str:
    """Set of the uids the account follows."""
    return f"u:{{u:{uid}}}:follows"


def blocks_key(uid: str) -> str:
    """Set of the uids the account blocked."""
    return f"u:{{u:{uid}}}:blocks"


def blocked_by_key(uid: str) -> str:
    """Set of the uids of the accounts that blocked this one."""
    return f"u:{{u:{uid}}}:blocked_by"


def _s(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


class SocialStore:
    """Typed access to the follow and block sets of one Redis."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client
        self._follow = client.register_script(FOLLOW_LUA)

    async def follow(self, uid: str, other: str, limit: int) -> FollowResult:
        """Follow ``other`` unless ``uid`` blocked it or already follows ``limit``
        accounts: ``ok`` (following it now, or already; also when ``other`` blocked
        ``uid``), ``blocks`` (``uid`` blocked ``other``), ``full``."""
        got = await self._follow(keys=[follows_key(uid), blocks_key(uid)], args=[other, limit])
        result = _s(got)
        assert result in ("ok", "blocks", "full")
        return result  # type: ignore[return-value]

    async def unfollow(self, uid: str, other: str) -> None:
        """Stop following ``other``."""
        await self.redis.srem(follows_key(uid), other)

    async def follows(self, uid: str) -> set[str]:
        """The uids ``uid`` follows."""
        return {_s(m) for m in await self.redis.smembers(follows_key(uid))}

    async def block(self, uid: str, other: str, on: bool) -> None:
        """Block (``on``: also ends the follow both ways) or unblock ``other``; the reverse
        set follows."""
        if on:
            # The blocked side first: from here on its follow script refuses.
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.sadd(blocked_by_key(other), uid)
                pipe.srem(follows_key(other), uid)
                await pipe.execute()
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.sadd(blocks_key(uid), other)
                pipe.srem(follows_key(uid), other)
                await pipe.execute()
        else:
            await self.redis.srem(blocks_key(uid), other)
            await self.redis.srem(blocked_by_key(other), uid)

    async def blocks(self, uid: str) -> set[str]:
        """The uids ``uid`` blocked."""
        return {_s(m) for m in await self.redis.smembers(blocks_key(uid))}

    async def blocked_by(self, uid: str) -> set[str]:
        """The uids of the accounts that blocked ``uid``."""
        return {_s(m) for m in await self.redis.smembers(blocked_by_key(uid))}

    async def avoided(self, uid: str) -> set[str]:
        """The uids ``uid`` blocked or was blocked by: the accounts it is never paired
        with (one slot: one round trip)."""
        return {_s(m) for m in await self.redis.sunion([blocks_key(uid), blocked_by_key(uid)])}

    async def avoided_many(self, uids: list[str]) -> list[set[str]]:
        """``avoided`` of each of ``uids``, the calls at once (a Redis Cluster's pipeline
        refused the two-key ``SUNION``, each of one slot: every pairing pass with an
        account waiting failed there)."""
        return list(await asyncio.gather(*(self.avoided(uid) for uid in uids)))

    async def sides(self, uid: str, other: str) -> tuple[bool, bool]:
        """(``uid`` blocked ``other``, ``other`` blocked ``uid``): one round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sismember(blocks_key(uid), other)
            pipe.sismember(blocked_by_key(uid), other)
            a, b = await pipe.execute()
        return bool(a), bool(b)

    async def forget(self, uid: str) -> None:
        """Delete the account's sets (its deletion), and its entries in the reverse sets
        of the accounts it blocked and that blocked it."""
        for other in await self.blocks(uid):
            await self.redis.srem(blocked_by_key(other), uid)
        for other in await self.blocked_by(uid):
            await self.redis.srem(blocks_key(other), uid)
        await self.redis.delete(follows_key(uid), blocks_key(uid), blocked_by_key(uid))
