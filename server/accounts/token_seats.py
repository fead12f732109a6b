"""What a revoked API token leaves behind, withdrawn (docs/bot-api.md, "Revoking a
token").

A play token is given seat tokens (a join, the held-seat lookup, a rematch) and the
creator's token of the tables it creates; it opens sockets that stand for its account's
seat. The token store notes each such place (``Tokens.placed``). Revoking the token
(``Tokens.revoke``) returns those places, and ``withdraw`` then, at each table:

- gives every seat, creator or host token the token was given a fresh token nobody knows
  (``rotated``), at open, running and ended tables alike (an old seat token of an ended
  table would open a rematch): the table's meta notice makes every process close the
  sockets of the old token (1008, as after a ban) and refuse its calls;
- publishes ``token_revoked`` on the table's channel: every process closes the sockets
  the token opened there (1008), also at a seat whose token came from elsewhere (a
  browser).

The account keeps its seats: another play token of it (or its session's held-seat
lookup) plays them on. An account's deletion revokes each of its tokens so
(``revoke_all``).
"""

from __future__ import annotations

import contextlib
import secrets
from typing import TYPE_CHECKING

from server.errors import LobbyError, confirmed
from server.logging import get_logger
from server.table.meta import TableMeta, token_hash

if TYPE_CHECKING:  # the service type only: server.app imports this module's users
    from server.app import Service

log = get_logger("api_tokens")


def rotated(meta: TableMeta, hashes: set[str]) -> dict[str, str]:
    """Give each seat, creator and host token of ``meta`` whose hash is in ``hashes`` a
    fresh random one (the same fresh one where one old token held several roles);
    returns the meta fields to store (empty: none of them is there any more)."""
    fresh: dict[str, str] = {}

    def renew(old: str) -> str:
        if old not in fresh:
            fresh[old] = token_hash(secrets.token_urlsafe(16))
        return fresh[old]

    fields: dict[str, str] = {}
    for i, h in enumerate(meta.tokens):
        if h and h in hashes:
            meta.tokens[i] = fields[f"tok:{i}"] = renew(h)
    if meta.owner and meta.owner in hashes:
        meta.owner = fields["owner"] = renew(meta.owner)
    if meta.host and meta.host in hashes:
        meta.host = fields["host"] = renew(meta.host)
    return fields


async def withdraw(svc: Service, token_id: str, places: dict[str, set[str]]) -> int:
    """Withdraw what revoked token ``token_id`` was given at ``places`` (table id →
    hashes, from ``Tokens.revoke``) and close its sockets, as the module docstring says.
    Returns how many tokens were replaced. Raises ``Unavailable`` (Redis); a table gone
    meanwhile is skipped."""
    replaced: dict[str, int] = {}
    for table_id, hashes in sorted(places.items()):
        if hashes:
            def change(meta: TableMeta, hashes: set[str] = hashes) -> dict[str, str]:
                fields = rotated(meta, hashes)
                if not fields:
                    raise LobbyError(409, "unchanged", "nothing of the token's is left here")
                replaced[meta.id] = len(fields)  # the last try's count
                return fields

            # Gone, or replaced since (the seat left, the held-seat lookup renewed it).
            with contextlib.suppress(LobbyError):
                await svc.tables.lobby.change(table_id, change,
                                              statuses=("open", "running", "ended"))
                # An archived game's compacted meta still packs the old tokens.
                await confirmed(svc.store.repack_meta(table_id))
        await confirmed(svc.store.publish_token_revoked(table_id, token_id))
    log.info("api token withdrawn", token=token_id, tables=len(places))
    return sum(replaced.values())


async def revoke_all(svc: Service, uid: str) -> None:
    """Revoke every token of account ``uid`` (its deletion), each withdrawn as
    ``withdraw`` says, then drop what is left of its token keys. Raises
    ``Unavailable``."""
    store = svc.api_tokens.store
    for row in await confirmed(store.tokens(uid)):
        places = await confirmed(store.revoke(uid, row["id"]))
        if places is not None:
            await withdraw(svc, row["id"], places)
    await confirmed(store.revoke_all(uid))
