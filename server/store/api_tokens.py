"""Redis layout of personal API tokens (docs/protocol.md §1, "Bot accounts and API
tokens"; docs/bot-api.md).

A token is stored only as the SHA-256 of its text (``secret_hash``): a copy of Redis
holds nothing that works as a credential. Two keys per token, in two slots (so each
command touches one slot, as on Redis Cluster):

- ``at:{<hash>}``: hash ``uid``, ``id``, ``name``, ``scope``, ``created_at`` (s),
  ``last_used`` (s, ``0`` until used): what a request's bearer is looked up by;
- ``u:{u:<uid>}:apitokens``: hash token id → the token's hash: the account's list;
- ``u:{u:<uid>}:apitokens:made``: the creations of the hour that began with the first;
- ``u:{u:<uid>}:apitokens:places:<id>``: set of ``<table id>:<hash>``, where the token
  was given a seat or owner token (``<hash>``: that token's SHA-256) or opened a socket
  (``<hash>`` empty): what its revocation must withdraw (server/http/api_tokens.py).

Creation writes the token's key before the list entry and revocation deletes the
token's key first: a crash between the two leaves at worst a list entry whose token no
longer works (listed as nothing: ``tokens`` skips it), never a working token the owner
cannot see or revoke. Only this module knows these key names.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from server.store.accounts import secret_hash

__all__ = ["TokenStore", "secret_hash"]


def token_key(hashed: str) -> str:
    """The token's own hash, found by the SHA-256 of the bearer's text."""
    return f"at:{{{hashed}}}"


def list_key(uid: str) -> str:
    """The account's tokens: id → SHA-256 of the token (the account's slot)."""
    return f"u:{{u:{uid}}}:apitokens"


def made_key(uid: str) -> str:
    """Tokens the account created in the current window (a counter that expires)."""
    return f"u:{{u:{uid}}}:apitokens:made"


def places_key(uid: str, token_id: str) -> str:
    """Where the token was given seat tokens or opened sockets (the account's slot)."""
    return f"u:{{u:{uid}}}:apitokens:places:{token_id}"


def _s(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class TokenStore:
    """Typed access to the API token keys of one Redis (the ``Store``'s client)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client

    async def create(self, uid: str, token_id: str, hashed: str, row: dict[str, str]) -> None:
        """Store a new token (``row``: ``name``, ``scope``, ``created_at``)."""
        fields: dict[Any, Any] = dict(row)
        fields.update(uid=uid, id=token_id, last_used="0")
        await self.redis.hset(token_key(hashed), mapping=fields)
        await self.redis.hset(list_key(uid), token_id, hashed)

    async def created(self, uid: str, window: int) -> int:
        """Count one creation by the account; returns the count in its window, which
        opens with the first creation and is not extended by later ones (``EXPIRE NX``,
        as the failed-login counters: a calendar bucket would let a burst across its edge
        count twice the limit)."""
        key = made_key(uid)
        pipe = self.redis.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, window, nx=True)
        count, _ = await pipe.execute()
        return int(count)

    async def count(self, uid: str) -> int:
        """How many tokens the account has."""
        return int(await self.redis.hlen(list_key(uid)))

    async def lookup(self, hashed: str) -> dict[str, str] | None:
        """The row of the token whose SHA-256 is ``hashed``, or ``None`` (unknown or
        revoked)."""
        raw = await self.redis.hgetall(token_key(hashed))
        row = {_s(k): _s(v) for k, v in raw.items()}
        return row if row.get("uid") else None

    async def tokens(self, uid: str) -> list[dict[str, str]]:
        """Every live token row of the account (no token text: there is none stored)."""
        ids = {_s(k): _s(v) for k, v in (await self.redis.hgetall(list_key(uid))).items()}
        rows = []
        for hashed in ids.values():
            row = await self.lookup(hashed)
            if row is not None and row["uid"] == uid:
                rows.append(row)
        return rows

    async def placed(self, uid: str, token_id: str, table_id: str, hashes: list[str]) -> None:
        """Note that the token was given the tokens of SHA-256 ``hashes`` at ``table_id``
        (none: it opened a socket there)."""
        await self.redis.sadd(places_key(uid, token_id),
                              *(f"{table_id}:{h}" for h in hashes or [""]))

    async def revoke(self, uid: str, token_id: str) -> dict[str, set[str]] | None:
        """Revoke the account's token ``token_id``: where it was used (table id → the
        hashes of the tokens it was given there, possibly none), or ``None`` when the
        account has no token of that id."""
        hashed = await self.redis.hget(list_key(uid), token_id)
        if hashed is None:
            return None
        await self.redis.delete(token_key(_s(hashed)))  # first: it stops working now
        # Read after the deletion: only a use already past its lookup can note a place
        # this read misses.
        members = await self.redis.smembers(places_key(uid, token_id))
        await self.redis.hdel(list_key(uid), token_id)
        places: dict[str, set[str]] = {}
        for member in map(_s, members):
            table_id, _, h = member.partition(":")
            places.setdefault(table_id, set()).update([h] if h else [])
        return places

    async def forget_places(self, uid: str, token_id: str) -> None:
        """Drop a revoked token's places (once its seats are withdrawn)."""
        await self.redis.delete(places_key(uid, token_id))

    async def touch(self, hashed: str, at: float) -> None:
        """Note a use of the token (``last_used``; only while the token exists)."""
        # Only while it exists: a revocation racing this leaves at most a row without a
        # ``uid``, which ``lookup`` treats as unknown.
        if await self.redis.exists(token_key(hashed)):
            await self.redis.hset(token_key(hashed), "last_used", repr(at))

    async def revoke_all(self, uid: str) -> int:
        """Revoke every token of the account (its deletion); returns how many."""
        ids = {_s(k): _s(v) for k, v in (await self.redis.hgetall(list_key(uid))).items()}
        for token_id, hashed in ids.items():
            await self.redis.delete(token_key(hashed), places_key(uid, token_id))
        await self.redis.delete(list_key(uid), made_key(uid))
        return len(ids)
