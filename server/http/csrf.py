"""Who a request is, and protection of cookie-authenticated changes against cross-site
requests (docs/protocol.md §1, "Sessions").

``SessionAuth`` (ASGI middleware, HTTP only) loads the session of the
``cardtable_session`` cookie (or of its former name ``einauge_session``: a live one is
moved to the new name on the response, the old one cleared) into
``scope["cardtable.session"]`` (``None`` without one). A request that changes something
(any method but GET/HEAD/OPTIONS) and carries a live session cookie must also carry that
session's token in ``X-CSRF-Token`` (synchronizer token: a page of another site can
neither read it nor set the header without a CORS preflight the server never grants), else
403 ``csrf`` and nothing runs. Requests without a session cookie are authenticated by
bearer tokens only, which a browser never sends by itself; a personal API token
(``Authorization: Bearer ctk_…``, server/http/token_auth.py) acts as its account, as
its session would, within the token's scope. A session of a banned account
is refused with 403 ``banned`` (server/admin/ops.py); a change (any method but
GET/HEAD/OPTIONS) of a suspended account's session or token with 403 ``suspended``, but
logging out, deleting itself and its settings (server/admin/moderation.py). Sign-up and
login set a cookie, so they also refuse an ``Origin`` of another site (403 ``csrf``; login CSRF).
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.accounts import sessions
from server.accounts.sessions import Session
from server.admin import moderation
from server.errors import LobbyError, Unavailable
from server.http import token_auth
from server.ws.admission import origin_allowed

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
SCOPE_KEY = "cardtable.session"


def session_of(conn: HTTPConnection) -> Session | None:
    """The request's session (set by ``SessionAuth``), or ``None``."""
    return conn.scope.get(SCOPE_KEY)


def same_site(conn: HTTPConnection, allowed: tuple[str, ...]) -> bool:
    """True unless the request's ``Origin`` names another site."""
    return origin_allowed(conn.headers.get("origin"), conn.headers.get("host"), allowed)


class SessionAuth:
    """See the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        svc: Service = scope["app"].state.svc
        api = token_auth.api_bearer(conn)
        if api is not None:  # a program's API token: its account, no cookie, no CSRF
            try:
                scope[SCOPE_KEY], scope[token_auth.TOKEN_KEY] = await token_auth.authenticate(
                    svc, api, scope["method"], scope["path"])
            except LobbyError as e:
                await _refuse(scope, receive, send, e.status, e.code, e.message)
                return
            except Unavailable:
                await _refuse(scope, receive, send, 503, "unavailable",
                              "the store is unavailable; try again")
                return
            if await _suspended(scope, receive, send, svc):
                return
            await self.app(scope, receive, send)
            return
        sid, legacy = sessions.cookie_sid(conn)
        session = None
        if sid:
            try:
                session = await sessions.load(svc.accounts, sid)
            except RedisError:
                await _refuse(scope, receive, send, 503, "unavailable",
                              "the store is unavailable; try again")
                return
        if session is not None and session.account.banned:
            # A ban ends the account's sessions; one loaded in the same instant is
            # refused here.
            await _refuse(scope, receive, send, 403, "banned", "this account is banned")
            return
        scope[SCOPE_KEY] = session
        if session is not None and scope["method"] not in SAFE:
            given = conn.headers.get("x-csrf-token", "")
            if not given or not hmac.compare_digest(given, session.csrf):
                await _refuse(scope, receive, send, 403, "csrf",
                              "a change made with the session cookie needs the session's "
                              "X-CSRF-Token header")
                return
        if await _suspended(scope, receive, send, svc):
            return
        if session is not None and legacy and sid:
            send = _moving_cookie(send, conn, sid, svc.settings.session_ttl)
        await self.app(scope, receive, send)


async def _suspended(scope: Scope, receive: Receive, send: Send, svc: Service) -> bool:
    """Refuse (403 ``suspended``) a change a suspended account asks for, but logging out
    and its own settings (``moderation.change_refused``); True when refused."""
    session = scope.get(SCOPE_KEY)
    if session is None or scope["method"] in SAFE:
        return False
    refused = moderation.change_refused(session.account, svc.settings.now_ms() / 1000,
                                        scope["method"], scope["path"])
    if refused is None:
        return False
    await _refuse(scope, receive, send, refused.status, refused.code, refused.message)
    return True


def _moving_cookie(send: Send, conn: HTTPConnection, sid: str, ttl: int) -> Send:
    """``send`` that adds the session cookie under its new name, and clears the former
    one, to the response, unless the response sets a session cookie itself (login,
    logout)."""
    carrier = Response()
    sessions.set_cookie(carrier, conn, sid, ttl)
    added = [(k, v) for k, v in carrier.raw_headers if k == b"set-cookie"]
    own = (sessions.COOKIE + "=").encode()

    async def moving(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            if not any(k.lower() == b"set-cookie" and v.startswith(own) for k, v in headers):
                message = {**message, "headers": headers + added}
        await send(message)

    return moving


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, code: str,
                  message: str) -> None:
    response = JSONResponse({"error": {"code": code, "message": message}}, status_code=status)
    await response(scope, receive, send)
