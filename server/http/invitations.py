"""Invitations by name (docs/protocol.md §1, "Invitations by name"): a seated account (or
the table's creator with its owner token) invites an account by its username to an open
table; the invitee hears it at once in every open page (``/ws/me``,
``server.accounts.inbox``) and by mail if it opted in (``email_invite``), and its session
takes a seat with ``POST /api/tables/{id}/join`` and ``"invited": true`` (private tables
too: the invitation admits it).

An invitation to an invitee that blocked the inviter is answered as a delivered one
(201, the same body) and dropped: stored nowhere, told to nobody, so an invitation never
tells whom one is blocked by. One to an account the inviter blocked itself is refused
with 409 ``blocked``; an unknown username with 404 ``no_player``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from server import metrics
from server.accounts import inbox, sessions
from server.errors import LobbyError, Unavailable
from server.http.accounts import from_store, need_session
from server.http.common import bearer, body, by_seat, guarded, svc_of
from server.logging import get_logger
from server.table.meta import TableMeta
from server.ws.admission import admitted

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("invitations")


def may_invite(meta: TableMeta, uid: str, token: str | None) -> bool:
    """True when the account ``uid`` holds a seat at the table, or ``token`` is the
    table's owner token (its creator, seated or not)."""
    return meta.account_seat(uid) is not None or (token is not None and meta.is_owner(token))


def free_seat(meta: TableMeta) -> bool:
    """True while the table is open and has a seat nobody holds or is kept for."""
    return meta.status == "open" and any(s.kind is None for s in meta.seats)


@guarded
@by_seat
async def invite(request: Request) -> Response:
    """``POST /api/tables/{id}/invitations`` ``{"name": <username>}``: 201 ``{"invited":
    <username>, "table": <id>, "expires": ms}``. Errors: 401 ``no_session``; 404
    ``no_table`` (also a table the caller may not invite to: it holds no seat there and
    sent no owner token); 404 ``no_player`` (unknown name); 400 ``bad_message`` (oneself,
    a bad name); 409 ``blocked`` (the caller blocked the invitee), ``not_open`` (started
    or ended), ``table_full``, ``seated`` (the invitee sits there already); 429
    ``rate_limited`` (``CARDTABLE_INVITES_PER_HOUR`` per account)."""
    svc = svc_of(request)
    me = need_session(request).account
    data = await body(request)
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(name, str) or not name.strip() or len(name) > 64:
        raise LobbyError(400, "bad_message", "name: the invitee's username")
    table_id = request.path_params["id"]
    meta = await svc.tables.peek(table_id, fresh=True)
    if meta is None or not may_invite(meta, me.uid, bearer(request)):
        # A table the caller has no part in answers as an unknown one (private ones too).
        raise LobbyError(404, "no_table", f"no table {table_id!r}")
    try:
        count = await svc.store.hit(f"invite:{me.uid}", 3600, svc.settings.now_ms() / 1000)
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        raise Unavailable(str(e)) from None
    if count > svc.settings.invites_per_hour:
        raise LobbyError(429, "rate_limited", f"at most {svc.settings.invites_per_hour} "
                                              "invitations per hour")
    other = await from_store(svc.accounts.by_name(name.strip()))
    if other is not None and other.uid == me.uid:
        raise LobbyError(400, "bad_message", "that is your own account")
    # The same reads for an unknown name (the sets of no account) as for a known one.
    mine, theirs = await from_store(svc.social.sides(me.uid, other.uid if other else ""))
    if other is None:
        raise LobbyError(404, "no_player", "no such player")
    if mine:
        raise LobbyError(409, "blocked", "you blocked this account: unblock it first")
    if meta.status != "open":
        raise LobbyError(409, "not_open", "the game has started: nobody can take a seat")
    if meta.account_seat(other.uid) is not None:
        raise LobbyError(409, "seated", f"{other.username} already sits at this table")
    if not free_seat(meta):
        raise LobbyError(409, "table_full", "every seat is taken")
    now = svc.settings.now_ms()
    expires = now + svc.settings.idle_expiry * 1000
    invitation = {"table": meta.id, "game": meta.game, "name": meta.name or meta.id,
                  "by": me.username, "at": now, "expires": expires}
    if theirs:
        # Whom the invitee blocked is its own business: answered as delivered, dropped
        # (one round trip in the invitee's slot instead of the script's).
        await from_store(svc.invitations.versions([other.uid]))
    else:
        await from_store(svc.invitations.add(other.uid, invitation, svc.settings.idle_expiry))
        metrics.INVITATIONS.inc()
        log.info("invitation sent", table=meta.id)
        await svc.inbox.changed(other.uid)
        await svc.notifier.invited(other, me.username, meta.name or meta.id, meta.id)
    return JSONResponse({"invited": other.username, "table": meta.id, "expires": expires},
                        status_code=201)


@guarded
async def pending(request: Request) -> Response:
    """``GET /api/me/invitations``: ``{"invitations": [...]}``, the caller's pending
    invitations as ``/ws/me`` sends them."""
    svc = svc_of(request)
    me = need_session(request).account
    return JSONResponse({"invitations": await from_store(
        svc.invitations.pending(me.uid, svc.settings.now_ms()))})


async def inbox_socket(ws: WebSocket) -> None:
    """``/ws/me`` (JSON text frames): the notifications of the session's account
    (``server.accounts.inbox``). Closes 1008 for another site's origin, 4001 without a
    live session or for a banned or suspended account (and later, when the session
    ends or the account is banned or suspended: ``Inbox.sessions_changed``), 1013 when
    the store does not answer, 4029 beyond the address's sockets (counted with its
    table sockets, ``CARDTABLE_CONNS_PER_ADDR``)."""
    svc: Service = ws.app.state.svc
    async with admitted(ws, svc) as addr:
        if addr is not None:
            await ws.accept()
            await _serve_inbox(ws, svc)


async def _serve_inbox(ws: WebSocket, svc: Service) -> None:
    """One ``/ws/me`` socket after the origin and address checks: its session, then the
    account's inbox."""
    sid, _ = sessions.cookie_sid(ws)
    try:
        session = await sessions.load(svc.accounts, sid) if sid else None
    except RedisError:
        metrics.REDIS_ERRORS.inc()
        await ws.close(1013, "the store is unavailable")
        return
    why = inbox.refusal(session, svc.settings.now_ms() / 1000)
    if session is None or why is not None:
        await ws.close(inbox.SESSION_ENDED, why or "no session")
        return
    assert sid is not None  # a session was loaded from it
    await svc.inbox.serve(ws, session.account.uid, sid)


ROUTES = [
    Route("/api/tables/{id}/invitations", invite, methods=["POST"]),
    Route("/api/me/invitations", pending, methods=["GET"]),
    WebSocketRoute("/ws/me", inbox_socket),
]
