"""Friends and blocking over HTTP (docs/protocol.md §1, "Friends and blocking"): follow an
account, the friends list with who is at which public table now, block an account. Every
call needs a session and changes only the caller's own lists; errors as in
``server.http.lobby``.

A blocked account cannot sit at a table where an account that blocked it sits
(``server.http.lobby.join``: refused as at a full table), is never paired with it
(``server.pairing.match``, ``server.tournaments.pairing`` where it has a choice), and its
chat does not reach the blocker (``server.play.chat``). No answer tells it that it was
blocked: its follow of the blocker is stored as any follow (nothing of a follow reaches
the followed account), its invitation is answered as a delivered one and dropped.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.accounts.accounts import Account
from server.errors import LobbyError
from server.http.accounts import from_store, need_session
from server.http.common import guarded, svc_of
from server.table.meta import TableMeta

RECENT_TABLES = 10
"""A friend's newest tables looked at for the ones it sits at now."""


async def _other(request: Request) -> tuple[Account, Account]:
    """(the caller's account, the account named in the path); raises 401 ``no_session``,
    404 ``no_player``, 400 ``bad_message`` (oneself)."""
    me = need_session(request).account
    other = await from_store(svc_of(request).accounts.by_name(request.path_params["name"]))
    if other is None:
        raise LobbyError(404, "no_player", "no such player")
    if other.uid == me.uid:
        raise LobbyError(400, "bad_message", "that is your own account")
    return me, other


async def _names(request: Request, uids: set[str]) -> list[str]:
    svc = svc_of(request)
    out = []
    for uid in uids:
        account = await from_store(svc.accounts.get(uid))
        if account is not None:
            out.append(account.username)
    return sorted(out, key=str.lower)


@guarded
async def follow(request: Request) -> Response:
    """``PUT /api/me/follows/{name}`` (follow) and ``DELETE`` (stop): ``{"following":
    [names]}``. A follow of an account that blocked the caller is a follow as any other
    (a block is not revealed); refused with 409 ``blocked`` when the caller blocked it,
    409 ``too_many_follows`` at ``CARDTABLE_FOLLOWS_MAX``."""
    svc = svc_of(request)
    social = svc.social
    me, other = await _other(request)
    if request.method == "PUT":
        got = await from_store(social.follow(me.uid, other.uid, svc.settings.follows_max))
        if got == "blocks":
            raise LobbyError(409, "blocked", "you blocked this account: unblock it first")
        if got == "full":
            raise LobbyError(409, "too_many_follows",
                             f"you follow {svc.settings.follows_max} accounts, the most one "
                             "may: stop following one first")
    else:
        await from_store(social.unfollow(me.uid, other.uid))
    return JSONResponse({"following": await _names(request,
                                                   await from_store(social.follows(me.uid)))})


@guarded
async def block(request: Request) -> Response:
    """``PUT /api/me/blocks/{name}`` (block; the follow ends both ways) and ``DELETE``
    (unblock): ``{"blocked": [names]}``. The caller's table sockets on this process stop
    getting the blocked account's chat at once (on other processes: from their next
    connection)."""
    me, other = await _other(request)
    svc = svc_of(request)
    on = request.method == "PUT"
    await from_store(svc.social.block(me.uid, other.uid, on))
    svc.blocks_changed(me.uid, other.uid, on)
    social = svc.social
    return JSONResponse({"blocked": await _names(request,
                                                 await from_store(social.blocks(me.uid)))})


@guarded
async def blocks(request: Request) -> Response:
    """``GET /api/me/blocks``: ``{"blocked": [names]}``."""
    me = need_session(request).account
    social = svc_of(request).social
    return JSONResponse({"blocked": await _names(request,
                                                 await from_store(social.blocks(me.uid)))})


async def _at_tables(request: Request, uid: str) -> tuple[list[dict[str, Any]], bool]:
    """The public open or running tables where ``uid`` holds a seat now (of its newest
    ``RECENT_TABLES``), and whether it is online (has a socket at one of them)."""
    svc = svc_of(request)
    ids = await from_store(svc.account_store.game_ids(uid, RECENT_TABLES))
    rows = await from_store(svc.account_store.table_metas(ids)) if ids else []
    out: list[dict[str, Any]] = []
    online = False
    for table_id, fields in zip(ids, rows, strict=True):
        if not fields:
            continue
        meta = TableMeta.from_fields(table_id, fields)
        seats = [i for i, s in enumerate(meta.seats) if s.account == uid]
        if meta.private or meta.status not in ("open", "running") or not seats:
            continue
        out.append({"id": meta.id, "game": meta.game, "name": meta.name,
                    "status": meta.status, "seat": seats[0]})
        table = await svc.tables.get(table_id)
        if table is not None and not online:
            online = await from_store(svc.attendance.online(table, seats[0]))
    return out, online


@guarded
async def friends(request: Request) -> Response:
    """``GET /api/me/friends``: the accounts the caller follows, ``{"friends":
    [{"username", "online", "tables": [{"id", "game", "name", "status", "seat"}]}]}``:
    ``tables`` the public tables where the friend sits now, ``online`` whether it has a
    socket at one of them (private tables never show)."""
    me = need_session(request).account
    svc = svc_of(request)
    out = []
    for uid in await from_store(svc.social.follows(me.uid)):
        account = await from_store(svc.accounts.get(uid))
        if account is None:
            continue
        tables, online = await _at_tables(request, uid)
        out.append({"username": account.username, "online": online, "tables": tables})
    out.sort(key=lambda f: str(f["username"]).lower())
    return JSONResponse({"friends": out})


ROUTES = [
    Route("/api/me/follows/{name}", follow, methods=["PUT", "DELETE"]),
    Route("/api/me/friends", friends, methods=["GET"]),
    Route("/api/me/blocks/{name}", block, methods=["PUT", "DELETE"]),
    Route("/api/me/blocks", blocks, methods=["GET"]),
]
