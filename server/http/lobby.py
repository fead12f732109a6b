"""Lobby HTTP API (docs/protocol.md §1): JSON in, JSON out, errors as
``{"error": {"code", "message"}}`` with a 4xx/503 status."""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine import GAMES
from server import metrics
from server.accounts import bot_accounts, names
from server.bots import kinds as bots
from server.errors import LobbyError, Unavailable
from server.http import csrf, rate, replays, takeover, token_auth
from server.http.common import (
    admitter,
    bearer,
    body,
    by_seat,
    checked_options,
    error,
    game_named,
    guarded,
    raw_body,
    seat_index,
    svc_of,
    table_key,
    table_or_404,
)
from server.logging import get_logger
from server.play import clock, roles
from server.table.core import project
from server.table.meta import Seat, TableMeta, token_hash
from server.ws import protocol

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("lobby")

async def count_new_table(svc: Service, request: Request) -> None:
    """Count one new table of the request's address (``create:<addr>``, a one-hour window
    shared by every route that makes a table: the lobby's form, tutorials). Raises
    ``LobbyError`` 429 ``rate_limited`` past ``tables_per_hour`` tables in the window,
    ``Unavailable`` when the counter cannot be reached (``rate.per_hour``)."""
    await rate.per_hour(svc, request, "create", svc.settings.tables_per_hour, "new tables")


@guarded
async def create_table(request: Request) -> Response:
    svc = svc_of(request)
    req = protocol.parse_body(protocol.CreateTable, await body(request))
    game = game_named(req.game or svc.settings.default_game)
    if not game.min_players <= req.seats <= game.max_players:
        raise protocol.BadMessage(f"seats: {game.name} takes {game.min_players}-"
                                  f"{game.max_players} seats")
    options = checked_options(game, req.options, req.seats)
    await count_new_table(svc, request)
    time_control = (req.time_control.model_dump(exclude_none=True)
                    if req.time_control else {})
    try:
        clock.parse(time_control)
    except ValueError as e:
        raise LobbyError(400, "bad_message", str(e)) from None
    session = csrf.session_of(request)
    if req.rated and session is None:
        raise LobbyError(403, "account_needed", "log in to create a rated table")
    if session is not None:
        bot_accounts.require_bot(session.account, req.rated, token_auth.by_token(request))
    meta, owner, invite = await svc.tables.lobby.create(game.name, req.seats, options, req.name,
                                                  req.private, time_control, rated=req.rated,
                                                  creator=session.account.uid
                                                  if session is not None else "")
    if session is not None:
        await svc.hold(session.account.uid, meta.id, {"owner": owner})
        await token_auth.placed(svc, request, meta.id, owner)
    extra = {"invite_key": invite} if invite else {}
    return JSONResponse({**meta.summary(), "owner_token": owner, **extra}, status_code=201)


@guarded
async def list_tables(request: Request) -> Response:
    status = request.query_params.get("status")
    if status is None:
        statuses = ["open", "running"]
    elif status in ("open", "running", "ended"):
        statuses = [status]
    else:
        return error(400, "bad_message", "status must be open, running or ended")
    return JSONResponse({"tables": await svc_of(request).tables.lobby.listing(statuses)})


@guarded
async def get_table(request: Request) -> Response:
    return JSONResponse((await table_or_404(request)).meta.summary())


