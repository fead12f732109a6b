"""``POST /api/tables/{id}/branch``: play on from a position of a finished game's replay
against bots (docs/protocol.md, "Branch from here").

The caller names the position (``index``: actions played, or ``seq``: the replay
viewer's stream position, the actions begun by then) and the ``seat`` it plays. The
answer is a new table, private (its invite secret goes to the caller alone), casual
(never rated), without a clock, with the caller in that seat and ``BOT_KIND`` bots of
level ``BOT_LEVEL`` in the others, started at once: its first entries are the source's
actions replayed on a deal in which what the seat had not seen is dealt anew from the
new table's seed (``engine.branch``), so the table plays on from that very position.
The new table's meta and record keep where it came from (``branch``: the source table,
the index, the seat and the source's dealt cards, from which ``verify`` recomputes the
deal).

Refused while the source game runs (409 ``not_ended``: its hidden cards are not public
yet), for a bad position or seat (400 ``bad_index``, ``bad_seat``, ``game_over``: there
is nothing to play on after the end), and past ``CARDTABLE_BRANCHES_PER_HOUR`` per client
address and per account (429 ``rate_limited``). Guests may branch. The replay and the
re-deal (a few ms to a second for a long Loot Island game) run in the bot process pool,
never on the event loop.
"""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine.branch import BranchError, BranchPoint, branch_point, deal
from engine.chain import genesis
from engine.shuffle import combine_seed, commitment
from server.bots.kinds import bot_kinds
from server.errors import LobbyError, confirmed
from server.http import csrf, rate
from server.http.common import body, guarded, svc_of, table_or_404
from server.logging import get_logger
from server.table.lobby import new_name_salts
from server.table.meta import Seat, TableMeta, token_hash
from server.ws import protocol

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

log = get_logger("branch")

BOT_KIND = "mcts"
"""The bots of a branched table: the searching kind, the strongest there is."""
BOT_LEVEL = 2
"""Their level: 60 iterations a move (docs/bots.md), about a tenth of a second's work, so
a table that anyone may open in a few clicks stays cheap for the shared bot pool."""
GUEST_NAME = "Guest"
"""A guest's seat name when the request gives none."""


async def _limit(request: Request) -> None:
    """Count the request per client address and per account (429 past the setting)."""
    svc = svc_of(request)
    await rate.per_hour(svc, request, "branch", svc.settings.branches_per_hour,
                        "branch requests", per_account=True)


def action_index(entries: list[dict[str, Any]], seq: int) -> int:
    """The actions begun by stream entry ``seq`` (1-based; 0: none): the replay viewer's
    position as the number of actions played. An action whose first event is at or
    before ``seq`` counts whole (the viewer steps by turns, ending on an action's last
    event)."""
    return sum(1 for e in entries[:seq] if "a" in e)


def branch_seats(point: BranchPoint, name: str, account: Any) -> list[Seat]:
    """The new table's seats: the caller's (an account's username) at ``point.seat``,
    ``BOT_KIND`` bots elsewhere (named as the lobby names bots)."""
    seats = [Seat(name=f"{BOT_KIND.capitalize()} bot {i + 1}", kind="bot", bot=BOT_KIND,
                  level=BOT_LEVEL) for i in range(point.seats)]
    seats[point.seat] = Seat(name=name, kind="human", since=0,
                             account=account.uid if account else None,
                             bot_account=account is not None and account.bot)
    return seats


def _error(e: BranchError) -> LobbyError:
    # A record that does not replay is the service's fault, not the caller's.
    if e.code in ("bad_record", "no_redeal"):
        return LobbyError(500, "internal", e.message)
    return LobbyError(400, e.code, e.message)


@guarded
async def branch(request: Request) -> Response:
    """``POST /api/tables/{id}/branch`` (module docstring): 201 ``{"table": summary,
    "seat", "token", "invite"}`` (the seat token and the private table's invite secret);
    400 ``bad_message``, ``bad_index``, ``bad_seat``, ``game_over``; 404 ``no_table``;
    409 ``not_ended``; 429 ``rate_limited``; 503 ``unavailable``."""
    svc: Service = svc_of(request)
    req = protocol.parse_body(protocol.Branch, await body(request))
    if (req.index is None) == (req.seq is None):
        raise LobbyError(400, "bad_message", "give exactly one of index and seq")
    source = await table_or_404(request)
    if not source.game_over():
        raise LobbyError(409, "not_ended", "a game is branched from once it has ended")
    await _limit(request)
    game_name = source.meta.game
    if BOT_KIND not in bot_kinds(game_name):
        raise LobbyError(400, "bad_bot", f"{game_name} has no {BOT_KIND} bots")
    record = await svc.tables.ending.record(source)
    if req.index is not None:
        index = req.index
    else:
        entries = await confirmed(svc.tables.entries(source.id, source.meta))
        index = action_index(entries, req.seq)
    pool = svc.bots.pool
    try:
        point = await pool.run(branch_point, record, index, req.seat)
    except BranchError as e:
        raise _error(e) from None
    session = csrf.session_of(request)
    account = session.account if session is not None else None
    name = account.username if account else (req.name or GUEST_NAME)
    meta, token, invite = new_meta(source.id, point, name, account, req.player_seed)
    try:
        dealt = await pool.run(deal, point, meta.players(),
                               combine_seed(meta.server_seed, meta.contributions))
    except BranchError as e:
        raise _error(e) from None
    await confirmed(svc.store.create_new(meta.id, meta.to_fields(), svc.settings.idle_expiry))
    if account is not None:
        await svc.hold(account.uid, meta.id, {"seat": point.seat, "token": token,
                                              "owner": token})
    meta = await svc.tables.lobby.start_game(meta.id, token, invite, steps=dealt.steps)
    log.info("table branched", table=meta.id, source=source.id, index=point.index,
             seat=point.seat)
    return JSONResponse({"table": meta.summary(), "seat": point.seat, "token": token,
                         "invite": invite}, status_code=201)


def new_meta(source_id: str, point: BranchPoint, name: str, account: Any,
             player_seed: str) -> tuple[TableMeta, str, str]:
    """The branched table's meta (open, about to start), the caller's seat token (also the
    owner's) and the invite secret."""
    n = point.seats
    server_seed = secrets.token_bytes(32).hex()
    token, invite = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
    contributions = [""] * n
    contributions[point.seat] = player_seed
    tokens = [""] * n
    tokens[point.seat] = token_hash(token)
    meta = TableMeta(
        id=secrets.token_urlsafe(9), game=point.game, status="open", name="",
        options=dict(point.options), seats=branch_seats(point, name, account),
        contributions=contributions, commitment=commitment(server_seed),
        server_seed=server_seed, created_at=time.time(), tokens=tokens,
        name_salts=new_name_salts(n), owner=token_hash(token), invite=token_hash(invite),
        time_control={}, rated=False, branch={"table": source_id, **point.to_dict()})
    meta.head = genesis(meta.id, meta.commitment).hex()
    return meta, token, invite


ROUTES = [Route("/api/tables/{id}/branch", branch, methods=["POST"])]
