"""Invitations by name in Redis (docs/protocol.md §1, "Invitations by name").

Both keys live in the invitee's slot (``{u:<uid>}``), so each change is one transaction:

- ``u:{u:<uid>}:invites`` hash: table id → JSON ``{"table", "game", "name", "by",
  "at", "expires"}`` (``by``: the inviter's username; ``at``, ``expires``: ms). At most
  ``MAX_PENDING`` entries: the oldest go first. The key expires with its newest entry.
- ``u:{u:<uid>}:inbox_v`` counter: moved by every new invitation and every end of a
  session of the account (``bump``), so that a process holding the account's ``/ws/me``
  socket sees the change with one ``GET`` per account; deleted with the account.

An invitation is no credential of its own: it seats only a session of the invitee's
account (``POST /api/tables/{id}/join`` with ``"invited": true``), so nothing in it is
secret.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

MAX_PENDING = 50
"""Pending invitations kept per account."""

ADD_LUA = """
local invites, version = KEYS[1], KEYS[2]
local table_id, body, at, ttl, max = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
redis.call('HSET', invites, table_id, body)
local n = redis.call('HLEN', invites)
if n > max then
  -- The oldest go (and those already expired): bounded whatever the inviters do.
  local all = redis.call('HGETALL', invites)
  local rows = {}
  for i = 1, #all, 2 do
    local ok, v = pcall(cjson.decode, all[i + 1])
    local when = (ok and v['at']) or 0
    table.insert(rows, {all[i], when})
  end
  table.sort(rows, function(a, b) return a[2] < b[2] end)
  for i = 1, n - max do redis.call('HDEL', invites, rows[i][1]) end
end
redis.call('EXPIRE', invites, ttl)
local v = redis.call('INCR', version)
redis.call('EXPIRE', version, ttl)
return v
"""


def invites_key(uid: str) -> str:
    return f"u:{{u:{uid}}}:invites"


def version_key(uid: str) -> str:
    return f"u:{{u:{uid}}}:inbox_v"


def _s(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


class InvitationStore:
    """The invitation scripts and reads on one Redis or cluster (raises ``RedisError``)."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client
        self._add = client.register_script(ADD_LUA)

    async def add(self, uid: str, invitation: dict[str, Any], ttl: int) -> int:
        """Store ``invitation`` (its ``table`` the field) for ``uid``, replacing an earlier
        one to the same table; returns the inbox's new version."""
        return int(await self._add(
            keys=[invites_key(uid), version_key(uid)],
            args=[invitation["table"], json.dumps(invitation, separators=(",", ":")),
                  invitation["at"], ttl, MAX_PENDING]))

    async def pending(self, uid: str, now: int) -> list[dict[str, Any]]:
        """``uid``'s invitations not expired at ``now`` (ms), oldest first."""
        raw = await self.redis.hgetall(invites_key(uid))
        out = []
        for value in raw.values():
            try:
                inv = json.loads(_s(value))
            except ValueError:
                continue
            if isinstance(inv, dict) and int(inv.get("expires", 0)) > now:
                out.append(inv)
        out.sort(key=lambda i: (int(i.get("at", 0)), str(i.get("table"))))
        return out

    async def get(self, uid: str, table_id: str, now: int) -> dict[str, Any] | None:
        """``uid``'s invitation to ``table_id`` if it has one not expired at ``now``."""
        raw = await self.redis.hget(invites_key(uid), table_id)
        if raw is None:
            return None
        inv = json.loads(_s(raw))
        return inv if int(inv.get("expires", 0)) > now else None

    async def drop(self, uid: str, table_id: str) -> None:
        """The invitation was used (or is void); the inbox's version moves."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hdel(invites_key(uid), table_id)
            pipe.incr(version_key(uid))
            await pipe.execute()

    async def bump(self, uid: str, ttl: int) -> None:
        """The account's sessions changed (a logout, a password change, a ban, a
        suspension): the inbox's version moves, so every process holding a ``/ws/me``
        socket of the account checks its session at its next look; the counter is kept
        ``ttl`` seconds (a session's lifetime: no socket outlives it)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(version_key(uid))
            pipe.expire(version_key(uid), ttl)
            await pipe.execute()

    async def ensure(self, uid: str, ttl: int) -> None:
        """Give the account's inbox a version (1) unless it has one, kept ``ttl`` seconds:
        a process holding a ``/ws/me`` socket of it then sees the version go when the
        account is deleted (``forget``)."""
        await self.redis.set(version_key(uid), 1, nx=True, ex=ttl)

    async def versions(self, uids: list[str]) -> list[int]:
        """The inbox version of each account (0: none yet), one round trip per slot."""
        if not uids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for uid in uids:
            pipe.get(version_key(uid))
        return [int(v or 0) for v in await pipe.execute()]

    async def forget(self, uid: str) -> None:
        """Delete the account's invitations (its deletion)."""
        await self.redis.delete(invites_key(uid), version_key(uid))
