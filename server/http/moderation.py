"""HTTP API of moderation (docs/protocol.md, "Moderation"): ``POST /api/reports`` for
any signed-in account, and the moderators' queue and sanctions under ``/api/admin``, each
a thin shell over ``server.admin.moderation``. 401 ``no_session`` without a session, 403
``forbidden`` when the account's roles do not allow the action; changes need the
session's CSRF token (``server.http.csrf``). Errors as in ``server.http.lobby``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.admin.moderation import Moderation, only_fields
from server.admin.ops import Actor
from server.errors import LobbyError, unknown_fields
from server.http.accounts import need_session
from server.http.common import body, guarded, svc_of


def _moderation(request: Request) -> tuple[Moderation, Actor]:
    """The operations and the session's account as the actor; 403 ``forbidden`` for an
    account without a role (before anything is read)."""
    actor = Actor.of(need_session(request).account)
    if not actor.roles:
        raise LobbyError(403, "forbidden", "moderation needs the admin or moderator role")
    return svc_of(request).moderation, actor


async def _object(request: Request, fields: frozenset[str]) -> dict[str, Any]:
    """The body, an object of ``fields`` only (400 ``bad_message`` otherwise)."""
    return only_fields(await body(request), fields)


def _limit(raw: str | None) -> int:
    if raw is None:
        return 100
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        raise LobbyError(400, "bad_message", "limit is a number")
    return int(raw)


@guarded
async def file_report(request: Request) -> Response:
    """``POST /api/reports {target, reason, text?, table?, seat?, message?}``: 201
    ``{"report": {"id", "target_name", "reason", "at"}}`` (what the reporter sees of it)."""
    account = need_session(request).account
    done = await svc_of(request).moderation.report(account, await body(request))
    return JSONResponse({"report": {k: done[k] for k in ("id", "target_name", "reason",
                                                          "at")}}, status_code=201)


@guarded
async def queue(request: Request) -> Response:
    """``GET /api/admin/reports?limit=``: ``{"reports": [...]}``, oldest first."""
    mod, actor = _moderation(request)
    found = await mod.queue(actor, _limit(request.query_params.get("limit")))
    return JSONResponse({"reports": found})


@guarded
async def dismiss(request: Request) -> Response:
    """``POST /api/admin/reports/{id}/dismiss {note?}``."""
    mod, actor = _moderation(request)
    data = await _object(request, frozenset({"note"}))
    done = await mod.dismiss(actor, request.path_params["id"], data.get("note", ""))
    return JSONResponse({"audit": done})


async def _sanction(request: Request, action: str) -> Response:
    mod, actor = _moderation(request)
    data = await body(request)
    unknown = unknown_fields(data, {"minutes", "report"})
    done = await mod.sanction(actor, request.path_params["name"], action,
                              data.get("minutes"), data.get("report"), unknown)
    return JSONResponse({"audit": done})


@guarded
async def mute(request: Request) -> Response:
    """``POST /api/admin/accounts/{name}/mute {minutes, report?}``."""
    return await _sanction(request, "mute")


@guarded
async def suspend(request: Request) -> Response:
    """``POST /api/admin/accounts/{name}/suspend {minutes, report?}``."""
    return await _sanction(request, "suspend")


@guarded
async def unmute(request: Request) -> Response:
    """``DELETE /api/admin/accounts/{name}/mute``."""
    mod, actor = _moderation(request)
    return JSONResponse({"audit": await mod.lift(actor, request.path_params["name"], "mute")})


@guarded
async def unsuspend(request: Request) -> Response:
    """``DELETE /api/admin/accounts/{name}/suspend``."""
    mod, actor = _moderation(request)
    return JSONResponse({"audit": await mod.lift(actor, request.path_params["name"],
                                                 "suspend")})


ROUTES = [
    Route("/api/reports", file_report, methods=["POST"]),
    Route("/api/admin/reports", queue, methods=["GET"]),
    Route("/api/admin/reports/{id}/dismiss", dismiss, methods=["POST"]),
    Route("/api/admin/accounts/{name}/mute", mute, methods=["POST"]),
    Route("/api/admin/accounts/{name}/mute", unmute, methods=["DELETE"]),
    Route("/api/admin/accounts/{name}/suspend", suspend, methods=["POST"]),
    Route("/api/admin/accounts/{name}/suspend", unsuspend, methods=["DELETE"]),
]
