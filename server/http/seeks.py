"""Quick pairing over HTTP and its socket (docs/protocol.md §7): ``POST /api/seeks``,
``GET``/``DELETE /api/seeks/{id}``, ``GET /api/seeks`` (the pools' sizes) and the socket
``/ws/seeks/{id}`` that tells a waiting page the moment its seek is paired.

Who may: anyone may seek a casual game (a guest names itself, an account plays under its
username); a rated seek needs an account (403 ``account_needed``), and by API token a bot
account (403 ``bot_account_needed``, server/accounts/bot_accounts.py). A seek's own calls need
its ``seek_token`` as bearer; any other token, none, or an unknown id answer 404
``no_seek`` alike (a seek id tells nothing about its seeker).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.accounts import bot_accounts
from server.errors import LobbyError, Unavailable
from server.http import csrf, rate, token_auth
from server.http.common import bearer, body, game_named, guarded, svc_of
from server.logging import get_logger
from server.pairing.pool import FINAL
from server.play import clock
from server.ws import protocol
from server.ws.admission import admitted

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("seeks")

DEFAULT_CLOCK = {"kind": "live", "preset": "normal"}
"""A seek's time control when it names none: seeks always have a clock, so that a paired
stranger who never comes is played for by the table's rules for absence."""


@guarded
async def create_seek(request: Request) -> Response:
    """``POST /api/seeks``: 201 with the seek (``id``, ``seek_token``, ``status``, …)."""
    svc = svc_of(request)
    req = protocol.parse_body(protocol.CreateSeek, await body(request))
    game = game_named(req.game)
    if not game.min_players <= req.seats <= game.max_players:
        raise protocol.BadMessage(f"seats: {game.name} takes {game.min_players}-"
                                  f"{game.max_players} seats")
    time_control = (req.time_control.model_dump(exclude_none=True)
                    if req.time_control else dict(DEFAULT_CLOCK))
    try:
        parsed = clock.parse(time_control)
    except ValueError as e:
        raise LobbyError(400, "bad_message", str(e)) from None
    if not parsed.clocked:
        raise LobbyError(400, "bad_message", "time_control: a seek needs a clock "
                                             "(live or async), not none")
    session = csrf.session_of(request)
    if req.rated and session is None:
        raise LobbyError(403, "account_needed", "log in to seek a rated game")
    if session is not None:  # a rated seek by API token needs a bot account
        bot_accounts.require_bot(session.account, req.rated, token_auth.by_token(request))
    await rate.per_hour(svc, request, "seek", svc.settings.seeks_per_hour, "seeks")
    if session is not None:
        name, uid = session.account.username, session.account.uid
    else:
        name, uid = req.name or "Guest", None
    seek = await svc.seeks.create(game.name, req.seats, time_control, req.rated,
                                  req.bots_after, name, uid,
                                  session is not None and session.account.bot)
    return JSONResponse(seek, status_code=201)


@guarded
async def get_seek(request: Request) -> Response:
    """``GET /api/seeks/{id}``: the seek as its owner sees it (a poll keeps it alive)."""
    return JSONResponse(await svc_of(request).seeks.look(request.path_params["id"],
                                                        bearer(request)))


@guarded
async def cancel_seek(request: Request) -> Response:
    """``DELETE /api/seeks/{id}``: cancel a waiting seek (409 once paired)."""
    return JSONResponse(await svc_of(request).seeks.cancel(request.path_params["id"],
                                                          bearer(request)))


@guarded
async def pools(request: Request) -> Response:
    """``GET /api/seeks``: ``{"pools": {game: waiting seeks}}``."""
    return JSONResponse({"pools": await svc_of(request).seeks.sizes()})


async def seek_socket(ws: WebSocket) -> None:
    """``/ws/seeks/{id}`` (JSON text frames): the client sends ``{"t": "hello", "token":
    <seek_token>}``; the server answers ``{"t": "seek", …the seek…}`` now and at every
    change, the last one ``paired`` (with ``table``, ``seat``, ``token``), ``cancelled``
    or ``expired``, then closes (1000). An open socket keeps the seek alive. Closes 4004
    for an unknown seek or another's token, 1008 for a bad origin or hello, 4000 when no
    hello came within ``hello_timeout``."""
    svc: Service = ws.app.state.svc
    async with admitted(ws, svc) as addr:
        if addr is not None:
            await ws.accept()
            await _serve(ws, svc, ws.path_params["id"])


async def _serve(ws: WebSocket, svc: Service, sid: str) -> None:
    """One seek socket after its checks: the hello, then the seek's frames."""
    settings = svc.settings
    try:
        async with asyncio.timeout(settings.hello_timeout):
            hello = json.loads(await ws.receive_text())
    except TimeoutError:
        await ws.close(4000, "no hello")
        return
    except (ValueError, KeyError, WebSocketDisconnect):
        with contextlib.suppress(RuntimeError):
            await ws.close(1008, "bad hello")
        return
    token = hello.get("token") if isinstance(hello, dict) and hello.get("t") == "hello" \
        else None
    if not isinstance(token, str):
        await ws.close(1008, "bad hello")
        return
    reader = asyncio.get_running_loop().create_task(_drain(ws))
    try:
        last: dict[str, Any] | None = None
        while not reader.done():
            seek: dict[str, Any] | None
            try:
                seek = await svc.seeks.look(sid, token)
            except LobbyError as e:
                await ws.close(4004, e.code)
                return
            except Unavailable:
                seek = last  # the store will answer again; the socket waits
            if seek is not None and seek != last:
                await ws.send_text(json.dumps({"t": "seek", **seek}))
                last = seek
                if seek["status"] in FINAL:
                    await ws.close(1000, seek["status"])
                    return
            waiter = asyncio.ensure_future(svc.seeks.changed(sid, settings.seek_poll))
            await asyncio.wait({waiter, reader}, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
    except (WebSocketDisconnect, RuntimeError):
        return  # the client left while a frame was on its way
    finally:
        reader.cancel()
        svc.seeks.forget(sid)


async def _drain(ws: WebSocket) -> None:
    """Read (and ignore) what the client sends until it closes."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return


ROUTES = [
    Route("/api/seeks", create_seek, methods=["POST"]),
    Route("/api/seeks", pools, methods=["GET"]),
    Route("/api/seeks/{id}", get_seek, methods=["GET"]),
    Route("/api/seeks/{id}", cancel_seek, methods=["DELETE"]),
    WebSocketRoute("/ws/seeks/{id}", seek_socket),
]
