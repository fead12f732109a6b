"""Retention of finished games: kept in Redis ``keep_finished_days`` after their end, then
pruned (docs/operations.md, "Retention").

``cardtable prune`` finds the games that ended before the cut-off (``finished_before``),
writes each one's record where the operator chose (the record ``GET
/api/tables/{id}/record`` serves, with its ``seed``, ``deck`` and chain head, so it
verifies offline) and then deletes every key of the table (``prune_table``). A pruned game
is unknown to the service afterwards: its summary, record, replay and socket answer as
for an id that never existed (404 ``no_table``, socket close 4004); the lobby lists and the
players' game lists no longer show it. A running or open table is never pruned.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from server.errors import LobbyError
from server.store.deadlines import DEADLINES
from server.store.fairplay import flagged_key, verdict_key
from server.store.presence import presence_key
from server.store.streams import (
    BOT_TABLES,
    Store,
    acts_key,
    archive_key,
    bot_lease_key,
    events_key,
    meta_key,
)

if TYPE_CHECKING:  # the hub the caller passes (no import at run time)
    from server.table.tables import Tables

DAY = 86400.0


async def finished_before(store: Store, cutoff: float) -> list[str]:
    """The ids of the games that ended at or before ``cutoff`` (seconds since the epoch;
    the meta's ``ended_at``), sorted (a ``SCAN`` of the metas)."""
    out = []
    for table_id in await store.table_ids():
        fields = await store.load_meta(table_id)
        if fields.get("status") != "ended":
            continue
        try:
            ended = float(fields.get("ended_at") or "inf")
        except ValueError:
            continue
        if ended <= cutoff:
            out.append(table_id)
    return out


async def delete_table(store: Store, table_id: str) -> int:
    """Delete every key of a table (meta, events, action ids, archive, presence, chat, bot
    lease: one slot) and its rows in the deadline, bot and lobby indexes. Returns the
    table's keys deleted."""
    keys = [meta_key(table_id), events_key(table_id), acts_key(table_id),
            archive_key(table_id), bot_lease_key(table_id), presence_key(table_id),
            *store.chat_keys(table_id, ("players", "spectators")),
            verdict_key(table_id), flagged_key(table_id)]
    deleted = int(await store.redis.delete(*keys))
    await store.redis.zrem(DEADLINES, table_id)
    await store.redis.srem(BOT_TABLES, table_id)
    await store.lobby.forget(table_id)
    return deleted


async def prune_table(tables: Tables, table_id: str,
                      export: Callable[[str, dict[str, Any]], Awaitable[None]] | None
                      ) -> bool:
    """Prune one ended game: ``export(table_id, record)`` first (when given; a failure
    raises and deletes nothing), then every key. False when the table is gone already.
    Raises ``LobbyError`` 409 ``not_ended`` for a game that has not ended."""
    table = await tables.get(table_id)
    if table is None:
        return False
    if table.meta.status != "ended":
        raise LobbyError(409, "not_ended", "only an ended game is pruned")
    if export is not None:
        await export(table_id, await tables.ending.record(table))
    await delete_table(tables.store, table_id)
    tables.cache.pop(table_id, None)
    return True
