"""HTTP API of personal API tokens and bot accounts (docs/protocol.md §1, "Bot accounts
and API tokens"; docs/bot-api.md). Every route needs a login session (a cookie, with its
CSRF token for changes, as every session call): an API token cannot make, list or revoke
tokens, nor turn its account into a bot (``server.http.token_auth`` refuses it with 403
``session_needed`` before these handlers; they check again).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.accounts import audit, bot_accounts, token_seats
from server.accounts.sessions import Session
from server.errors import LobbyError
from server.http import token_auth
from server.http.accounts import from_store, need_session
from server.http.common import body, guarded, svc_of


def _session(request: Request) -> Session:
    """The request's cookie session; 401 ``no_session``, 403 ``session_needed`` (a token)."""
    if token_auth.by_token(request):
        raise LobbyError(403, "session_needed", "an API token cannot manage tokens")
    return need_session(request)


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


@guarded
async def create_token(request: Request) -> Response:
    """``POST /api/account/tokens {name, scope}``: ``201 {"token", "id", "name", "scope",
    "created_at", "last_used": null}``; the token's text is in this answer only. 400
    ``bad_message``, 409 ``too_many_tokens``, 429 ``rate_limited``."""
    session = _session(request)
    data = await body(request)
    if not isinstance(data, dict) or set(data) - {"name", "scope"}:
        raise LobbyError(400, "bad_message", "the body is {\"name\", \"scope\"}")
    svc = svc_of(request)
    text, token = await from_store(svc.api_tokens.create(
        session.account.uid, data.get("name"), data.get("scope")))
    audit.token_created(session.account.uid, token.id, token.scope, _client(request))
    return JSONResponse({"token": text, **token.listed()}, status_code=201)


@guarded
async def list_tokens(request: Request) -> Response:
    """``GET /api/account/tokens``: ``{"tokens": [{"id", "name", "scope", "created_at",
    "last_used"}]}``, oldest first, never a token's text."""
    session = _session(request)
    listed = await from_store(svc_of(request).api_tokens.listing(session.account.uid))
    return JSONResponse({"tokens": listed})


@guarded
async def revoke_token(request: Request) -> Response:
    """``DELETE /api/account/tokens/{tid}``: ``{"revoked": id}``; the token stops working
    at once (every process looks it up per request and per socket), the seat and owner
    tokens it was given stop working and its sockets close, on every process
    (server/accounts/token_seats.py); 404 ``no_token``."""
    session = _session(request)
    token_id = request.path_params["tid"]
    svc = svc_of(request)
    places = await from_store(svc.api_tokens.revoke(session.account.uid, token_id))
    audit.token_revoked(session.account.uid, token_id, _client(request))
    await token_seats.withdraw(svc, token_id, places)
    await from_store(svc.api_tokens.store.forget_places(session.account.uid, token_id))
    return JSONResponse({"revoked": token_id})


@guarded
async def make_bot(request: Request) -> Response:
    """``POST /api/account/bot {password}``: the account becomes a bot account, for
    good; ``{"account"}``. 401 ``bad_login`` (wrong password), 409 ``already_bot``,
    ``has_roles``, ``rated_as_person`` (server/accounts/bot_accounts.py)."""
    session = _session(request)
    data = await body(request)
    if not isinstance(data, dict) or set(data) - {"password"}:
        raise LobbyError(400, "bad_message", "the body is {\"password\"}")
    svc = svc_of(request)
    account = session.account
    await svc.accounts.check_password_of(account, data.get("password"))
    await from_store(bot_accounts.convert(svc.account_store, account))
    audit.bot_converted(account.uid, _client(request))
    return JSONResponse({"account": account.private()})


ROUTES = [
    Route("/api/account/tokens", create_token, methods=["POST"]),
    Route("/api/account/tokens", list_tokens, methods=["GET"]),
    Route("/api/account/tokens/{tid}", revoke_token, methods=["DELETE"]),
    Route("/api/account/bot", make_bot, methods=["POST"]),
]
