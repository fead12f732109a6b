"""What deleting or renaming an account does to the tables it sat at (docs/protocol.md §1,
"Deleting an account"; docs/operations.md, "Administration"): each seat it held (also one
a bot plays now, and a seat kept for it at a rematch) gets the new name everywhere the
table stored the name (the seats, the game's first event or archive, its chat messages)
and loses its name salt, so the record keeps only the old name's commitment, which the
chain links (docs/fairness.md §5, "Names"). Used by ``DELETE /api/me`` and the
administration (server/admin/ops.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from typing import TYPE_CHECKING

from server.accounts import names, token_seats
from server.accounts.accounts import DELETED_NAME, Account
from server.errors import LobbyError, confirmed
from server.play import chat
from server.table.meta import DELETED, TableMeta

if TYPE_CHECKING:  # the service type only: server.app imports this module's users
    from server.app import Service


async def rename_seats(svc: Service, uid: str, name: str, account_after: str) -> None:
    """Name every seat ``uid`` held ``name``, held from now on by ``account_after``
    (``uid`` for a rename, ``DELETED`` for a deletion). Raises ``Unavailable``."""
    queue = list(await confirmed(svc.account_store.game_ids(uid, 10_000)))
    seen: set[str] = set()
    while queue:
        table_id = queue.pop()
        if table_id in seen:
            continue
        seen.add(table_id)
        fields = (await confirmed(svc.account_store.table_metas([table_id])))[0]
        if not fields:
            continue  # an open table that expired
        meta = TableMeta.from_fields(table_id, fields)
        if meta.rematch:
            queue.append(meta.rematch)  # a seat may wait for the account there
        mine = {i: name for i, s in enumerate(meta.seats) if s.account == uid}
        if not mine:
            continue
        if meta.status != "open":  # the stored game first: the meta change rebuilds caches
            await svc.tables.lobby.rename_seats(table_id, mine, (chat.PLAYERS, chat.SPECTATORS))
        old_names = {meta.seats[i].name or "" for i in mine}
        for other in set(meta.accounts) - {uid}:  # the others' rating histories
            await confirmed(svc.account_store.rename_opponent(other, table_id, old_names,
                                                              name))

        def change(meta: TableMeta) -> dict[str, str]:
            out: dict[str, str] = {}
            for i, s in enumerate(meta.seats):
                if s.account == uid:
                    meta.seats[i] = dataclasses.replace(s, name=name, account=account_after)
                    if i < len(meta.name_salts) and meta.status != "open":
                        meta.name_salts[i] = None
                        out["name_salts"] = json.dumps(meta.name_salts)
            return {**out, "seats": meta.seats_json()}

        with contextlib.suppress(LobbyError):  # an expired open table
            await svc.tables.lobby.change(table_id, change,
                                          statuses=("open", "running", "ended"))
        if meta.status != "open":
            # Again (a no-op unless needed): an archive packed from entries read before
            # the first pass may have been stored since.
            await svc.tables.lobby.rename_seats(table_id, mine, (chat.PLAYERS, chat.SPECTATORS))
        # An archived game's compacted meta still packs the old seats and salts.
        await confirmed(svc.store.repack_meta(table_id))


async def erase_account(svc: Service, account: Account) -> None:
    """Delete ``account``: its seats renamed ``deleted player`` (``rename_seats``), its
    tournament entries withdrawn and renamed the same and its seeks cancelled
    (``server.accounts.leaving``), then
    its personal data (name, password hash, e-mail, settings, sessions, API tokens,
    ratings, the record of games left, follows and blocks, pending confirmation and reset
    links); then the append-only files are rewritten in the background
    (``server.store.aof``), so no copy of the name or address stays in them."""
    await rename_seats(svc, account.uid, DELETED_NAME, DELETED)
    await token_seats.revoke_all(svc, account.uid)  # its sockets close, seats withdrawn
    # Its tournament entries withdrawn and renamed, its waiting seeks cancelled.
    await svc.leaving.deleted(account.uid)
    await confirmed(svc.account_store.delete_account(account.uid, account.username,
                                                     names.skeleton(account.username)))
    await confirmed(svc.fair.forget(account.uid))
    await confirmed(svc.social.forget(account.uid))
    await confirmed(svc.invitations.forget(account.uid))
    await svc.moderation.forget(account.uid)  # its name in the open reports
    # Its /ws/me sockets close: here now, on the other processes at their look, which
    # sees the inbox's version gone (server/accounts/inbox.py).
    await confirmed(svc.inbox.check(account.uid))
    svc.aof.request()