@guarded
@by_seat
async def join(request: Request) -> Response:
    """Take a seat. Without a bearer the seat gets a fresh token; the creator may send
    its ``owner_token`` as bearer and then sits with it (so the host's seat is known)."""
    svc = svc_of(request)
    req = protocol.parse_body(protocol.Join, await body(request))
    given = bearer(request)
    token = given or secrets.token_urlsafe(16)
    chosen: dict[str, int] = {}
    session = csrf.session_of(request)
    account = session.account if session is not None else None
    by_token = token_auth.by_token(request)
    # The accounts that blocked this one: it may not sit where one of them sits.
    blockers: set[str] = set()
    table_id = request.path_params["id"]
    invitation: dict[str, Any] | None = None
    if account is not None:
        try:
            blockers = await svc.social.blocked_by(account.uid)
            if req.invited:
                invitation = await svc.invitations.get(account.uid, table_id,
                                                       svc.settings.now_ms())
        except RedisError as e:
            raise Unavailable(str(e)) from None
    if req.invited and invitation is None:
        # No session, none for this table, or expired: told apart from no table only by
        # the caller's own inbox.
        raise LobbyError(403, "not_invited", "no invitation of your account to this table")

    def change(meta: TableMeta) -> dict[str, str]:
        if given is not None:
            held = meta.seat_of(given)
            if held is not None:
                raise LobbyError(409, "seated", f"this token already holds seat #{held + 1}")
            if not (meta.is_owner(given) or roles.is_host(meta, given)):
                raise LobbyError(401, "bad_token", "only the creator's token may be sent "
                                                   "to take a seat; send none")
        if req.seat is not None:
            seat = seat_index(meta, req.seat)
            if meta.seats[seat].kind is not None:
                raise LobbyError(409, "seat_taken", f"seat #{seat + 1} is taken")
        else:
            free = [i for i, s in enumerate(meta.seats) if s.kind is None]
            if not free:
                raise LobbyError(409, "table_full", "every seat is taken")
            seat = free[0]
        if meta.rated and account is None:
            raise LobbyError(403, "account_needed", "a rated table seats accounts only: log in")
        if any(s.account in blockers for s in meta.seats if s.kind is not None):
            # Answered as a taken seat (a full table without a chosen seat), so the join
            # does not tell the caller it was blocked (docs/protocol.md §1).
            if req.seat is not None:
                raise LobbyError(409, "seat_taken", f"seat #{seat + 1} is taken")
            raise LobbyError(409, "table_full", "every seat is taken")
        if account is not None:
            bot_accounts.require_bot(account, meta.rated, by_token)
            mine = [i for i, s in enumerate(meta.seats) if s.account == account.uid]
            if mine:
                raise LobbyError(409, "seated", f"your account already holds seat {mine[0]}")
        name = account.username if account else req.name
        taken = names.lookalike(name, [s.name for s in meta.seats if s.kind is not None and s.name])
        if taken is not None:
            raise LobbyError(409, "name_lookalike",
                             f"{name!r} looks like {taken!r}, who sits here: choose another name")
        meta.seats[seat] = Seat(name=name, kind="human",
                                since=int(meta.version),
                                account=account.uid if account else None,
                                bot_account=account is not None and account.bot)
        chosen["seat"] = seat
        return {"seats": meta.seats_json(), f"tok:{seat}": token_hash(token)}

    # Noted first: a revocation racing this join still finds the seat token.
    await token_auth.placed(svc, request, table_id, token)
    # An invitation admits its invitee as the invite link would (a private table).
    await svc.tables.lobby.change(table_id, change,
                                  admit=(lambda meta: None) if invitation else admitter(request))
    if account is not None:
        await svc.hold(account.uid, table_id, {"seat": chosen["seat"], "token": token})
        if invitation is not None:
            try:
                await svc.invitations.drop(account.uid, table_id)
            except RedisError as e:  # the invitation only lingers until it expires
                log.warning("invitation not dropped", table=table_id, error=str(e))
            await svc.inbox.changed(account.uid)
    return JSONResponse({"seat": chosen["seat"], "token": token})


def _empty_seat(meta: TableMeta, seat: int) -> dict[str, str]:
    """Free ``seat`` before the start (its token and seed contribution go; the host role
    passes on if the seat held it); returns the fields to store."""
    host = roles.host_after_leave(meta, seat)
    meta.seats[seat] = Seat()
    meta.contributions[seat] = ""
    meta.tokens[seat] = ""
    meta.host = host
    return {"seats": meta.seats_json(), f"tok:{seat}": "", "host": host,
            "contributions": json.dumps(meta.contributions)}


@guarded
@by_seat
async def leave(request: Request) -> Response:
    token = bearer(request)

    def change(meta: TableMeta) -> dict[str, str]:
        return _empty_seat(meta, roles.require_seat(meta, token))

    await svc_of(request).tables.lobby.change(request.path_params["id"], change,
                                              admit=admitter(request))
    return JSONResponse({"ok": True})


