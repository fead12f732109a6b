"""Who a request is when it carries a personal API token (docs/bot-api.md): the part of
``SessionAuth`` (server/http/csrf.py) for ``Authorization: Bearer ctk_…``.

Such a request acts as the token's account exactly as a request with that account's
session cookie does (``csrf.session_of`` gives the same ``Session`` shape), so every
endpoint that resolves the account from the session takes a token with no change of its
own. It needs no CSRF token: a browser never sends an ``Authorization`` header by itself.
Refused before any handler runs (nothing changes): 401 ``bad_token`` (unknown or revoked
token, or its account is gone), 403 ``banned``, 403 ``read_only`` (a ``read`` token and a
method other than GET/HEAD/OPTIONS, or a ``GET /api/me/tables/{id}``, which mints a seat
token), 403 ``session_needed`` (account management and administration: ``/api/account/…``
(tokens cannot make tokens), ``/api/admin/…``, and changes under ``/api/me``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from starlette.requests import HTTPConnection

from server.accounts import tokens
from server.accounts.sessions import Session
from server.accounts.tokens import ApiToken
from server.errors import LobbyError, Unavailable

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

TOKEN_KEY = "cardtable.api_token"
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})
SESSION_ONLY = ("/api/account/", "/api/admin/")
SESSION_ONLY_CHANGES = ("/api/me",)
READ_REFUSED = ("/api/me/tables/",)


def api_bearer(conn: HTTPConnection) -> str | None:
    """The API token of ``Authorization: Bearer ctk_…``; ``None`` for none or a seat
    token."""
    auth = conn.headers.get("authorization", "")
    if not auth.lower().startswith("bearer "):
        return None
    text = auth[7:].strip()
    return text if tokens.looks_like(text) else None


def api_token_of(conn: HTTPConnection) -> ApiToken | None:
    """The API token the request was authenticated by (``None``: a session or nothing)."""
    return conn.scope.get(TOKEN_KEY)


def by_token(conn: HTTPConnection) -> bool:
    """True when the request acts by an API token (not a browser's session)."""
    return api_token_of(conn) is not None


async def placed(svc: Service, conn: HTTPConnection, table_id: str, *given: str) -> None:
    """When the request acts by an API token, note the seat or owner tokens ``given``
    to it at ``table_id`` (``Tokens.placed``): revoking the token withdraws them.
    Raises ``Unavailable`` (Redis)."""
    token = api_token_of(conn)
    if token is None or not given:
        return
    try:
        await svc.api_tokens.placed(token, table_id, list(given))
    except RedisError as e:
        raise Unavailable(str(e)) from None


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    """``path`` is one of ``prefixes`` (without the slash) or lies below one."""
    return any(path == p.rstrip("/") or path.startswith(p.rstrip("/") + "/")
               for p in prefixes)


def check_use(token: ApiToken, method: str, path: str) -> None:
    """Raise 403 ``session_needed`` or ``read_only`` when ``token`` may not make this
    request (see the module docstring)."""
    if _under(path, SESSION_ONLY) or (method not in SAFE and _under(path, SESSION_ONLY_CHANGES)):
        raise LobbyError(403, "session_needed",
                         "this call needs a login session: an API token cannot make it")
    if not token.plays and (method not in SAFE or _under(path, READ_REFUSED)):
        raise LobbyError(403, "read_only", "this token may only read (scope \"read\")")


async def authenticate(svc: Service, text: str, method: str, path: str
                       ) -> tuple[Session, ApiToken]:
    """The session-shaped identity and the token of API token ``text`` for this request;
    raises ``LobbyError`` (module docstring) or ``Unavailable`` (Redis)."""
    try:
        token = await svc.api_tokens.resolve(text)
        account = await svc.accounts.get(token.uid) if token is not None else None
    except RedisError as e:
        raise Unavailable(str(e)) from None
    if token is None or account is None:
        raise LobbyError(401, "bad_token", "unknown or revoked API token")
    if account.banned:
        raise LobbyError(403, "banned", "this account is banned")
    check_use(token, method, path)
    try:
        await svc.api_tokens.used(token, time.time())
    except RedisError as e:
        raise Unavailable(str(e)) from None
    # A token's "session" has no cookie and no CSRF token: calls that end a session
    # (logout, a password change) are session-only above.
    return Session(key="", csrf="", account=account), token
