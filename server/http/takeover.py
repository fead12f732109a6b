"""HTTP calls that change who plays a seat during a game (docs/protocol.md §1):
claim an abandoned seat, resign, take a seat back, and the creator's handover.

Each checks the caller's token, asks server/play/seat_rules.py whether the change is allowed
on the table as it is now, and stores the resulting seat-control event with
``Actions.change_control`` (expected seq: of two racing claims exactly one is stored).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine.game import Message
from server.bots import kinds as bots
from server.errors import LobbyError, confirmed
from server.http.common import (
    bearer,
    body,
    by_seat,
    guarded,
    seat_index,
    svc_of,
    table_or_404,
)
from server.play import roles, seat_rules
from server.play.presence import SeatPresence
from server.table.live import LiveTable

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

Build = Any


def _checked(rule: Any) -> Message:
    try:
        return rule()
    except seat_rules.Refusal as e:
        raise LobbyError(e.status, e.code, e.message) from None


async def _player(request: Request) -> tuple[Any, LiveTable, int]:
    svc = svc_of(request)
    table = await table_or_404(request)
    seat = table.meta.seat_of(bearer(request))
    if seat is None:
        raise LobbyError(401, "bad_token", "this token holds no seat at this table")
    if table.seq == 0:
        raise LobbyError(409, "not_started", "the game has not started yet")
    return svc, table, seat


async def _replacement(request: Request, svc: Service, table: LiveTable) -> tuple[str, int | None]:
    """The service's replacement bot (``CARDTABLE_REPLACEMENT_BOT``). A claim's body must be
    empty (``{}`` or none): a claimant choosing the bot of a rival's seat would pick the
    weakest (``random``) or the costliest (``mcts`` 4, on the server's CPU). Raises
    ``LobbyError`` 400 ``bad_message`` for any field."""
    raw = await body(request)
    if raw != {}:
        raise LobbyError(400, "bad_message", "a claim takes no body: the service's "
                                             "replacement bot plays a claimed seat")
    kind = bots.replacement(table.meta.game, svc.settings.replacement_bot)
    return kind, bots.effective_level(kind, None)


def _by(table: LiveTable, seat: int) -> str | None:
    return table.control.by(seat, table.meta.seats[seat].kind)


def _presence(svc: Service, table: LiveTable, fields: dict[str, str], seat: int,
              now: int) -> SeatPresence:
    """``seat``'s presence as the seats panel shows it at ``now`` (server/play/attendance.py)."""
    shown = svc.attendance.message(table, fields, now)["seats"][seat]
    return SeatPresence(seat, shown["state"], shown["since"])


def _over(table: LiveTable) -> bool:
    return table.game_over()


@guarded
@by_seat
async def claim(request: Request) -> Response:
    """``POST /api/tables/{id}/seats/{seat}/claim`` (a seated player's token; no body):
    hand a seat whose player is gone to the service's replacement bot."""
    svc, table, actor = await _player(request)
    target = seat_index(table.meta, request.path_params["seat"])
    kind, level = await _replacement(request, svc, table)
    fields = await confirmed(svc.attendance.read(table))

    def build(t: LiveTable) -> list[Message]:
        now = svc.tables.now()
        pres = _presence(svc, t, fields, target, now)
        return [_checked(lambda: seat_rules.claim(
            actor, _by(t, actor), t.control.resigned(actor), pres, _by(t, target),
            t.tc.claim_after, now, _over(t), kind, level))]

    await svc.tables.actions.change_control(table, build)
    return JSONResponse(table.meta.summary())


@guarded
@by_seat
async def resign(request: Request) -> Response:
    """``POST /api/tables/{id}/resign`` (the seat's token)."""
    svc, table, seat = await _player(request)
    kind = bots.replacement(table.meta.game, svc.settings.replacement_bot)
    level = bots.effective_level(kind, None)

    def build(t: LiveTable) -> list[Message]:
        return [_checked(lambda: seat_rules.resign(seat, t.control.resigned(seat), _over(t),
                                                   kind, level))]

    await svc.tables.actions.change_control(table, build)
    return JSONResponse(table.meta.summary())


@guarded
@by_seat
async def take_back(request: Request) -> Response:
    """``POST /api/tables/{id}/return`` (the seat's token): play the seat again."""
    svc, table, seat = await _player(request)

    def build(t: LiveTable) -> list[Message]:
        return [_checked(lambda: seat_rules.take_back(seat, _by(t, seat),
                                                      t.control.resigned(seat), _over(t)))]

    await svc.tables.actions.change_control(table, build)
    return JSONResponse(table.meta.summary())


async def handover(svc: Service, table: LiveTable, raw_seat: Any, kind: str, level: int | None,
                   token: str | None) -> Response:
    """The host's handover of a gone person's seat to a bot during the game
    (``roles.require_hand_over``, ``seat_rules.handover``)."""
    seat = seat_index(table.meta, raw_seat)
    roles.require_hand_over(table.meta, token, seat)
    fields = await confirmed(svc.attendance.read(table))

    def build(t: LiveTable) -> list[Message]:
        now = svc.tables.now()
        pres = _presence(svc, t, fields, seat, now)
        return [_checked(lambda: seat_rules.handover(
            t.meta.seat_of(token), pres, _by(t, seat), t.tc.claim_after, now, _over(t),
            kind, level))]

    await svc.tables.actions.change_control(table, build)
    return JSONResponse(table.meta.summary())


ROUTES = [
    Route("/api/tables/{id}/seats/{seat}/claim", claim, methods=["POST"]),
    Route("/api/tables/{id}/resign", resign, methods=["POST"]),
    Route("/api/tables/{id}/return", take_back, methods=["POST"]),
]