@guarded
@by_seat
async def kick(request: Request) -> Response:
    """The host frees a person's seat before the start (that token stops holding it)."""
    token = bearer(request)

    def change(meta: TableMeta) -> dict[str, str]:
        roles.require_host(meta, token, "kick a player")
        seat = seat_index(meta, request.path_params["seat"])
        if meta.seats[seat].kind != "human":
            raise LobbyError(409, "not_a_person", f"seat #{seat + 1} holds no person")
        if meta.tokens[seat] == roles.host_hash(meta):
            raise LobbyError(409, "own_seat", "the host leaves its own seat with leave")
        return _empty_seat(meta, seat)

    meta = await svc_of(request).tables.lobby.change(request.path_params["id"], change,
                                                     admit=admitter(request))
    return JSONResponse(meta.summary())


@guarded
@by_seat
async def set_options(request: Request) -> Response:
    """The host changes the options before the start: the given keys over the current
    options, validated exactly as at creation."""
    token = bearer(request)
    given = await body(request)
    if not isinstance(given, dict):
        raise LobbyError(400, "bad_message", "the body must be an object of options")

    def change(meta: TableMeta) -> dict[str, str]:
        roles.require_host(meta, token, "change the options")
        meta.options = checked_options(game_named(meta.game), {**meta.options, **given},
                                       len(meta.seats))
        return {"options": json.dumps(meta.options)}

    meta = await svc_of(request).tables.lobby.change(request.path_params["id"], change,
                                                     admit=admitter(request))
    return JSONResponse(meta.summary())


@guarded
@by_seat
async def add_bot(request: Request) -> Response:
    """Before the start: the host puts a bot on an empty seat. During the game: the host
    (``roles.require_hand_over``) hands a person's seat to a bot; that person's token
    stops acting."""
    svc = svc_of(request)
    req = protocol.parse_body(protocol.AddBot, await body(request))
    level = bots.effective_level(req.kind, req.level)
    token = bearer(request)
    running = await table_or_404(request)
    try:
        bots.check_kind(running.meta.game, req.kind, req.level)
    except ValueError as e:
        raise LobbyError(400, "bad_bot", str(e)) from None
    if running.meta.status == "running":
        # Stored in the table's stream like every change of who plays a seat.
        return await takeover.handover(svc, running, request.path_params["seat"], req.kind,
                                       level, token)

    def change(meta: TableMeta) -> dict[str, str]:
        seat = seat_index(meta, request.path_params["seat"])
        held = meta.seats[seat].kind
        if meta.status == "running":
            roles.require_hand_over(meta, token, seat)
            if held != "human":
                raise LobbyError(409, "seat_taken", f"seat #{seat + 1} already holds a bot")
        else:
            roles.require_host(meta, token, "add a bot")
            if held is not None:
                raise LobbyError(409, "seat_taken", f"seat #{seat + 1} is taken")
        # A handed-over seat keeps its token hash: the former player's actions get
        # ``seat_handed_over`` instead of a bare 1008, and its sockets go on watching. It
        # keeps its player's name too: the game was dealt to that name, and its events,
        # chain and record say so to the end.
        name = meta.seats[seat].name if held else f"{req.kind.capitalize()} bot {seat + 1}"
        meta.seats[seat] = Seat(name=name, kind="bot", bot=req.kind, level=level)
        return {"seats": meta.seats_json()}

    meta = await svc.tables.lobby.change(request.path_params["id"], change,
                                         statuses=("open", "running"), admit=admitter(request))
    if meta.status == "running":
        # Apply the handover here now (the meta notice may lag): the bot starts at once
        # and this process refuses the former token from now on.
        await svc.tables.bots.note(meta.id)
        table = await svc.tables.get(meta.id)
        if table is not None:
            with contextlib.suppress(Unavailable, RedisError):
                await svc.tables.streams.sync(table)
        log.info("seat handed to a bot", table=meta.id, kind=req.kind, level=level)
    return JSONResponse(meta.summary())


