"""Voiding a running game: one ``game_voided`` event (engine/seat_control.py) stored through
the table's normal append path, so the chain covers it, every process's sockets of the
table get it as a delta, the record shows it and nobody can move again.

A voided game ends with no result: no winners, no rating change, no end-of-game mail; its
meta and lobby row say ``status: ended`` and ``voided: <reason>``. Used by ``cardtable
void-rewound`` after a restore from an older backup (docs/operations.md, "Backup and
restore"); an administrator's route can call ``void_table`` as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.game import Message
from engine.seat_control import GameVoided
from server.errors import LobbyError
from server.store.streams import Store
from server.table.live import LiveTable

if TYPE_CHECKING:  # the hub the caller passes (no import at run time)
    from server.table.tables import Tables


async def void_table(tables: Tables, table_id: str, reason: str) -> int:
    """Void the running game of ``table_id`` for ``reason`` (a text people read); returns
    the seq after the ``game_voided`` event. Raises ``LobbyError``: 404 ``no_table``, 409
    ``not_started`` (an open table: nothing to void) or ``ended`` (a game that ended or
    was voided already; nothing is stored); ``Unavailable`` when Redis does not answer."""
    if not reason:
        raise ValueError("a void needs a reason")
    table = await tables.get(table_id)
    if table is None:
        raise LobbyError(404, "no_table", "no such table")

    def build(t: LiveTable) -> list[Message]:
        if t.seq == 0:
            raise LobbyError(409, "not_started", "the game has not started: nothing to void")
        if t.game_over():
            raise LobbyError(409, "ended", "the game has ended already")
        return [GameVoided(reason)]

    seq = await tables.actions.change_control(table, build)
    # The meta and lobby row before the answer (the table's own end runs in the background).
    await tables.ending.mark_voided(table)
    return seq


async def running_tables(store: Store, started_by: float | None = None) -> list[str]:
    """The ids of every running table (a ``SCAN`` of the metas: the truth, not the lobby's
    read model), sorted; with ``started_by`` (seconds since the epoch) only those started
    at or before that time."""
    out = []
    for table_id in await store.table_ids():
        fields = await store.load_meta(table_id)
        if fields.get("status") != "running":
            continue
        try:
            started = float(fields.get("started_at") or 0)
        except ValueError:
            continue  # no table's meta: nothing the service could serve either
        if started_by is None or started <= started_by:
            out.append(table_id)
    return out
