"""The bot kinds of each game, their levels, seeds and the moves made for a seat whose
time ran out: pure functions over the engine's bot registry (engine/bots/registry.py).

Bot kinds are the game's (``Game.bots`` through ``engine.bots.make_bot``), so a new game or
kind needs no server change. Every move is made by a fresh bot seeded ``bot_seed``,
derived from the table's secret server seed: every process picks the same move, and anyone
can check the moves once the record publishes that seed, but nobody can before.
"""

from __future__ import annotations

import hashlib
from typing import Any

from engine import get_game
from engine.bots import MCTS_LEVELS, SEARCH_KINDS, kinds, make_bot
from server.table.core import TableCore

INLINE_KINDS = frozenset({"random"})
"""Kinds fast enough to decide on the event loop; the others search in the pool."""


def bot_kinds(game: str) -> list[str]:
    """The bot kinds a seat of a ``game`` table may hold; ``KeyError`` for no such game."""
    return list(kinds(get_game(game)))


def bot_list(game: str) -> list[dict[str, Any]]:
    """``[{"kind": …, "levels": [...]?}]`` of ``game``: what ``GET /api/games`` lists."""
    return [{"kind": k, **({"levels": sorted(MCTS_LEVELS)} if k in SEARCH_KINDS else {})}
            for k in bot_kinds(game)]


def replacement(game: str, kind: str) -> str:
    """``kind`` (the configured replacement bot) when ``game`` has it, else the game's
    ``greedy``, else ``random`` (every game has it)."""
    offered = bot_kinds(game)
    if kind in offered:
        return kind
    return "greedy" if "greedy" in offered else "random"


def bot_seed(server_seed: str, table_id: str, seat: int, seq: int) -> str:
    """The seed of the bot that makes ``seat``'s move at ``seq`` (the table's seq when it
    decides) at table ``table_id``: hex SHA-256 of
    ``"bot:<server seed>:<table id>:<seat>:<seq>"``.
    The server seed is secret until the end (docs/fairness.md), so before it nobody can
    rerun a bot and infer its hidden hand from which of its legal actions it picked; the
    same in every process, and checkable from the record afterwards."""
    text = f"bot:{server_seed}:{table_id}:{seat}:{seq}"
    return hashlib.sha256(text.encode()).hexdigest()


def make(game: str, kind: str, seed: str, level: int | None) -> Any:
    """A ``game`` bot of ``kind`` with ``seed`` (``bot_seed``); raises ``ValueError``."""
    return make_bot(kind, seed, game=game, level=level)


def check_kind(game: str, kind: str, level: int | None) -> None:
    """Raise ``ValueError`` (with the reason) for a kind/level the game's bots refuse."""
    make(game, kind, "check", level)


DEFAULT_LEVELS = {"mcts": 3}
"""The level ``make_bot`` plays without one (``engine.bots.registry``), shown in summaries."""


def effective_level(kind: str, level: int | None) -> int | None:
    """``level``, or the registry's default level of ``kind`` (``None`` for kinds without
    levels)."""
    return level if level is not None else DEFAULT_LEVELS.get(kind)


QUICK_KINDS = frozenset({"random", "greedy"})
"""Kinds that decide in well under a millisecond: a timed-out move is decided inline."""


def timeout_move(table: TableCore, seat: int, kind: str) -> dict[str, Any]:
    """The move a bot makes for ``seat`` whose time ran out, from what the seat may know
    (``Bot.choose`` observes first), seeded ``bot_seed(…, seat, seq)`` so that every
    process picks the same one. ``kind`` beyond ``QUICK_KINDS`` (or one the game lacks)
    decides as the game's ``greedy``, else ``random`` (a deadline must not wait for a
    search). Raises ``ValueError`` when the seat cannot act."""
    offered = kinds(table.game)
    if kind not in QUICK_KINDS or kind not in offered:
        kind = "greedy" if "greedy" in offered else "random"
    bot = make_bot(kind, bot_seed(table.meta.server_seed, table.id, seat, table.seq),
                   game=table.game)
    return bot.choose(table.game, table.state, seat).to_dict()