@guarded
@by_seat
async def remove_bot(request: Request) -> Response:
    token = bearer(request)

    def change(meta: TableMeta) -> dict[str, str]:
        roles.require_host(meta, token, "remove a bot")
        seat = seat_index(meta, request.path_params["seat"])
        if meta.seats[seat].kind != "bot":
            raise LobbyError(409, "not_a_bot", f"seat #{seat + 1} holds no bot")
        meta.seats[seat] = Seat()
        return {"seats": meta.seats_json()}

    meta = await svc_of(request).tables.lobby.change(request.path_params["id"], change,
                                                     admit=admitter(request))
    return JSONResponse(meta.summary())


@guarded
@by_seat
async def seed(request: Request) -> Response:
    token = bearer(request)
    req = protocol.parse_body(protocol.PlayerSeed, await body(request))

    def change(meta: TableMeta) -> dict[str, str]:
        seat = roles.require_seat(meta, token)
        meta.contributions[seat] = req.player_seed
        return {"contributions": json.dumps(meta.contributions)}

    meta = await svc_of(request).tables.lobby.change(request.path_params["id"], change,
                                                     admit=admitter(request))
    return JSONResponse(meta.summary())


@guarded
@by_seat
async def start(request: Request) -> Response:
    meta = await svc_of(request).tables.lobby.start_game(request.path_params["id"], bearer(request),
                                                   table_key(request))
    return JSONResponse(meta.summary())


@guarded
async def view(request: Request) -> Response:
    """The current view of the bearer's seat (no or another table's token: a spectator's)."""
    table = await table_or_404(request)
    return JSONResponse(table.view(table.viewer(bearer(request))))


@guarded
async def events(request: Request) -> Response:
    svc = svc_of(request)
    table = await table_or_404(request)
    try:
        after = int(request.query_params.get("from", "0"))
    except ValueError:
        return error(400, "bad_message", "from must be a number")
    # Clamped: Redis refuses list indexes beyond 64 bits, and nothing lies past the end.
    after = min(max(after, 0), table.seq)
    try:
        entries = await svc.tables.entries(table.id, table.meta, after)
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        raise Unavailable(str(e)) from None

    # As the bearer's seat sees them (``null``: an event it sees nothing of).
    seat = table.viewer(bearer(request))
    projected = [project(table.game, table.decode(e), seat) for e in entries]
    return JSONResponse({"seq": after + len(projected), "events": projected})


def _replay_allowed(request: Request) -> None:
    """The per-address replay rate (``server.http.replays``); raises ``LobbyError`` 429."""
    svc = svc_of(request)
    if not svc.replays.allow(request.client.host if request.client else "?"):
        raise LobbyError(429, "rate_limited",
                         f"at most {svc.settings.replay_rate_per_s:g} replays per second "
                         f"per address")


async def _replay_answer(svc: Service, key: Any, fn: Any, *args: Any, keep: bool = True
                         ) -> Response:
    try:
        status, content = await svc.replays.answer(key, fn, *args, keep=keep)
    except replays.Busy:
        raise LobbyError(429, "rate_limited", "too many replays are being computed; "
                                              "try again in a moment") from None
    return Response(content, status_code=status, media_type="application/json")


