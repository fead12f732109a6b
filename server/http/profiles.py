"""What players see of each other's games (docs/protocol.md §1, "Accounts"): my games,
profiles, leaderboards, and the ratings at a table. Read only; errors as in
``server.http.lobby``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from server.accounts import ratings
from server.accounts.accounts import DELETED
from server.errors import LobbyError
from server.http.accounts import from_store, need_session
from server.http.common import guarded, svc_of, table_or_404
from server.table.meta import TableMeta

if TYPE_CHECKING:  # the service type only: server.app imports this module
    from server.app import Service


def _game_row(meta: TableMeta, uid: str, history: dict[str, Any]) -> dict[str, Any]:
    # A seat stays its account's while a bot plays it (handover, claim, timeout,
    # resignation: server/table/actions.py keeps ``Seat.account``), so it is still its game.
    mine = [i for i, s in enumerate(meta.seats) if s.account == uid]
    row = {**meta.summary(), "my_seat": mine[0] if mine else None}
    if meta.id in history:
        row["rating_change"] = history[meta.id]
    return row


async def _games(request: Request, uid: str, limit: int) -> dict[str, list[dict[str, Any]]]:
    """The account's tables: ``open``/``running`` (with ``to_move``) and ``finished``."""
    svc = svc_of(request)
    ids = await from_store(svc.account_store.game_ids(uid, limit))
    rows = await from_store(svc.account_store.table_metas(ids)) if ids else []
    history = await from_store(svc.account_store.rated_history(uid))
    # Also drops the clear tokens of rows stored before tokens were kept as hashes.
    await from_store(svc.account_store.all_held(uid))
    out: dict[str, list[dict[str, Any]]] = {"open": [], "running": [], "finished": []}
    for table_id, fields in zip(ids, rows, strict=True):
        if not fields:
            continue  # an open table that expired
        meta = TableMeta.from_fields(table_id, fields)
        row = _game_row(meta, uid, history)
        if row["my_seat"] is None:
            # Left before the start, or never sat down (the account created the table,
            # or held it once): not its game, whatever the table's status.
            continue
        if meta.status == "running":
            table = await svc.tables.get(table_id)
            if table is not None and not table.game_over():
                row["to_move"] = list(table.game.to_move(table.state))
                row["my_turn"] = row["my_seat"] in row["to_move"]
                due = table.deadline()  # the clocks issue's move time (ms), if any runs
                if due is not None:
                    row["deadline"], row["deadline_seat"] = due
                    row["now"] = table.now()
            out["running"].append(row)
        elif meta.status == "ended":
            out["finished"].append(row)
        else:
            out["open"].append(row)
    return out


@guarded
async def my_games(request: Request) -> Response:
    """``GET /api/me/games``: open, running and finished tables of the session's
    account, newest first (see docs/protocol.md)."""
    session = need_session(request)
    return JSONResponse(await _games(request, session.account.uid, 200))


async def _shown_ratings(svc: Service, uid: str) -> dict[str, Any]:
    return {g: ratings.shown(r)
            for g, r in (await from_store(svc.account_store.ratings(uid))).items()}


@guarded
async def profile(request: Request) -> Response:
    """``GET /api/players/{name}``: the account, its ratings per game, its recent
    finished games, private tables left out, and ``left``: how many finished games it
    left, ``{"abandoned", "timed_out"}`` (server/accounts/fairplay.py; 404
    ``no_player``)."""
    svc = svc_of(request)
    account = await from_store(svc.accounts.by_name(request.path_params["name"]))
    if account is None:
        raise LobbyError(404, "no_player", "no such player")
    games = await _games(request, account.uid, 50)
    # A private table is nobody else's business: profiles never list one.
    recent = [g for g in games["finished"] if not g["private"]]
    return JSONResponse({**account.public(), "ratings": await _shown_ratings(svc, account.uid),
                         "recent": recent[:20],
                         "running": sum(not g["private"] for g in games["running"]),
                         "left": await from_store(svc.fair.left_counts(account.uid))})


@guarded
async def leaderboard(request: Request) -> Response:
    """``GET /api/leaderboard/{game}``: up to 100 rated accounts, best first."""
    svc = svc_of(request)
    game = request.path_params["game"]
    rows = await from_store(svc.account_store.leaderboard(game, 100))
    metas = await from_store(svc.account_store.accounts([u for u, _ in rows])) if rows else []
    out = []
    for (uid, _), f in zip(rows, metas, strict=True):
        r = await from_store(svc.account_store.rating(uid, game))
        if not f.get("username") or r is None:
            continue
        out.append({"username": f["username"], "bot": f.get("bot") == "1", **ratings.shown(r)})
    out.sort(key=lambda x: -x["rating"])
    for i, row in enumerate(out):
        row["rank"] = i + 1
    return JSONResponse({"game": game, "players": out})


@guarded
async def table_ratings(request: Request) -> Response:
    """``GET /api/tables/{id}/ratings``: per seat ``{username, rating, games,
    provisional}`` for seats held by an account or a bot (``null`` for guests); on a rated
    table the accounts frozen at its start (a person's seat played by a bot keeps the
    person's). Once a rated game is settled, ``verdict`` (``counted``, ``aborted``,
    ``capped``: server/accounts/fairplay.py) and, when it counted, each seat's ``change``
    ``{before, after}`` (shown ratings) for the end screen."""
    svc = svc_of(request)
    table = await table_or_404(request)
    meta = table.meta
    verdict = (await from_store(svc.fair.verdict(meta.id))
               if meta.rated and meta.status == "ended" else None)
    out: list[dict[str, Any] | None] = []
    for i, s in enumerate(meta.seats):
        # A rated table rates the accounts frozen at its start: a person's seat that a
        # bot plays for now (handover, claim, timeout, resignation) keeps the person's.
        frozen = meta.accounts[i] if meta.rated and i < len(meta.accounts) else None
        bot_uid = ratings.bot_uid(s.bot or "random", s.level) if s.kind == "bot" else None
        uid = frozen or (bot_uid if s.kind == "bot" else s.account)
        if not uid or uid == DELETED:
            out.append(None)
            continue
        r = await from_store(svc.account_store.rating(uid, meta.game))
        is_bot = uid == bot_uid
        name = ratings.bot_name(s.bot or "random", s.level) if is_bot else s.name
        # A bot account's seat (a program plays it) is a bot's too.
        row = {"username": name, "bot": is_bot or (s.bot_account and uid == s.account),
               **ratings.shown(r)}
        if verdict == "counted":
            note = await from_store(svc.fair.rated_note(uid, meta.id))
            if note:
                row["change"] = {"before": note["before"], "after": note["after"]}
        out.append(row)
    return JSONResponse({"rated": meta.rated, "seats": out,
                         **({"verdict": verdict} if verdict else {})})


ROUTES = [
    Route("/api/me/games", my_games, methods=["GET"]),
    Route("/api/players/{name}", profile, methods=["GET"]),
    Route("/api/leaderboard/{game}", leaderboard, methods=["GET"]),
    Route("/api/tables/{id}/ratings", table_ratings, methods=["GET"]),
]
