"""A tournament's state and its transitions, pure: the JSON stored under one key
(``server.tournaments.store``), changed only by the methods here, each a function of the
state and the time passed in.

Life: ``scheduled`` (people join and withdraw) → ``running`` (at ``starts_at``, or when
the creator starts it) → ``finished``; ``cancelled`` when it is due with fewer players
than a table seats. ``advance(now)`` is the one step every process's loop takes: it
starts a due tournament, plans the next Swiss round once every board of the current one
is done (or, in an arena, new tables for the players not at one), and finishes it. A plan
is a list of boards with their table ids (``board_table_id``: derived from the secret, so
every process names the same tables) written in the same compare-and-set as the round
number: a round is claimed once, and whoever comes next creates the tables still missing
(``server.tournaments.boards``).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Set
from dataclasses import asdict, dataclass, field
from typing import Any

from server.errors import LobbyError
from server.tournaments import pairing
from server.tournaments.standings import Board, Row, game_points, met, standings

KINDS = ("swiss", "arena")
MAX_PLAYERS = 64
MAX_ROUNDS = 15
MAX_MINUTES = 240
OPEN = ("scheduled", "running")


def board_table_id(secret: str, tournament: str, round_no: int, board: int) -> str:
    """The id of a board's table (12 URL-safe characters like every table's): the same
    on every process, unguessable without the tournament's ``secret``."""
    digest = hashlib.sha256(f"{secret}:{tournament}:{round_no}:{board}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:9]).decode()


@dataclass
class Entry:
    """One player who joined: account id, name, joining order, withdrawn or not."""

    uid: str
    name: str
    joined: int
    withdrawn: bool = False


@dataclass
class BoardState:
    """One table of a round (``table`` '' : a bye). ``status``: ``planned`` (its table may
    not exist yet), ``playing``, ``done`` (``places`` set)."""

    table: str
    round: int
    players: list[str]
    status: str = "planned"
    places: list[int] | None = None


@dataclass
class Tournament:
    """The stored state (see the module docstring). Times are ms since the epoch."""

    id: str
    name: str
    creator: str
    creator_name: str
    kind: str
    game: str
    options: dict[str, Any]
    time_control: dict[str, Any]
    seats: int
    starts_at: int
    rated: bool
    secret: str
    created_at: int
    rounds: int = 0
    minutes: int = 0
    status: str = "scheduled"
    round: int = 0
    ends_at: int = 0
    finished_at: int = 0
    players: list[Entry] = field(default_factory=list)
    boards: list[BoardState] = field(default_factory=list)

    # ---- storage -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tournament:
        d = dict(data)
        d["players"] = [Entry(**e) for e in d.get("players", [])]
        d["boards"] = [BoardState(**b) for b in d.get("boards", [])]
        return cls(**d)

    # ---- who plays ----------------------------------------------------------------------

    def entry(self, uid: str) -> Entry | None:
        return next((e for e in self.players if e.uid == uid), None)

    def active(self) -> list[str]:
        """The players not withdrawn, in joining order."""
        return [e.uid for e in self.players if not e.withdrawn]

    def join(self, uid: str, name: str) -> None:
        """Add the account (or take back its withdrawal). Raises ``LobbyError``: 409
        ``finished`` once it is over, ``last_round`` when a Swiss tournament's last round
        has started, ``joined`` when it plays already, ``full`` at ``MAX_PLAYERS``."""
        if self.status not in OPEN:
            raise LobbyError(409, "finished", "the tournament is over")
        if self.kind == "swiss" and self.status == "running" and self.round >= self.rounds:
            raise LobbyError(409, "last_round", "the last round has started")
        e = self.entry(uid)
        if e is not None and not e.withdrawn:
            raise LobbyError(409, "joined", "you play in this tournament already")
        if e is not None:
            e.withdrawn = False
            return
        if len(self.players) >= MAX_PLAYERS:
            raise LobbyError(409, "full", f"at most {MAX_PLAYERS} players")
        self.players.append(Entry(uid, name, len(self.players)))

    def withdraw(self, uid: str) -> None:
        """Before the start the player leaves the list; during it, it is paired no more
        (its game in progress plays on). Raises ``LobbyError`` 409 ``not_joined`` or
        ``finished``."""
        if self.status not in OPEN:
            raise LobbyError(409, "finished", "the tournament is over")
        e = self.entry(uid)
        if e is None or e.withdrawn:
            raise LobbyError(409, "not_joined", "you do not play in this tournament")
        if self.status == "scheduled":
            self.players = [p for p in self.players if p.uid != uid]
            for i, p in enumerate(self.players):
                p.joined = i
        else:
            e.withdrawn = True

    def rename(self, uid: str, name: str) -> bool:
        """Show the account ``uid`` as ``name`` (a rename or a deletion), as a player and
        as the creator; False when it is neither here or has that name already."""
        changed = False
        e = self.entry(uid)
        if e is not None and e.name != name:
            e.name, changed = name, True
        if self.creator == uid and self.creator_name != name:
            self.creator_name, changed = name, True
        return changed

    # ---- standings ----------------------------------------------------------------------

    def finished_boards(self) -> list[Board]:
        return [Board(tuple(b.players), tuple(b.places)) for b in self.boards
                if b.status == "done" and b.places is not None]

    def rows(self) -> list[Row]:
        return standings([e.uid for e in self.players], self.finished_boards(), self.kind)

    # ---- the step -----------------------------------------------------------------------

    def due(self, now: int) -> bool:
        """Would ``advance(now)`` change anything (besides results, which come from the
        tables)?"""
        return self._ready(now, ending=True)

    def _ready(self, now: int, ending: bool) -> bool:
        """The one check behind ``due`` and ``may_plan``: a scheduled tournament at or past
        its start; a running Swiss with no open board; a running arena before ``ends_at``
        with a table's worth (``seats``) of active players at no open board, and with
        ``ending`` also one at or past ``ends_at`` whose boards have all ended (it
        finishes). False for any other status."""
        if self.status == "scheduled":
            return now >= self.starts_at
        if self.status != "running":
            return False
        open_boards = [b for b in self.boards if b.status != "done"]
        if self.kind == "swiss":
            return not open_boards
        if now >= self.ends_at:
            return ending and not open_boards
        busy = {p for b in open_boards for p in b.players}
        return sum(p not in busy for p in self.active()) >= self.seats

    def start(self, now: int) -> None:
        """Start now (due, or asked by the creator): ``running``, or ``cancelled`` with
        fewer active players than ``seats``."""
        if len(self.active()) < self.seats:
            self.status, self.finished_at = "cancelled", now
            return
        self.status = "running"
        self.starts_at = min(self.starts_at, now)
        if self.kind == "arena":
            self.ends_at = now + self.minutes * 60_000

    def may_plan(self, now: int) -> bool:
        """True when ``advance(now)`` may plan boards (then its caller reads whom the
        players blocked): a due or running tournament with no open board (Swiss) or a
        table's worth of players at no table before the end (arena)."""
        return self._ready(now, ending=False)

    def advance(self, now: int, avoid: Mapping[str, Set[str]] = pairing.NOBODY
                ) -> list[BoardState]:
        """One step at ``now`` (module docstring); returns the boards it planned.
        ``avoid``: each player's blocks both ways (``pairing``), kept apart where the
        pairing has a choice."""
        if self.status == "scheduled" and now >= self.starts_at:
            self.start(now)
        if self.status != "running":
            return []
        open_boards = [b for b in self.boards if b.status != "done"]
        if self.kind == "swiss":
            if open_boards:
                return []
            if self.round >= self.rounds or len(self.active()) < self.seats:
                self.status, self.finished_at = "finished", now
                return []
            return self._plan_swiss(avoid)
        if now >= self.ends_at:
            if not open_boards:
                self.status, self.finished_at = "finished", now
            return []
        return self._plan_arena(open_boards, avoid)

    def _order(self) -> list[str]:
        active = set(self.active())
        return [r.player for r in self.rows() if r.player in active]

    def _plan_swiss(self, avoid: Mapping[str, Set[str]]) -> list[BoardState]:
        self.round += 1
        done = self.finished_boards()
        had_bye = {b.players[0] for b in done if len(b.players) == 1}
        tables, byes = pairing.swiss_tables(self._order(), met(done), self.seats, had_bye,
                                            avoid)
        planned = []
        for n, players in enumerate(tables):
            # Who sits first alternates from round to round.
            seated = players if self.round % 2 else list(reversed(players))
            planned.append(BoardState(board_table_id(self.secret, self.id, self.round, n),
                                      self.round, seated))
        planned += [BoardState("", self.round, [p], "done", [1]) for p in byes]
        self.boards += planned
        return [b for b in planned if b.table]

    def _plan_arena(self, open_boards: list[BoardState], avoid: Mapping[str, Set[str]]
                    ) -> list[BoardState]:
        busy = {p for b in open_boards for p in b.players}
        waiting = [p for p in self.active() if p not in busy]
        last: dict[str, set[str]] = {}
        for b in self.boards:  # in order: the latest board of each player wins
            for p in b.players:
                last[p] = {q for q in b.players if q != p}
        tables = pairing.arena_tables(waiting, self._order(), last, self.seats, avoid)
        if not tables:
            return []
        self.round += 1
        planned = [BoardState(board_table_id(self.secret, self.id, self.round, n),
                              self.round, players) for n, players in enumerate(tables)]
        self.boards += planned
        return planned

    def record(self, table: str, places: list[int]) -> bool:
        """A board's game ended in ``places`` (seat order); False when it is not a board
        still open here."""
        for b in self.boards:
            if b.table == table and b.status != "done":
                if len(places) != len(b.players):
                    raise ValueError(f"{len(places)} places for {len(b.players)} players")
                b.status, b.places = "done", list(places)
                return True
        return False

    def mark_playing(self, table: str) -> bool:
        for b in self.boards:
            if b.table == table and b.status == "planned":
                b.status = "playing"
                return True
        return False

    # ---- what anyone may see ------------------------------------------------------------

    def public(self) -> dict[str, Any]:
        """The public form (docs/protocol.md, "Tournaments"): everything but the secret
        and account ids (players are named)."""
        names = {e.uid: e.name for e in self.players}
        withdrawn = {e.uid for e in self.players if e.withdrawn}
        rows = []
        for r in self.rows():
            rows.append({**r.to_dict(), "player": names[r.player],
                         "withdrawn": r.player in withdrawn,
                         "results": r.results})
        boards = []
        for b in self.boards:
            out: dict[str, Any] = {"table": b.table or None, "round": b.round,
                                   "players": [names.get(p, "?") for p in b.players],
                                   "status": b.status, "bye": not b.table}
            if b.places is not None:
                out["places"] = b.places
                out["points"] = [game_points(b.places, i, self.kind)
                                 for i in range(len(b.players))]
            boards.append(out)
        return {"id": self.id, "name": self.name, "kind": self.kind, "game": self.game,
                "options": self.options, "time_control": self.time_control,
                "seats": self.seats, "rated": self.rated, "status": self.status,
                "creator": self.creator_name, "starts_at": self.starts_at / 1000,
                "created_at": self.created_at / 1000,
                "rounds": self.rounds if self.kind == "swiss" else None,
                "minutes": self.minutes if self.kind == "arena" else None,
                "round": self.round,
                "ends_at": self.ends_at / 1000 if self.ends_at else None,
                "finished_at": self.finished_at / 1000 if self.finished_at else None,
                "players": len(self.active()), "standings": rows, "boards": boards}

    def summary(self, player: str | None = None) -> dict[str, Any]:
        """The list row: the public form without standings and boards, with ``winner``
        (the name ranked first once it is finished, else ``None``); with ``player`` (an
        account id) also ``place``: that account's rank (``None``: not in it)."""
        out = self.public()
        first = out["standings"][0]["player"] if out["standings"] else None
        out["winner"] = first if self.status == "finished" else None
        if player is not None:
            out["place"] = next((r.rank for r in self.rows() if r.player == player), None)
        del out["standings"], out["boards"]
        return out