@guarded
async def deltas(request: Request) -> Response:
    svc = svc_of(request)
    _replay_allowed(request)
    table_id = request.path_params["id"]
    # The meta says which stream this is (seq and head): its deltas never change, so an
    # answer computed before is served as it is, without loading or replaying anything.
    try:
        fields = await svc.store.load_meta(table_id)
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        raise Unavailable(str(e)) from None
    if not fields:
        raise LobbyError(404, "no_table", f"no table {table_id!r}")
    meta = TableMeta.from_fields(table_id, fields)
    roles.admit(meta, bearer(request), table_key(request))  # before any other check
    try:
        after = max(int(request.query_params.get("from", "0")), 0)
    except ValueError:
        return error(400, "bad_message", "from must be a number")
    after = min(after, meta.seq)
    seat = meta.viewer_of(bearer(request))  # a resigned seat's token: a spectator's
    key = ("deltas", table_id, meta.seq, meta.head, after, seat)
    found = svc.replays.cached(key)
    if found is not None:
        return Response(found[1], status_code=found[0], media_type="application/json")
    try:
        entries = (await svc.tables.entries(table_id, meta))[:meta.seq]
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        raise Unavailable(str(e)) from None
    # The deltas the bearer's seat was sent live (a reload keeps its own draws; any other
    # token, and a resigned seat's, reads a spectator's). Kept only if the entries are the
    # stream the meta named (no append raced the load).
    keep = len(entries) == meta.seq and (not entries or entries[-1]["h"] == meta.head)
    return await _replay_answer(svc, key, replays.stored_deltas, meta.game, len(meta.seats),
                                entries, after, seat, keep=keep)


RECORD_LIMIT = 512 * 1024


@guarded
async def replay(request: Request) -> Response:
    svc = svc_of(request)
    _replay_allowed(request)
    raw = await raw_body(request, RECORD_LIMIT)
    key = ("record", hashlib.sha256(raw).digest())
    return await _replay_answer(svc, key, replays.replay_record, raw)


async def bot_list(request: Request) -> Response:
    """The bot kinds of ``?game=`` (default: the ``default_game`` setting)."""
    name = request.query_params.get("game") or svc_of(request).settings.default_game
    if name not in GAMES:
        return error(404, "no_game", f"no game {name!r}; known: {', '.join(GAMES)}")
    return JSONResponse({"bots": bots.bot_list(name)})


async def game_list(request: Request) -> Response:
    """Every game: name, title, seat range, options schema (the lobby's form is generated
    from it), bot kinds and whether hands are hidden (``uniform_view``); ``default``: the
    game a request that names none gets (the ``default_game`` setting)."""
    return JSONResponse({"default": svc_of(request).settings.default_game, "games": [
        {"name": g.name, "title": g.title, "min_players": g.min_players,
         "max_players": g.max_players, "options_schema": g.options_schema,
         "bots": bots.bot_list(g.name), "hidden_hands": not g.uniform_view}
        for g in GAMES.values()]})


@guarded
async def record(request: Request) -> Response:
    table = await table_or_404(request)
    return JSONResponse(await svc_of(request).tables.ending.record(table))


async def cards(request: Request) -> Response:
    """The game's card catalogue (``Game.catalogue``)."""
    name = request.path_params["game"]
    game = GAMES.get(name)
    if game is None:
        return error(404, "no_game", f"no game {name!r}; known: {', '.join(GAMES)}")
    return JSONResponse(game.catalogue())


ROUTES = [
    Route("/api/tables", create_table, methods=["POST"]),
    Route("/api/tables", list_tables, methods=["GET"]),
    Route("/api/tables/{id}", get_table, methods=["GET"]),
    Route("/api/tables/{id}/join", join, methods=["POST"]),
    Route("/api/tables/{id}/leave", leave, methods=["POST"]),
    Route("/api/tables/{id}/seats/{seat}/bot", add_bot, methods=["POST"]),
    Route("/api/tables/{id}/seats/{seat}/bot", remove_bot, methods=["DELETE"]),
    Route("/api/tables/{id}/seats/{seat}/kick", kick, methods=["POST"]),
    Route("/api/tables/{id}/options", set_options, methods=["PATCH"]),
    Route("/api/tables/{id}/seed", seed, methods=["POST"]),
    Route("/api/tables/{id}/start", start, methods=["POST"]),
    Route("/api/tables/{id}/view", view, methods=["GET"]),
    Route("/api/tables/{id}/events", events, methods=["GET"]),
    Route("/api/tables/{id}/deltas", deltas, methods=["GET"]),
    Route("/api/tables/{id}/record", record, methods=["GET"]),
    Route("/api/replay", replay, methods=["POST"]),
    Route("/api/bots", bot_list, methods=["GET"]),
    Route("/api/games", game_list, methods=["GET"]),
    Route("/api/games/{game}/cards", cards, methods=["GET"]),
]
