"""Redis layout of administration (docs/protocol.md §3, "Administration"): an account's
roles and ban (fields of its hash, ``server.store.accounts.account_key``), the search of
accounts by name, clearing login lockouts, and the durable audit stream.

- ``roles``: comma-separated roles of the account hash (``admin``, ``moderator``).
- ``banned``: the reason of a ban (non-empty while banned), ``banned_at``, ``banned_by``.
- ``audit`` (``AUDIT_KEY``): a stream, one entry per administrative action, capped at about
  ``AUDIT_MAX`` entries (``XADD MAXLEN ~``); fields ``actor``, ``action``, ``target``,
  ``detail`` (JSON), ``at`` (seconds).
"""

from __future__ import annotations

import json
import time
from typing import Any

from server.store.accounts import account_key, failures_key, lookalike_key, name_key
from server.store.streams import chat_key, meta_key

DROP_OPEN_LUA = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return 0 end
redis.call('DEL', unpack(KEYS))
return 1
"""

AUDIT_KEY = "audit:{audit}"
AUDIT_MAX = 100_000
_NAME_PREFIX = name_key("")  # "name:{n:}"


def _s(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class AdminStore:
    """Typed access to the administration keys of one Redis client."""

    def __init__(self, client: Any) -> None:
        self.redis = client
        self._drop_open = client.register_script(DROP_OPEN_LUA)

    async def drop_open(self, table_id: str, chat_channels: tuple[str, ...]) -> bool:
        """Delete an open table's meta and chat (one script in the table's slot); False
        when the table is not open (started, or gone)."""
        keys = [meta_key(table_id), *(chat_key(table_id, c) for c in chat_channels)]
        return bool(int(await self._drop_open(keys=keys)))

    async def find(self, query: str, limit: int) -> list[tuple[str, str]]:
        """(lowercased name, uid) of up to ``limit`` accounts whose name contains
        ``query`` (any case; ``""``: all), sorted by name. Scans the name keys (on a
        cluster: the node of the client's connection)."""
        found: dict[str, str] = {}
        pattern = _NAME_PREFIX[:-1] + "*"  # "name:{n:*"
        names = []
        async for key in self.redis.scan_iter(match=pattern, count=1000):
            name = _s(key)[len(_NAME_PREFIX) - 1:-1]
            if query.lower() in name:
                names.append(name)
        names.sort()
        pipe = self.redis.pipeline(transaction=False)
        for name in names[:limit]:
            pipe.get(name_key(name))
        for name, uid in zip(names[:limit], await pipe.execute(), strict=True):
            if uid is not None:
                found[name] = _s(uid)
        return list(found.items())

    async def set_roles(self, uid: str, roles: list[str]) -> None:
        """Store the account's roles (none: the field goes)."""
        if roles:
            await self.redis.hset(account_key(uid), "roles", ",".join(sorted(roles)))
        else:
            await self.redis.hdel(account_key(uid), "roles")

    async def set_ban(self, uid: str, reason: str, by: str) -> None:
        """Ban the account (``reason`` non-empty)."""
        await self.redis.hset(account_key(uid), mapping={
            "banned": reason, "banned_at": repr(time.time()), "banned_by": by})

    async def lift_ban(self, uid: str) -> None:
        """Lift the account's ban."""
        await self.redis.hdel(account_key(uid), "banned", "banned_at", "banned_by")

    async def rename(self, uid: str, old: str, new: str,
                     skels: tuple[str, str] | None = None) -> str:
        """Give the account the name ``new`` (free) instead of ``old``; with ``skels``
        (the old and the new name's skeletons) the new look-alike key is claimed first and
        the old one released after. Returns ``""``, ``"lookalike"`` (another account's
        name looks like ``new``) or ``"taken"``. A rename that changes only the case keeps
        the name key."""
        if old.lower() != new.lower() and await self.redis.exists(name_key(new)):
            return "taken"  # the very name (any case): say so rather than "looks like"
        old_skel, new_skel = skels if skels is not None else ("", "")
        claimed = False
        if old_skel != new_skel:
            key = lookalike_key(new_skel)
            claimed = bool(await self.redis.set(key, uid, nx=True))
            if not claimed and _s(await self.redis.get(key) or b"") != uid:
                return "lookalike"
        if old.lower() != new.lower() and not await self.redis.set(name_key(new), uid,
                                                                   nx=True):
            if claimed:
                await self.redis.delete(lookalike_key(new_skel))
            return "taken"
        await self.redis.hset(account_key(uid), "username", new)
        if old.lower() != new.lower() and _s(await self.redis.get(name_key(old)) or b"") == uid:
            await self.redis.delete(name_key(old))
        if claimed and _s(await self.redis.get(lookalike_key(old_skel)) or b"") == uid:
            await self.redis.delete(lookalike_key(old_skel))
        return ""

    async def clear_lockouts(self, name: str | None, address: str | None) -> int:
        """Delete the failed-login counters of ``name`` (from every address) and/or of
        ``address``; returns how many counters went."""
        keys: list[str] = []
        if name:
            prefix = failures_key(f"n:{name.lower()}:")[:-1]
            keys += [_s(k) async for k in self.redis.scan_iter(match=prefix + "*", count=1000)]
        if address:
            keys.append(failures_key(f"ip:{address}"))
        gone = 0
        for key in keys:  # one key per command: each counter has its own slot
            gone += int(await self.redis.delete(key))
        return gone

    async def audit_add(self, entry: dict[str, Any]) -> str:
        """Append one audit entry; returns its stream id."""
        fields: dict[Any, Any] = {k: v if isinstance(v, str) else json.dumps(v)
                                  for k, v in entry.items()}
        return _s(await self.redis.xadd(AUDIT_KEY, fields, maxlen=AUDIT_MAX,
                                        approximate=True))

    async def audit(self, count: int, before: str | None = None) -> list[dict[str, Any]]:
        """The newest ``count`` audit entries (older than stream id ``before``), newest
        first, each with its ``id``."""
        top = f"({before}" if before else "+"
        rows = await self.redis.xrevrange(AUDIT_KEY, max=top, min="-", count=count)
        out = []
        for rid, fields in rows or []:
            row: dict[str, Any] = {"id": _s(rid)}
            for k, v in (fields or {}).items():
                key, value = _s(k), _s(v)
                row[key] = json.loads(value) if key == "detail" else value
            row["at"] = float(row.get("at", 0))
            out.append(row)
        return out
