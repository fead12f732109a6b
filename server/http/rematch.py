"""Rematch (docs/protocol.md §1 "Rematch"): after the end, a new table with the same
people, seats rotated by one, bots coming along; it starts once every person accepted.

``POST /api/tables/{id}/rematch`` with a seated player's token of the ended table:

1. The old table's meta gets ``rematch: <new id>`` through a version-checked lobby change,
   so of two players clicking at once exactly one id wins; the other call reads it.
2. The new table is created if absent (one script: ``Store.create_new``). Whoever gets
   there first creates it; a claim whose creator died is completed by the next caller.
   Every person's seat is kept for them (``waiting`` in the summary: nobody can join it,
   the start waits for it); bots sit in their rotated seats at once.
3. The caller takes its rotated seat with a token derived from its old one
   (``rematch_token``): asking again (a double click, a second tab) gives the same seat
   and token and changes nothing.
4. When no seat is waiting any more, the call that took the last one starts the game
   (``roles.require_starter``: at a rematch any seated person may start it).

The first caller's new token is also the new table's owner token: it is the host.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine.chain import genesis
from engine.shuffle import commitment
from server import metrics
from server.accounts import bot_accounts
from server.accounts.accounts import DELETED
from server.errors import LobbyError, Unavailable
from server.http import csrf, token_auth
from server.http.common import bearer, body, by_seat, guarded, svc_of, table_or_404
from server.logging import get_logger
from server.play import clock as clocks
from server.table.lobby import new_name_salts
from server.table.meta import Seat, TableMeta, token_hash
from server.table.tutorial import KIND as TUTORIAL_BOT
from server.ws import protocol

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("rematch")

def rotated(seat: int, seats: int) -> int:
    """The rematch seat of ``seat``: one further round the table."""
    return (seat + 1) % seats


def rematch_token(token: str, new_id: str) -> str:
    """The caller's seat token at the rematch: HMAC-SHA256 of the new table id keyed with
    its old token (the first 16 bytes, URL-safe base64 like every token). Only the holder
    of the old token can compute it; the server stores only its hash, as for any token."""
    mac = hmac.new(token.encode("utf-8"), f"rematch:{new_id}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:16]).rstrip(b"=").decode()


def rematch_seats(old: list[Seat]) -> list[Seat]:
    """The new seats: each person's seat moves one on (kept for them with their
    account, no token yet; a deleted account's seat is a guest's); a
    bot, including a person's seat handed to a bot during the game, comes along as the
    same kind and level with the standard bot name of its new seat."""
    n = len(old)
    seats = [Seat() for _ in range(n)]
    for i, s in enumerate(old):
        j = rotated(i, n)
        if s.kind == "bot":
            # A tutorial's bot (server/table/tutorial.py) plays as greedy on the lesson's
            # deal; the rematch is an ordinary game against that bot, without a coach.
            kind = "greedy" if s.bot == TUTORIAL_BOT else s.bot or "random"
            seats[j] = Seat(name=f"{kind.capitalize()} bot {j + 1}", kind="bot", bot=kind,
                            level=s.level)
        elif s.kind == "human":
            account = s.account if s.account and s.account != DELETED else None
            seats[j] = Seat(name=s.name, kind="human", account=account,
                            bot_account=s.bot_account and account is not None)
    return seats


def new_meta(old: TableMeta, new_id: str, owner_token: str) -> TableMeta:
    """The rematch table's meta: same game, options, time control (a public table's
    ``none`` of an older version becomes the public default: ``clock.for_table``), name
    and ``rated``,
    rotated
    seats, a fresh
    committed server seed. The first caller's token is the owner's (the host's, as the
    creator of any table; ``server.play.roles``); a private table's rematch is private with
    the same invite secret."""
    n = len(old.seats)
    server_seed = secrets.token_bytes(32).hex()
    meta = TableMeta(
        id=new_id, game=old.game, status="open", name=old.name, options=dict(old.options),
        seats=rematch_seats(old.seats), contributions=[""] * n,
        commitment=commitment(server_seed), server_seed=server_seed, created_at=time.time(),
        tokens=[""] * n, owner=token_hash(owner_token), invite=old.invite, rematch_of=old.id,
        time_control=clocks.for_table(old.time_control, old.private), rated=old.rated,
        name_salts=new_name_salts(n))
    meta.head = genesis(meta.id, meta.commitment).hex()
    return meta


class _Claimed(Exception):
    def __init__(self, table_id: str) -> None:
        super().__init__(table_id)
        self.table_id = table_id


async def _raw_meta(svc: Service, table_id: str) -> dict[str, str]:
    try:
        return await svc.store.load_meta(table_id)
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        raise Unavailable(str(e)) from None


async def claim(svc: Service, old_id: str) -> str:
    """The rematch id of ``old_id``: the stored one, or a new one stored now (atomic)."""
    candidate = secrets.token_urlsafe(9)

    def change(meta: TableMeta) -> dict[str, str]:
        if meta.rematch:
            raise _Claimed(meta.rematch)
        meta.rematch = candidate
        return {"rematch": candidate}

    try:
        # "running" too: the game is over but its end may not be marked yet.
        await svc.tables.lobby.change(old_id, change, statuses=("running", "ended"))
    except _Claimed as c:
        return c.table_id
    return candidate


async def ensure(svc: Service, old: TableMeta, new_id: str, owner_token: str) -> bool:
    """Create the rematch table unless it exists; True when this call created it."""
    meta = new_meta(old, new_id, owner_token)
    try:
        created = await svc.store.create_new(new_id, meta.to_fields(),
                                             svc.settings.idle_expiry)
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        raise Unavailable(str(e)) from None
    if created:
        await svc.tables.lobby.index(meta)  # the lobby lists (a private rematch is never listed)
    return created


async def take_seat(svc: Service, new_id: str, seat: int, token: str, player_seed: str
                    ) -> TableMeta:
    """Give ``seat`` of the rematch to ``token`` (idempotent for the same token); the
    account of the seat (kept from the old table) holds it, as after a join with a
    session (``/api/me/tables``, "my games"), and a rated rematch freezes it at its start
    like any rated table."""
    h = token_hash(token)
    meta = TableMeta.from_fields(new_id, await _raw_meta(svc, new_id))

    def change(m: TableMeta) -> dict[str, str]:
        if m.tokens[seat] == h:
            return {}
        if not m.waiting(seat):
            raise LobbyError(409, "seat_taken", f"seat {seat} of the rematch is taken")
        m.tokens[seat] = h
        m.contributions[seat] = player_seed
        m.seats[seat].since = int(m.version)  # who sat longest, if the host leaves
        return {f"tok:{seat}": h, "contributions": json.dumps(m.contributions),
                "seats": m.seats_json()}

    if meta.tokens[seat] != h:  # else asked again: only the hold is repeated
        meta = await svc.tables.lobby.change(new_id, change)
    account = meta.seats[seat].account
    if account:
        held: dict[str, object] = {"seat": seat, "token": token}
        if meta.is_owner(token):
            held["owner"] = token
        await svc.hold(account, new_id, held)
    return meta


@guarded
@by_seat
async def rematch(request: Request) -> Response:
    """``POST /api/tables/{id}/rematch`` (see the module docstring). Answers
    ``{"table": summary of the rematch, "seat", "token", "owner": bool}``; 401
    ``bad_token`` (no seat's token), 403 ``seat_handed_over`` (the seat plays as a bot),
    409 ``not_ended``, 404 ``no_table``."""
    svc = svc_of(request)
    token = bearer(request)
    req = protocol.parse_body(protocol.Rematch, await body(request))
    table = await table_or_404(request)
    old_fields = await _raw_meta(svc, table.id)
    if not old_fields:
        raise LobbyError(404, "no_table", f"no table {table.id!r}")
    old = TableMeta.from_fields(table.id, old_fields)
    seat, key = old.seat_of(token), token
    session = csrf.session_of(request)
    if token is None and session is not None and token_auth.by_token(request):
        # An API token asks for its account's seat; the new seat token is derived from
        # the API token's own text, which the server never stores (only its hash): a
        # copy of Redis derives no seat from it. Asking again with the same API token
        # gives the same seat token; revoking the token withdraws it (token_seats).
        seat = old.account_seat(session.account.uid)
        key = None if seat is None else "api:" + (token_auth.api_bearer(request) or "")
        bot_accounts.require_bot(session.account, old.rated, True)
    if seat is None or key is None:
        raise LobbyError(401, "bad_token", "only a player of this table may ask for a rematch")
    if old.seats[seat].kind == "bot":
        raise LobbyError(403, "seat_handed_over",
                         "your seat was handed to a bot; its bot comes along to the rematch")
    if old.status != "ended" and not table.game_over():
        raise LobbyError(409, "not_ended", "a rematch is offered once the game has ended")
    new_id = old.rematch or await claim(svc, old.id)
    new_token = rematch_token(key, new_id)
    if await ensure(svc, old, new_id, new_token):
        log.info("rematch created", table=old.id, rematch=new_id)
    new_seat = rotated(seat, len(old.seats))
    await token_auth.placed(svc, request, new_id, new_token)
    meta = await take_seat(svc, new_id, new_seat, new_token, req.player_seed)
    if meta.status == "open" and all(s.kind is not None and not meta.waiting(i)
                                     for i, s in enumerate(meta.seats)):
        try:
            meta = await svc.tables.lobby.start_game(new_id, new_token)
        except LobbyError as e:
            if e.code != "started":  # a concurrent last accept started it
                raise
            meta = TableMeta.from_fields(new_id, await _raw_meta(svc, new_id))
    return JSONResponse({"table": meta.summary(), "seat": new_seat, "token": new_token,
                         "owner": meta.is_owner(new_token)})


ROUTES = [Route("/api/tables/{id}/rematch", rematch, methods=["POST"])]
