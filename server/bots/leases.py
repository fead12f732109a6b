"""Which process drives a table's bots: a short lease in Redis per table.

Several processes may hold one table (sockets on each, a GET that loaded it, the start of
every process resuming the bot tables). Bot moves are idempotent (``bot:<seq>`` action
ids, the append script stores one), but every process that ran a table's bots used to
search every bot move: N processes, N times the CPU. Now a process runs a table's bots
only while it holds the table's lease, the key ``t:{<id>}:bots`` set to its owner id
with ``SET NX PX`` (``Store.lease_bots``, a script that also renews its own), renewed
every third of ``bot_lease`` and deleted (compare and delete) when its bots are done or
the process stops. A process that dies leaves the lease to expire; then a process that
holds the table, the next resume scan of any process (``BotSeats.resume``) or the next
load of the table takes it. The lease saves work, it does not guard correctness: two
processes that both believed they held it would store each bot move once all the same.
"""

from __future__ import annotations

import asyncio
import secrets

from server.store.streams import Store

RENEW_AT_ONCE = 32
"""Renewals in flight at once (each a short script call)."""


class BotLeases:
    """The bot leases this process holds (``held``: table ids) under its ``owner`` id;
    ``ms``: how long one lasts without renewal."""

    def __init__(self, store: Store, ms: int) -> None:
        self.store = store
        self.ms = ms
        self.owner = secrets.token_hex(8)
        self.held: set[str] = set()

    @property
    def period(self) -> float:
        """Seconds between renewals: a third of the lease."""
        return self.ms / 3000

    async def claim(self, table_id: str) -> bool:
        """Take (or renew) the table's lease; True when this process holds it now.
        Raises ``redis.RedisError``."""
        got = await self.store.lease_bots(table_id, self.owner, self.ms)
        if got:
            self.held.add(table_id)
        else:
            self.held.discard(table_id)
        return got

    async def renew(self) -> list[str]:
        """Renew every lease held; returns the tables whose lease another process holds
        now (this one's expired: its bots must stop). A renewal Redis did not answer
        counts as kept: at worst two processes drive a table until the next renewal."""
        ids = sorted(self.held)
        got: list[bool | BaseException] = []
        for start in range(0, len(ids), RENEW_AT_ONCE):  # not one connection per table
            got += await asyncio.gather(*(self.store.lease_bots(t, self.owner, self.ms)
                                          for t in ids[start:start + RENEW_AT_ONCE]),
                                        return_exceptions=True)
        lost = [t for t, ok in zip(ids, got, strict=True) if ok is False]
        self.held.difference_update(lost)
        return lost

    async def release(self, table_id: str) -> None:
        """Give the table's lease up (if still this process's). Raises
        ``redis.RedisError``."""
        self.held.discard(table_id)
        await self.store.release_bots(table_id, self.owner)
