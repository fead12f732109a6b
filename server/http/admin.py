"""HTTP API of the administration (docs/protocol.md §1, "Administration"): the routes
under ``/api/admin``, each a thin shell over ``server.admin.ops`` for the session's
account. 401 ``no_session`` without a session, 403 ``forbidden`` when its roles do not
allow the action; changes need the session's CSRF token as every cookie-authenticated
change does (``server.http.csrf``). Errors as in ``server.http.lobby``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.admin.ops import Actor, Admin
from server.errors import LobbyError, unknown_fields
from server.http.accounts import need_session
from server.http.common import body, guarded, svc_of


def _staff(request: Request) -> tuple[Admin, Actor]:
    """The operations and the session's account as the actor; 403 ``forbidden`` for an
    account without a role (before anything is read)."""
    actor = Actor.of(need_session(request).account)
    if not actor.roles:
        raise LobbyError(403, "forbidden", "the administration needs the admin or "
                                           "moderator role")
    return svc_of(request).admin, actor


async def _object(request: Request) -> dict[str, Any]:
    data = await body(request)
    if not isinstance(data, dict):
        raise LobbyError(400, "bad_message", "the body must be an object")
    return data


def _int(raw: str | None, default: int) -> int:
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        raise LobbyError(400, "bad_message", "a count is a number")
    return int(raw)


@guarded
async def accounts(request: Request) -> Response:
    """``GET /api/admin/accounts?q=&limit=``: ``{"accounts": [...]}`` whose names
    contain ``q``."""
    admin, actor = _staff(request)
    q = request.query_params.get("q", "")[:64]
    found = await admin.find(actor, q, _int(request.query_params.get("limit"), 50))
    return JSONResponse({"accounts": found})


@guarded
async def account(request: Request) -> Response:
    """``GET /api/admin/accounts/{name}``: ``{"account": {...}}``."""
    admin, actor = _staff(request)
    return JSONResponse({"account": await admin.show(actor, request.path_params["name"])})


@guarded
async def ban(request: Request) -> Response:
    """``POST /api/admin/accounts/{name}/ban {reason?}``."""
    admin, actor = _staff(request)
    data = await body(request)
    unknown = unknown_fields(data, {"reason"})
    done = await admin.ban(actor, request.path_params["name"], data.get("reason", ""), unknown)
    return JSONResponse({"audit": done})


@guarded
async def unban(request: Request) -> Response:
    """``POST /api/admin/accounts/{name}/unban``."""
    admin, actor = _staff(request)
    return JSONResponse({"audit": await admin.unban(actor, request.path_params["name"])})


@guarded
async def rename(request: Request) -> Response:
    """``POST /api/admin/accounts/{name}/rename {username, report?}``: ``report`` (an
    open report about the account, server/admin/moderation.py) is resolved by it."""
    admin, actor = _staff(request)
    data = await _object(request)
    if data.get("report") is None:
        done = await admin.rename(actor, request.path_params["name"], data.get("username"))
    else:
        done = await svc_of(request).moderation.rename(actor, request.path_params["name"],
                                                       data.get("username"), data["report"])
    return JSONResponse({"audit": done})


@guarded
async def delete(request: Request) -> Response:
    """``DELETE /api/admin/accounts/{name}``."""
    admin, actor = _staff(request)
    return JSONResponse({"audit": await admin.delete(actor, request.path_params["name"])})


@guarded
async def grant(request: Request) -> Response:
    """``PUT /api/admin/accounts/{name}/roles/{role}``."""
    admin, actor = _staff(request)
    p = request.path_params
    return JSONResponse({"audit": await admin.set_role(actor, p["name"], p["role"], True)})


@guarded
async def revoke(request: Request) -> Response:
    """``DELETE /api/admin/accounts/{name}/roles/{role}``."""
    admin, actor = _staff(request)
    p = request.path_params
    return JSONResponse({"audit": await admin.set_role(actor, p["name"], p["role"], False)})


@guarded
async def unlock(request: Request) -> Response:
    """``POST /api/admin/unlock {username?, address?}``."""
    admin, actor = _staff(request)
    data = await _object(request)
    done = await admin.unlock(actor, data.get("username"), data.get("address"))
    return JSONResponse({"audit": done})


@guarded
async def remove_chat(request: Request) -> Response:
    """``DELETE /api/admin/tables/{id}/chat/{message}``."""
    admin, actor = _staff(request)
    p = request.path_params
    return JSONResponse({"audit": await admin.remove_chat(actor, p["id"], p["message"])})


@guarded
async def abort(request: Request) -> Response:
    """``POST /api/admin/tables/{id}/abort``: close an open table."""
    admin, actor = _staff(request)
    return JSONResponse({"audit": await admin.abort(actor, request.path_params["id"])})


@guarded
async def void(request: Request) -> Response:
    """``POST /api/admin/tables/{id}/void``: end a running game without a result."""
    admin, actor = _staff(request)
    return JSONResponse({"audit": await admin.void(actor, request.path_params["id"])})


@guarded
async def audit_log(request: Request) -> Response:
    """``GET /api/admin/audit?count=&before=``: ``{"entries": [...]}``, newest first."""
    admin, actor = _staff(request)
    before = request.query_params.get("before") or None  # checked by ``audit_log``
    entries = await admin.audit_log(actor, _int(request.query_params.get("count"), 100),
                                    before)
    return JSONResponse({"entries": entries})


ROUTES = [
    Route("/api/admin/accounts", accounts, methods=["GET"]),
    Route("/api/admin/accounts/{name}", account, methods=["GET"]),
    Route("/api/admin/accounts/{name}", delete, methods=["DELETE"]),
    Route("/api/admin/accounts/{name}/ban", ban, methods=["POST"]),
    Route("/api/admin/accounts/{name}/unban", unban, methods=["POST"]),
    Route("/api/admin/accounts/{name}/rename", rename, methods=["POST"]),
    Route("/api/admin/accounts/{name}/roles/{role}", grant, methods=["PUT"]),
    Route("/api/admin/accounts/{name}/roles/{role}", revoke, methods=["DELETE"]),
    Route("/api/admin/unlock", unlock, methods=["POST"]),
    Route("/api/admin/tables/{id}/chat/{message}", remove_chat, methods=["DELETE"]),
    Route("/api/admin/tables/{id}/abort", abort, methods=["POST"]),
    Route("/api/admin/tables/{id}/void", void, methods=["POST"]),
    Route("/api/admin/audit", audit_log, methods=["GET"]),
]
