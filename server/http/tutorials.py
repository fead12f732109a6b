"""Tutorials (docs/protocol.md, "Tutorials"): ``POST /api/tutorials`` seats the caller,
guest or account, at a new tutorial table of a game and starts it (server/table/tutorial.py:
the chosen deal, the scripted bots)."""

from __future__ import annotations

import secrets
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.errors import LobbyError, confirmed
from server.http import csrf, lobby, token_auth
from server.http.common import body, game_named, guarded, svc_of
from server.logging import get_logger
from server.table import tutorial
from server.table.meta import token_hash
from server.ws import protocol

log = get_logger("tutorials")


class NewTutorial(BaseModel):
    """``POST /api/tutorials``: the game; a guest's name (an account sits as itself)."""

    model_config = ConfigDict(extra="forbid")
    game: Annotated[str, Field(min_length=1, max_length=32)]
    name: protocol.PlayerName | None = None


@guarded
async def create_tutorial(request: Request) -> Response:
    """Create and start a tutorial table of ``game`` with the caller in seat 0. Answers 201
    ``{"table": summary, "seat": 0, "token", "invite_key"}``; 400 ``bad_message`` (body),
    400 ``no_game``, 429 ``rate_limited`` (it counts as a new table of the address)."""
    svc = svc_of(request)
    try:
        req = NewTutorial.model_validate(await body(request))
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise LobbyError(400, "bad_message", f"{where}: {first['msg']}") from None
    game = game_named(req.game)
    await lobby.count_new_table(svc, request)  # a tutorial is a new table of the address
    session = csrf.session_of(request)
    account = session.account if session is not None else None
    token, starter, invite = (secrets.token_urlsafe(16) for _ in range(3))
    meta = tutorial.table_meta(
        secrets.token_urlsafe(9), game.name,
        account.username if account else (req.name or "Guest"),
        account.uid if account else None, bool(account and account.bot),
        token_hash(token), token_hash(starter), token_hash(invite))
    await token_auth.placed(svc, request, meta.id, token)
    await confirmed(svc.store.create(meta.id, meta.to_fields(), svc.settings.idle_expiry))
    meta = await svc.tables.lobby.start_game(meta.id, starter, invite)
    if account is not None:
        await svc.hold(account.uid, meta.id, {"seat": 0, "token": token})
    log.info("tutorial started", table=meta.id, game=game.name)
    return JSONResponse({"table": meta.summary(), "seat": 0, "token": token,
                         "invite_key": invite}, status_code=201)


ROUTES = [Route("/api/tutorials", create_tutorial, methods=["POST"])]
