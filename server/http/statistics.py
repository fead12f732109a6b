"""An account's statistics and game history (docs/protocol.md §1, "Statistics"): the
HTTP shell over ``server.accounts.statistics``. Read only; errors as in
``server.http.lobby``. A private table counts only in the account's own view of itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.accounts import statistics
from server.accounts.accounts import Account
from server.errors import LobbyError
from server.http import csrf
from server.http.accounts import from_store
from server.http.common import game_named, guarded, svc_of
from server.table.meta import DELETED, TableMeta

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service

HISTORY_TABLES = 1000
"""The newest tables of an account read for its statistics (its table index holds every
table it sat at that Redis still has: finished tables leave with the retention,
docs/operations.md)."""
PAGE = 50
"""Rows of the history per page, at most."""
TEXT_MAX = 64
"""Characters of a name or search text, at most."""


def _opponents(meta: TableMeta, me: int) -> list[dict[str, Any]]:
    # An account's seat stays its own while a bot plays it on (a resignation, a time-out).
    return [{"seat": i, "name": s.name,
             "kind": ("account" if s.account and s.account != DELETED else
                      "bot" if s.kind == "bot" else "guest")}
            for i, s in enumerate(meta.seats) if i != me]


async def _rows(svc: Service, account: Account, own: bool
                ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The account's finished tables, newest first, as ``statistics`` rows, and its
    rating notes by table (private tables in neither unless ``own``)."""
    ids = await from_store(svc.account_store.game_ids(account.uid, HISTORY_TABLES))
    metas = await from_store(svc.account_store.table_metas(ids)) if ids else []
    rated = await from_store(svc.account_store.rated_history(account.uid))
    out = []
    for table_id, fields in zip(ids, metas, strict=True):
        if not fields:
            continue
        meta = TableMeta.from_fields(table_id, fields)
        if meta.private and not own:
            rated.pop(table_id, None)
            continue
        if meta.status != "ended":
            continue
        mine = [i for i, s in enumerate(meta.seats) if s.account == account.uid]
        if not mine:
            continue
        out.append({**meta.summary(), "my_seat": mine[0],
                    "opponents": _opponents(meta, mine[0])})
    return out, rated


async def _subject(request: Request) -> tuple[Account, bool]:
    """The account named in the path (404 ``no_player``) and whether the session is it."""
    svc = svc_of(request)
    account = await from_store(svc.accounts.by_name(request.path_params["name"]))
    if account is None:
        raise LobbyError(404, "no_player", "no such player")
    session = csrf.session_of(request)
    return account, session is not None and session.account.uid == account.uid


def _text(request: Request, name: str) -> str | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if len(raw) > TEXT_MAX or not raw.isprintable():
        raise LobbyError(400, "bad_message", f"{name}: at most {TEXT_MAX} printable characters")
    return raw


def _count(request: Request, name: str, default: int, most: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or int(raw) > most:
        raise LobbyError(400, "bad_message", f"{name}: a whole number from 0 to {most}")
    return int(raw)


@guarded
async def player_statistics(request: Request) -> Response:
    """``GET /api/players/{name}/statistics``: ``{"username", "games": {game: {"played",
    "won", "win_rate", "average_score", "best_score", "rating": [{"at", "rating",
    "table"}]}}, "head_to_head": [{"name", "kind", "games", "ahead", "behind",
    "level"}]}`` (at most 50 opponents)."""
    svc = svc_of(request)
    account, own = await _subject(request)
    rows, rated = await _rows(svc, account, own)
    return JSONResponse({"username": account.username,
                         "games": statistics.per_game(rows, rated),
                         "head_to_head": statistics.head_to_head(rows)[:50]})


@guarded
async def player_history(request: Request) -> Response:
    """``GET /api/players/{name}/history?game=&result=won|lost&opponent=&q=&offset=&limit=``:
    ``{"total", "offset", "games": [row]}``, newest first; a row is the table's summary
    with ``my_seat``, ``won``, ``opponents`` and, for a rated game, ``rating_change``
    (400 ``no_game`` for an unknown game, ``bad_message`` for an unknown result, a bad
    count or text)."""
    svc = svc_of(request)
    game = request.query_params.get("game") or None
    if game is not None:
        game_named(game)
    result = request.query_params.get("result") or None
    if result is not None and result not in statistics.RESULTS:
        raise LobbyError(400, "bad_message", "result: won or lost")
    opponent, text = _text(request, "opponent"), _text(request, "q")
    offset = _count(request, "offset", 0, HISTORY_TABLES)
    limit = _count(request, "limit", PAGE, PAGE)
    account, own = await _subject(request)
    everything, rated = await _rows(svc, account, own)
    rows = statistics.history(everything, game=game, result=result, opponent=opponent,
                              text=text)
    page = [{**r, "won": statistics.won(r),
             **({"rating_change": rated[r["id"]]} if r["id"] in rated else {})}
            for r in rows[offset:offset + limit]]
    return JSONResponse({"total": len(rows), "offset": offset, "games": page})


ROUTES = [
    Route("/api/players/{name}/statistics", player_statistics, methods=["GET"]),
    Route("/api/players/{name}/history", player_history, methods=["GET"]),
]
