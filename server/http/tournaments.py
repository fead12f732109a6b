"""Tournament HTTP API and the live standings socket (docs/protocol.md, "Tournaments").

Who may do what: anyone may list and read tournaments and follow one's socket; an
account (a session) may create one (at most ``tournaments_per_account`` scheduled or
running at once), join, withdraw; only its creator may start it before its time.
Errors are ``{"error": {"code", "message"}}`` and change nothing.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from server import metrics
from server.accounts import bot_accounts
from server.errors import LobbyError, Unavailable
from server.http import csrf, token_auth
from server.http.common import body, checked_options, game_named, guarded, svc_of
from server.logging import get_logger
from server.play import clock
from server.tournaments.model import OPEN, Tournament
from server.tournaments.store import Stale
from server.ws import protocol
from server.ws.admission import admitted

log = get_logger("tournaments")

TOURNAMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")
LIST_LIMIT = 50
DEFAULT_DELAY_MS = 5 * 60_000
MAX_AHEAD_MS = 30 * 86_400_000


async def _store(coro: Any) -> Any:
    """Await a tournament store call: Redis failing is 503, losing every try 409."""
    try:
        return await coro
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        raise Unavailable(str(e)) from None
    except Stale:
        raise LobbyError(409, "stale", "the tournament changed meanwhile; try again") from None


def _account(request: Request) -> Any:
    session = csrf.session_of(request)
    if session is None:
        raise LobbyError(401, "no_session", "log in first")
    return session.account


def _id(request: Request) -> str:
    tid = request.path_params["id"]
    if not TOURNAMENT_ID.fullmatch(tid):
        raise LobbyError(404, "no_tournament", f"no tournament {tid!r}")
    return str(tid)


def _checked(req: protocol.CreateTournament, now: int) -> dict[str, Any]:
    """The fields of a new tournament from a valid body; raises ``LobbyError`` 400."""
    game = game_named(req.game)
    if not game.min_players <= req.seats <= game.max_players:
        raise LobbyError(400, "bad_message", f"seats: {game.name} takes "
                         f"{game.min_players}-{game.max_players} seats")
    options = checked_options(game, req.options, req.seats)
    time_control = req.time_control.model_dump(exclude_none=True)
    try:
        tc = clock.parse(time_control)
    except ValueError as e:
        raise LobbyError(400, "bad_message", str(e)) from None
    if not tc.clocked:
        raise LobbyError(400, "bad_message", "time_control: a tournament is played on a "
                         "clock (live or async)")
    if req.kind == "swiss" and (req.rounds is None or req.minutes is not None):
        raise LobbyError(400, "bad_message", "a swiss tournament takes rounds, not minutes")
    if req.kind == "arena" and (req.minutes is None or req.rounds is not None):
        raise LobbyError(400, "bad_message", "an arena takes minutes, not rounds")
    starts_at = now + DEFAULT_DELAY_MS if req.starts_at is None else int(req.starts_at * 1000)
    if not now - 60_000 <= starts_at <= now + MAX_AHEAD_MS:
        raise LobbyError(400, "bad_message", "starts_at: from now to 30 days ahead")
    return {"game": game.name, "options": options, "time_control": time_control,
            "starts_at": max(starts_at, now), "rounds": req.rounds or 0,
            "minutes": req.minutes or 0}


@guarded
async def create(request: Request) -> Response:
    svc = svc_of(request)
    account = _account(request)
    req = protocol.parse_body(protocol.CreateTournament, await body(request))
    now = svc.tables.now()
    fields = _checked(req, now)
    store = svc.tournaments.store
    mine = await _store(store.many(await _store(store.of_account(account.uid, 200))))
    running = [t for t in mine if t.creator == account.uid and t.status in OPEN]
    limit = svc.settings.tournaments_per_account
    if len(running) >= limit:
        raise LobbyError(429, "too_many_tournaments",
                         f"at most {limit} scheduled or running tournaments per account")
    t = Tournament(id=secrets.token_urlsafe(9), name=req.name, creator=account.uid,
                   creator_name=account.username, kind=req.kind, seats=req.seats,
                   rated=req.rated, secret=secrets.token_hex(32), created_at=now, **fields)
    await _store(store.create(t))
    log.info("tournament created", tournament=t.id, kind=t.kind, game=t.game)
    return JSONResponse(t.public(), status_code=201)


async def _load(request: Request) -> Tournament:
    got = await _store(svc_of(request).tournaments.store.load(_id(request)))
    if got is None:
        raise LobbyError(404, "no_tournament", f"no tournament {request.path_params['id']!r}")
    t: Tournament = got[0]
    return t


def _mine(t: Tournament, uid: str) -> dict[str, Any]:
    """What the asking account is to ``t``: joined, withdrawn, creator, and its board
    being played (``{table, seat}``, once its table is made and started; its token:
    ``GET /api/me/tables/{id}``)."""
    e = t.entry(uid)
    board = next(({"table": b.table, "seat": b.players.index(uid)} for b in reversed(t.boards)
                  if b.table and b.status == "playing" and uid in b.players), None)
    return {"joined": e is not None and not e.withdrawn,
            "withdrawn": e is not None and e.withdrawn, "creator": t.creator == uid,
            "board": board}


@guarded
async def get(request: Request) -> Response:
    t = await _load(request)
    out = t.public()
    session = csrf.session_of(request)
    if session is not None:
        out["me"] = _mine(t, session.account.uid)
    return JSONResponse(out)


async def _change(request: Request, fn: Any) -> Response:
    svc = svc_of(request)
    account = _account(request)
    tid = _id(request)
    got = await _store(svc.tournaments.store.change(tid, lambda t: fn(t, account) or True))
    if got is None:
        raise LobbyError(404, "no_tournament", f"no tournament {tid!r}")
    svc.tournaments.nudge()
    out = got[0].public()
    out["me"] = _mine(got[0], account.uid)
    return JSONResponse(out)


@guarded
async def join(request: Request) -> Response:
    by_token = token_auth.by_token(request)

    def enter(t: Tournament, a: Any) -> None:
        # A rated tournament by API token needs a bot account (bot_accounts.require_bot).
        bot_accounts.require_bot(a, t.rated, by_token)
        t.join(a.uid, a.username)

    return await _change(request, enter)


@guarded
async def withdraw(request: Request) -> Response:
    return await _change(request, lambda t, a: t.withdraw(a.uid))


@guarded
async def start(request: Request) -> Response:
    """The creator starts a scheduled tournament now (``cancelled`` with too few
    players)."""
    now = svc_of(request).tables.now()

    def begin(t: Tournament, account: Any) -> None:
        if t.creator != account.uid:
            raise LobbyError(403, "not_creator", "only the tournament's creator may start it")
        if t.status != "scheduled":
            raise LobbyError(409, "started", "the tournament has already started")
        t.start(now)

    return await _change(request, begin)


@guarded
async def listing(request: Request) -> Response:
    """Newest first: ``?status=open`` (scheduled and running, the default),
    ``finished`` (finished or cancelled) or ``all``; ``?player=<name>``: those the
    account of that name created or joined, each with its ``place`` there."""
    svc = svc_of(request)
    status = request.query_params.get("status", "open")
    if status not in ("open", "finished", "all"):
        raise LobbyError(400, "bad_message", "status must be open, finished or all")
    store = svc.tournaments.store
    player = request.query_params.get("player")
    uid = None
    if player is not None:
        uid = await _store(svc.account_store.uid_of(player)) if len(player) <= 32 else None
        if uid is None:
            raise LobbyError(404, "no_player", f"no player {player!r}")
        ids = await _store(store.of_account(uid, LIST_LIMIT))
    else:
        ids = await _store(store.newest(4 * LIST_LIMIT))
    rows = []
    for t in await _store(store.many(ids)):
        is_open = t.status in OPEN
        if status == "all" or (status == "open") == is_open:
            rows.append(t.summary(uid))
    return JSONResponse({"tournaments": rows[:LIST_LIMIT]})


async def follow(ws: WebSocket) -> None:
    """``/ws/tournaments/{id}``: the public state now and at every change. Checked as a
    table's socket is (server/ws/endpoint.py): an Origin neither the page's host nor
    listed is closed with 1008, a socket past the address's ``conns_per_addr`` (counted
    with its table and seek sockets) with 4029; an unknown id with 4004, Redis failing
    with 1013; a reader too slow for its frames with 1013 (server/tournaments/live.py)."""
    svc = ws.app.state.svc
    async with admitted(ws, svc) as addr:
        if addr is not None:
            await _follow(ws, svc)


async def _follow(ws: WebSocket, svc: Any) -> None:
    tid = ws.path_params["id"]
    got = None
    await ws.accept()
    if TOURNAMENT_ID.fullmatch(tid):
        try:
            got = await svc.tournaments.store.load(tid)
        except RedisError:
            metrics.REDIS_ERRORS.inc()
            await ws.close(1013, "the store is unavailable")
            return
    if got is None:
        await ws.close(4004, "no such tournament")
        return
    await svc.tournaments.watchers.follow(ws, tid, got)


ROUTES = [
    Route("/api/tournaments", create, methods=["POST"]),
    Route("/api/tournaments", listing, methods=["GET"]),
    Route("/api/tournaments/{id}", get, methods=["GET"]),
    Route("/api/tournaments/{id}/join", join, methods=["POST"]),
    Route("/api/tournaments/{id}/withdraw", withdraw, methods=["POST"]),
    Route("/api/tournaments/{id}/start", start, methods=["POST"]),
    WebSocketRoute("/ws/tournaments/{id}", follow),
]
