"""Redis layout of moderation (docs/protocol.md, "Moderation"): the queue of reports
and fair-play flags, each reporter's report window, and an account's mute and
suspension (fields of its hash, ``server.store.accounts.account_key``).

Every queue key carries the hash tag ``{mod}``, so the scripts that file and resolve a
report touch one slot (Redis Cluster too):

- ``mod:{mod}:open``: sorted set report id → when it was filed (ms, the service's clock),
  the open reports, oldest first.
- ``mod:{mod}:r:<id>``: string, the report as JSON (``server.admin.moderation``); a
  resolved one is kept ``RESOLVED_KEEP`` seconds.
- ``mod:{mod}:pair``: hash ``<reporter uid>:<target uid>`` → the open report's id (one
  open report per reporter and target).
- ``mod:{mod}:by:<uid>``: sorted set report id → ms, the reports an account filed in the
  current window (the flood limit).

The account hash's ``muted_until`` and ``suspended_until`` (seconds, the service's
clock) end by themselves: every check compares them with now.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from server.store.accounts import account_key
from server.store.streams import channel, pack

OPEN_KEY = "mod:{mod}:open"
PAIR_KEY = "mod:{mod}:pair"
RESOLVED_KEEP = 90 * 86_400
"""Seconds a resolved report is kept (the audit stream keeps the action for good)."""

FILE_LUA = """
-- KEYS: open, pair, by, report; ARGV: pair field, id, json, now ms, window ms, max
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 'open' end
local now, window = tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'rate' end
redis.call('ZADD', KEYS[3], now, ARGV[2])
redis.call('PEXPIRE', KEYS[3], window)
redis.call('SET', KEYS[4], ARGV[3])
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 'ok'
"""

RESOLVED_KEY = "mod:{mod}:resolved"
"""The resolved reports still kept, scored by when they expire (s): a deleted account's
name is taken out of them too (``rewrite``)."""

RESOLVE_LUA = """
-- KEYS: open, pair, report, resolved; ARGV: id, resolved json, pair field, keep s, now s
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('SET', KEYS[3], ARGV[2], 'EX', tonumber(ARGV[4]))
if redis.call('HGET', KEYS[2], ARGV[3]) == ARGV[1] then redis.call('HDEL', KEYS[2], ARGV[3]) end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', tonumber(ARGV[5]))
redis.call('ZADD', KEYS[4], tonumber(ARGV[5]) + tonumber(ARGV[4]), ARGV[1])
return 1
"""


def report_key(report_id: str) -> str:
    """The report's JSON."""
    return f"mod:{{mod}}:r:{report_id}"


def by_key(uid: str) -> str:
    """The reports ``uid`` filed in the current window."""
    return f"mod:{{mod}}:by:{uid}"


def _s(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class ModerationStore:
    """Typed access to the moderation keys of one Redis client."""

    def __init__(self, client: Any) -> None:
        self.redis = client
        self._file = client.register_script(FILE_LUA)
        self._resolve = client.register_script(RESOLVE_LUA)

    async def file(self, report: dict[str, Any], pair: str, reporter: str, now_ms: int,
                   window_ms: int, most: int) -> str:
        """Queue ``report`` (its ``id``) unless ``pair`` has an open report already
        (``"open"``) or ``reporter`` filed ``most`` reports in the last ``window_ms``
        (``"rate"``); ``"ok"`` when filed. One script."""
        keys = [OPEN_KEY, PAIR_KEY, by_key(reporter), report_key(report["id"])]
        done = await self._file(keys=keys, args=[pair, report["id"], json.dumps(report),
                                                 now_ms, window_ms, most])
        return _s(done)

    async def open_reports(self, limit: int) -> list[dict[str, Any]]:
        """The oldest ``limit`` open reports, oldest first."""
        ids = [_s(i) for i in await self.redis.zrange(OPEN_KEY, 0, limit - 1)]
        if not ids:
            return []
        raw = await self.redis.mget([report_key(i) for i in ids])
        return [json.loads(r) for r in raw if r is not None]

    async def rewrite(self, change: Callable[[dict[str, Any]], dict[str, Any] | None]
                      ) -> int:
        """Store ``change(report)`` for every report, open or resolved and kept, that it
        returns one for (``None``: unchanged), each only while it still exists (``SET
        XX``, its expiry kept); returns how many were written."""
        ids = [_s(i) for i in await self.redis.zrange(OPEN_KEY, 0, -1)]
        ids += [_s(i) for i in await self.redis.zrange(RESOLVED_KEY, 0, -1)]
        written = 0
        for i in ids:
            raw = await self.redis.get(report_key(i))
            new = None if raw is None else change(json.loads(raw))
            if new is not None:
                written += bool(await self.redis.set(report_key(i), json.dumps(new), xx=True,
                                                     keepttl=True))
        return written

    async def report(self, report_id: str) -> dict[str, Any] | None:
        """One report (open, or resolved within ``RESOLVED_KEEP``), or ``None``."""
        raw = await self.redis.get(report_key(report_id))
        return None if raw is None else json.loads(raw)

    async def resolve(self, report: dict[str, Any], pair: str, now: float) -> bool:
        """Store ``report`` (with its resolution) for ``RESOLVED_KEEP`` s from ``now``
        (epoch s) and take it off the queue; False when it was not open (resolved
        meanwhile by another moderator)."""
        keys = [OPEN_KEY, PAIR_KEY, report_key(report["id"]), RESOLVED_KEY]
        return bool(int(await self._resolve(keys=keys, args=[
            report["id"], json.dumps(report), pair, RESOLVED_KEEP, int(now)])))

    async def sanction(self, uid: str, field: str, until: float) -> None:
        """Set the account's ``muted_until`` or ``suspended_until`` (seconds); 0 lifts it."""
        if until > 0:
            await self.redis.hset(account_key(uid), field, repr(until))
        else:
            await self.redis.hdel(account_key(uid), field)

    async def close_seats(self, table_id: str, seats: list[int]) -> None:
        """Tell every process's sockets of the table that ``seats`` belong to a suspended
        account: ``{"table", "suspended": {"seats"}}`` on the table's channel (each
        process closes its sockets of those seats)."""
        await self.redis.spublish(channel(table_id),
                                  pack({"table": table_id, "suspended": {"seats": seats}}))
