"""A tournament's boards as tables: made idempotently from the plan, and read back when
their games end.

``ensure(t, board)`` may run on any process, any number of times, for the same board:
the table's id comes from the plan (``model.board_table_id``), ``Store.create_new``
creates it once, the players' seats are held for their accounts (each gets its seat
token from ``GET /api/me/tables/{id}``, as on any table it sits at), and the start is
the ordinary ``TableLobby.start_game`` under the creator's token, which is derived from
the tournament's secret so every process holds it. A second start answers ``started``,
which is what was wanted.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from engine import get_game
from engine.chain import genesis
from engine.shuffle import commitment
from server import metrics
from server.accounts import ratings
from server.errors import LobbyError, Unavailable, confirmed
from server.logging import get_logger
from server.table.lobby import new_name_salts
from server.table.meta import Seat, TableMeta, token_hash
from server.tournaments.model import BoardState, Tournament

if TYPE_CHECKING:  # the service type only: server.app builds the runner with it
    from server.app import Service

log = get_logger("tournaments")


def owner_token(t: Tournament, table_id: str) -> str:
    """The creator's token of a board's table: the same on every process, known only
    to the service (the tournament's secret never leaves Redis)."""
    return hmac.new(t.secret.encode(), f"owner:{table_id}".encode(), hashlib.sha256).hexdigest()


def places_of(result: Any, resigned: list[int]) -> list[int] | None:
    """The places of a finished game as its ratings count them: by the totals, a seat
    that resigned behind all others (``server.accounts.ratings``); ``None`` without
    totals."""
    places = ratings.ranks(result)
    return None if places is None else ratings.resigned_last(places, resigned)


class Boards:
    """Makes and reads the tables of tournaments through the service ``svc``."""

    def __init__(self, svc: Service) -> None:
        self.svc = svc

    async def ensure(self, t: Tournament, board: BoardState, names: dict[str, str]) -> None:
        """The board's table exists, its seats are held for its players, its game has
        started and its row is in the lobby index (``TableLobby.list_row``). Raises
        ``Unavailable``/``LobbyError`` (the next pass retries: each step is idempotent)."""
        tables = self.svc.tables
        tid = board.table
        token = owner_token(t, tid)
        game = get_game(t.game)
        seats = len(board.players)
        server_seed = secrets.token_bytes(32).hex()
        meta = TableMeta(
            id=tid, game=t.game, status="open",
            # The English name for clients that do not read `tournament`; pages word the
            # tournament and round from `tournament` in their reader's language.
            name=f"{t.name} · {'round' if t.kind == 'swiss' else 'game'} {board.round}",
            tournament={"id": t.id, "name": t.name, "kind": t.kind, "round": board.round},
            options=game.check_options(t.options, seats),
            seats=[Seat(name=names[uid], kind="human", since=0, account=uid)
                   for uid in board.players],
            contributions=[""] * seats, commitment=commitment(server_seed),
            server_seed=server_seed, created_at=time.time(),
            # Random seat tokens nobody knows: each player asks for a fresh one.
            tokens=[token_hash(secrets.token_urlsafe(16)) for _ in range(seats)],
            name_salts=new_name_salts(seats), owner=token_hash(token),
            time_control=dict(t.time_control), rated=t.rated)
        meta.head = genesis(meta.id, meta.commitment).hex()
        if await confirmed(tables.store.create_new(tid, meta.to_fields(),
                                                   self.svc.settings.idle_expiry)):
            metrics.TOURNAMENT_TABLES.inc()
            # Logged before the lobby index is written: a pass that fails on the index (or
            # a process killed meanwhile) has still made the table.
            log.info("tournament table created", tournament=t.id, table=tid)
            await tables.lobby.index(meta)
        for seat, uid in enumerate(board.players):
            await self.svc.hold(uid, tid, {"seat": seat})
        try:
            await tables.lobby.start_game(tid, token)
        except LobbyError as e:
            if e.code != "started":
                raise
        # The lobby row, from the stored meta: the writes above are best effort, and once
        # this returns the board is marked playing and no pass comes back to it. So a
        # failed write (of this pass, or of the pass that made the table) fails the pass,
        # the board stays planned, and the next pass writes the row (a versioned write: a
        # row as new or newer is left as it is).
        try:
            await tables.lobby.list_row(await tables.lobby.fresh_meta(tid))
        except RedisError as e:
            raise Unavailable(f"lobby row of {tid}: {e}") from None

    async def result(self, table_id: str) -> list[int] | None:
        """The places of the board's game once its table is marked ended (``None``
        before; all level for a voided game or one without totals), from its meta alone:
        the totals it stored at the end and the seats that resigned. Raises
        ``Unavailable``."""
        meta = await self.svc.tables.peek(table_id, fresh=True)
        if meta is None or meta.status != "ended":
            return None
        level = [1] * len(meta.seats)
        if meta.voided or not meta.scores:
            return level
        resigned = [i for i, s in enumerate(meta.seats) if s.resigned]
        places = places_of({"scores": [{"total": x} for x in meta.scores]}, resigned)
        return places if places is not None else level
