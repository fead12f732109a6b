"""Tutorial tables, pure: the chosen deal of each game's first lesson and the meta of a
new tutorial table (docs/games.md, "Tutorials").

A tutorial is a real table: the learner in seat 0, bots of kind ``KIND`` in the other
seats, private (never listed), casual (unrated), clockless. Its deal is chosen: the
server seed is ``tutorial_seed(game)``, fixed and public, and every seed contribution is
empty, so the CONTRACT's shuffle from ``combine_seed`` deals the same cards at every
tutorial table of that game (the lesson's texts are written for that deal). Such a game
proves nothing about fairness: the table says so by its bots' kind (``tutorial``), and it
is never rated.

A ``tutorial`` bot plays as the game's ``plays_as`` kind with a seed that leaves out the
table's id (``server.bots.kinds.bot_seed`` over ``KIND``): its moves are a fixed function
of the learner's, so the lesson's script (the learner's moves the coach asks for) meets
the same answers every time; a learner who strays where the lesson lets them gets a bot
that simply plays on.
"""

from __future__ import annotations

import hashlib
import time

from engine import get_game
from engine.bots import kinds
from engine.chain import genesis
from engine.shuffle import commitment
from server.table.lobby import new_name_salts
from server.table.meta import Seat, TableMeta

KIND = "tutorial"
"""The bot kind of a tutorial table's scripted seats (shown as such in its summary)."""

SEATS = 2
"""Seats of every tutorial table: the learner and one opponent (a short first game)."""

TABLE_NAME = "Tutorial"


def tutorial_seed(game: str) -> str:
    """The fixed, public server seed of ``game``'s tutorial tables: hex SHA-256 of
    ``"cardtable-tutorial:<game>:1"`` (the ``1`` is the lesson's version: a lesson written
    for another deal gets another seed)."""
    return hashlib.sha256(f"cardtable-tutorial:{game}:1".encode()).hexdigest()


def plays_as(game: str) -> str:
    """The kind a ``tutorial`` bot of ``game`` plays as: ``greedy`` when the game has it,
    else ``random``; ``KeyError`` for no such game."""
    return "greedy" if "greedy" in kinds(get_game(game)) else "random"


def table_meta(table_id: str, game: str, name: str, account: str | None,
               bot_account: bool, seat_hash: str, starter_hash: str,
               invite_hash: str) -> TableMeta:
    """The open meta of a tutorial table: ``name`` (with ``account``, ``None`` for a guest)
    in seat 0 holding the seat token hashed ``seat_hash``, ``tutorial`` bots in the others;
    the game's default options; the fixed server seed; private (``invite_hash``), no clock,
    unrated; ``starter_hash`` is the owner's (the token that starts it, kept by nobody).
    Raises ``KeyError`` for no such game."""
    g = get_game(game)
    seats = [Seat(name=name, kind="human", since=0, account=account,
                  bot_account=bot_account and account is not None)]
    seats += [Seat(name=f"Tutorial bot {i + 1}", kind="bot", bot=KIND)
              for i in range(1, SEATS)]
    server_seed = tutorial_seed(game)
    meta = TableMeta(
        id=table_id, game=game, status="open", name=TABLE_NAME,
        options=g.check_options({}, SEATS), seats=seats, contributions=[""] * SEATS,
        commitment=commitment(server_seed), server_seed=server_seed, created_at=time.time(),
        tokens=[seat_hash] + [""] * (SEATS - 1), owner=starter_hash, invite=invite_hash,
        time_control={}, rated=False, name_salts=new_name_salts(SEATS))
    meta.head = genesis(meta.id, meta.commitment).hex()
    return meta


def is_tutorial(meta: TableMeta) -> bool:
    """True for a table whose bots play a lesson's script (``KIND``)."""
    return any(s.kind == "bot" and s.bot == KIND for s in meta.seats)
