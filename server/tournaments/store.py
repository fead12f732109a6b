"""Where tournaments live in Redis: each one's state under one key, changed only by a
compare-and-set on its version, and the indexes that list them.

| key | type | holds |
|---|---|---|
| ``tourn:{<id>}`` | hash | ``v`` (version, a counter) and ``doc`` (``Tournament.to_json``) |
| ``tourns:{tourns}:all`` | sorted set | every tournament id by creation time (ms) |
| ``tourns:{tourns}:active`` | sorted set | scheduled and running ids (what the loops scan) |
| ``tourns:{tourns}:of:<uid>`` | sorted set | the tournaments an account created or joined |

A state key is one slot; the indexes share the slot ``{tourns}``. An index is written
around the state, not with it (other slots): an id is put in ``active`` before its state
is first stored and taken out after it is stored finished, so a loop may meet a finished
id (it drops it), or an id whose state is not stored yet (it drops it only a minute after
its creation: ``GRACE_MS``), but never misses a live one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from server.tournaments.model import Tournament

CAS_LUA = """
local v = redis.call('HGET', KEYS[1], 'v')
if (v or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
return 1
"""

INDEX = "tourns:{tourns}"
GRACE_MS = 60_000
"""How long an active id may lack its state before a loop drops it (the creation's two
writes are a round trip apart; a process killed between them leaves the id alone)."""


def state_key(tid: str) -> str:
    return f"tourn:{{{tid}}}"


def of_key(uid: str) -> str:
    return f"{INDEX}:of:{uid}"


class Stale(Exception):
    """The state changed between the read and the write (another process won)."""


class TournamentStore:
    """Tournaments on a ``redis.asyncio`` client (one node or a cluster). Every call
    raises ``redis.RedisError`` when Redis fails."""

    def __init__(self, client: Any) -> None:
        self.redis = client
        self._cas = client.register_script(CAS_LUA)

    async def load(self, tid: str) -> tuple[Tournament, str] | None:
        """The state and its version, or ``None`` for an unknown id."""
        got = await self.redis.hmget(state_key(tid), ["v", "doc"])
        if got[0] is None or got[1] is None:
            return None
        return Tournament.from_json(json.loads(got[1])), got[0].decode()

    async def save(self, t: Tournament, version: str) -> str:
        """Store ``t`` if its version is still ``version`` ('' : a new one); returns the
        new version. Raises ``Stale`` when another write came first."""
        new = str(int(version or "0") + 1)
        doc = json.dumps(t.to_json(), separators=(",", ":"))
        if not int(await self._cas(keys=[state_key(t.id)], args=[version, new, doc])):
            raise Stale(t.id)
        return new

    async def create(self, t: Tournament) -> str:
        """Store a new tournament and list it (``active`` first: see the module
        docstring)."""
        await self.redis.zadd(f"{INDEX}:active", {t.id: t.created_at})
        version = await self.save(t, "")
        await self.redis.zadd(f"{INDEX}:all", {t.id: t.created_at})
        await self.redis.zadd(of_key(t.creator), {t.id: t.created_at})
        return version

    async def change(self, tid: str, fn: Callable[[Tournament], Any], tries: int = 8
                     ) -> tuple[Tournament, Any] | None:
        """Apply ``fn(state)`` (it edits the state and returns what the caller wants; a
        falsy answer means it changed nothing, and nothing is written; it may raise to
        change nothing) under the version check, retried on ``Stale``. Returns the state
        and ``fn``'s answer; ``None`` for an unknown id; raises ``Stale`` when every try
        lost."""
        for _ in range(tries):
            got = await self.load(tid)
            if got is None:
                return None
            t, version = got
            answer = fn(t)
            if not answer:
                return t, answer
            try:
                await self.save(t, version)
            except Stale:
                continue
            await self.reindex(t)
            return t, answer
        raise Stale(tid)

    async def reindex(self, t: Tournament) -> None:
        """The indexes as ``t`` stands: its players listed under their accounts, and off
        the active list once it is over."""
        pipe = self.redis.pipeline(transaction=False)
        for e in t.players:
            pipe.zadd(of_key(e.uid), {t.id: t.created_at})
        if t.status not in ("scheduled", "running"):
            pipe.zrem(f"{INDEX}:active", t.id)
        await pipe.execute()

    async def active(self, limit: int = 1000) -> list[tuple[str, int]]:
        """``(id, created_at ms)`` of the scheduled and running tournaments (and maybe a
        few just over, or one whose state is being stored this instant)."""
        got = await self.redis.zrange(f"{INDEX}:active", 0, limit - 1, withscores=True)
        return [(r.decode(), int(score)) for r, score in got]

    async def forget_active(self, tid: str) -> None:
        await self.redis.zrem(f"{INDEX}:active", tid)

    async def newest(self, limit: int) -> list[str]:
        return [r.decode() for r in await self.redis.zrevrange(f"{INDEX}:all", 0, limit - 1)]

    async def of_account(self, uid: str, limit: int) -> list[str]:
        return [r.decode() for r in await self.redis.zrevrange(of_key(uid), 0, limit - 1)]

    async def many(self, ids: list[str]) -> list[Tournament]:
        """The states of ``ids`` that exist, in that order (one read per id: each its
        own slot)."""
        out = []
        for tid in ids:
            got = await self.load(tid)
            if got is not None:
                out.append(got[0])
        return out
