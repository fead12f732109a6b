"""Redis layout of follows and blocks (docs/protocol.md §1, "Friends and blocking").

Each set lives in its owner's slot (``{u:<uid>}``); a block is written to the blocker's
``blocks`` and to the blocked account's ``blocked_by`` (two one-slot commands, each safe
to repeat: the reverse set answers "who blocked me" at a join without reading every
seated account's set). Only this module knows these key names.
"""

from __future__ import annotations

import redis.asyncio as aioredis


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

    async def follow(self, uid: str, other: str, on: bool) -> None:
        """Follow (``on``) or stop following ``other``."""
        if on:
            await self.redis.sadd(follows_key(uid), other)
        else:
            await self.redis.srem(follows_key(uid), other)

    async def follows(self, uid: str) -> set[str]:
        """The uids ``uid`` follows."""
        return {_s(m) for m in await self.redis.smembers(follows_key(uid))}

    async def block(self, uid: str, other: str, on: bool) -> None:
        """Block (``on``) or unblock ``other``; the reverse set follows."""
        if on:
            await self.redis.sadd(blocks_key(uid), other)
            await self.redis.sadd(blocked_by_key(other), uid)
        else:
            await self.redis.srem(blocks_key(uid), other)
            await self.redis.srem(blocked_by_key(other), uid)

    async def blocks(self, uid: str) -> set[str]:
        """The uids ``uid`` blocked."""
        return {_s(m) for m in await self.redis.smembers(blocks_key(uid))}

    async def blocked_by(self, uid: str) -> set[str]:
        """The uids of the accounts that blocked ``uid``."""
        return {_s(m) for m in await self.redis.smembers(blocked_by_key(uid))}

    async def forget(self, uid: str) -> None:
        """Delete the account's sets (its deletion), and its entries in the reverse sets
        of the accounts it blocked and that blocked it."""
        for other in await self.blocks(uid):
            await self.redis.srem(blocked_by_key(other), uid)
        for other in await self.blocked_by(uid):
            await self.redis.srem(blocks_key(other), uid)
        await self.redis.delete(follows_key(uid), blocks_key(uid), blocked_by_key(uid))
