"""What every HTTP route group shares: the error body, the guard that turns the
service's exceptions into it, bodies, credentials, and the table of a request's path.

Errors are ``{"error": {"code", "message"}}`` with a 4xx/503 status (docs/protocol.md §1).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine import GAMES, Game
from server.accounts.tokens import PREFIX as API_TOKEN_PREFIX
from server.errors import LobbyError, Unavailable
from server.http import token_auth
from server.logging import get_logger
from server.play import roles
from server.table.meta import TableMeta
from server.ws import protocol

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("http")

Handler = Callable[[Request], Awaitable[Response]]


def error(status: int, code: str, message: str) -> JSONResponse:
    """The error body of the API."""
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def guarded(handler: Handler) -> Handler:
    """Turn the service's exceptions into API errors."""

    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except LobbyError as e:
            return error(e.status, e.code, e.message)
        except protocol.BadMessage as e:
            return error(400, "bad_message", str(e))
        except Unavailable:
            return error(503, "unavailable", "the store is unavailable; try again")
        except Exception:
            log.exception("request failed", path=request.url.path)
            return error(500, "internal", "the server failed on this request")

    return run


async def raw_body(request: Request, limit: int | None = None) -> bytes:
    """The body's bytes; raises ``LobbyError`` 413 past ``limit`` (default: max_frame)."""
    limit = limit or request.app.state.svc.settings.max_frame
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise LobbyError(413, "too_large", f"bodies are limited to {limit} bytes")
    return raw


async def body(request: Request, limit: int | None = None) -> Any:
    """The JSON body (``{}`` when empty); raises ``LobbyError`` 413/400."""
    raw = await raw_body(request, limit)
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise LobbyError(400, "bad_message", "the body is not JSON") from None
    except RecursionError:
        raise LobbyError(400, "bad_message", "the body is nested too deeply") from None


def bearer(request: Request) -> str | None:
    """The seat token of ``Authorization: Bearer …`` (``None`` for a personal API token,
    ``ctk_…``: that names an account, server/http/token_auth.py, not a seat)."""
    auth = request.headers.get("authorization", "")
    token = auth[7:].strip() or None if auth.lower().startswith("bearer ") else None
    return None if token is not None and token.startswith(API_TOKEN_PREFIX) else token


def table_key(request: Request) -> str | None:
    """A private table's invite secret, sent as ``X-Table-Key``."""
    return request.headers.get("x-table-key") or None


def admit(request: Request, meta: TableMeta) -> None:
    """``roles.admit`` for this request; a request by API token is also admitted to a
    private table where its account holds a seat (its token stands for the seat's)."""
    try:
        roles.admit(meta, bearer(request), table_key(request))
    except LobbyError:
        token = token_auth.api_token_of(request)
        if token is None or meta.account_seat(token.uid) is None:
            raise


def admitter(request: Request) -> Callable[[TableMeta], None]:
    """The private-table check of this request (``admit``) for ``lobby_change``."""
    return lambda meta: admit(request, meta)


def svc_of(request: Request) -> Service:
    """The process's service object (``app.state.svc``)."""
    return request.app.state.svc


def game_named(name: str, status: int = 400) -> Game:
    """The registered game ``name``; else ``LobbyError`` (``no_game``, 400 in a body, 404
    in a path) listing the games."""
    game = GAMES.get(name)
    if game is None:
        raise LobbyError(status, "no_game", f"no game {name!r}; known: {', '.join(GAMES)}")
    return game


def checked_options(game: Game, options: Any, seats: int) -> dict[str, Any]:
    """The options as ``game`` uses them (``Game.check_options``: validated once, in the
    engine); a bad one is 400 ``bad_message`` with the game's reason."""
    try:
        return game.check_options(options, seats)
    except ValueError as e:
        raise protocol.BadMessage(f"options: {e}") from None


async def table_or_404(request: Request) -> Any:
    """The live table of the path's ``id``; 404 ``no_table`` when it does not exist or is
    private and the request carries neither its secret nor a token of it."""
    tables, table_id = svc_of(request).tables, request.path_params["id"]
    cached = table_id in tables.cache
    meta = await tables.peek(table_id)
    if meta is None:
        raise LobbyError(404, "no_table", f"no table {table_id!r}")
    try:
        admit(request, meta)  # before any replay
    except LobbyError:
        if not cached:
            raise
        # Refused on the cached meta: refuse on a read of Redis, as for an unknown id, so
        # that a watched private table is not told apart by a faster answer (and a token
        # issued a moment ago on another process is seen).
        meta = await tables.peek(table_id, fresh=True)
        if meta is None:
            raise LobbyError(404, "no_table", f"no table {table_id!r}") from None
        admit(request, meta)
    table = await tables.get(table_id)
    if table is None:
        raise LobbyError(404, "no_table", f"no table {table_id!r}")
    admit(request, table.meta)
    return table


def by_seat(handler: Handler) -> Handler:
    """A table change asked for with a token of the table (``Authorization: Bearer``, a
    seat's or the host's): refused with 403 ``suspended`` (``banned``) while the account
    holding that token's seat is suspended (banned), whenever the token was handed out
    (``Moderation.seat_refusal``); so is the creator's owner token that holds no seat,
    while the account that created the table (``TableMeta.creator``) is. A guest's seat
    or table, a table created before the creator was kept, an unknown token or an unknown
    table go on to the handler, which answers them as before. Wrap it in ``guarded``."""

    async def run(request: Request) -> Response:
        token = bearer(request)
        table_id = request.path_params.get("id")
        if token is not None and isinstance(table_id, str):
            svc = svc_of(request)
            meta = await svc.tables.peek(table_id)
            seat = None if meta is None else meta.seat_of(token)
            if meta is not None and seat is not None:
                refused = await svc.moderation.seat_refusal(meta.seats[seat].account)
                if refused is not None:
                    raise refused
            elif meta is not None and meta.creator and meta.is_owner(token):
                refused = await svc.moderation.seat_refusal(meta.creator)
                if refused is not None:
                    raise refused
        return await handler(request)

    return run


def seat_index(meta: TableMeta, raw: Any) -> int:
    """A path's seat (ASCII digits only: ``int`` would take ``-1``, ``" 1"`` or the
    fullwidth ``１``) or a join body's (an int); 400 ``bad_message`` otherwise, 404
    ``no_seat`` past the table's seats."""
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        seat = raw  # a body's seat, validated by pydantic
    elif isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= 4:
        seat = int(raw)
    else:
        raise LobbyError(400, "bad_message", "seat must be a number 0, 1, …")
    if not 0 <= seat < len(meta.seats):
        raise LobbyError(404, "no_seat", f"seats are 0..{len(meta.seats) - 1}")
    return seat
