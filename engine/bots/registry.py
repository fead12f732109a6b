"""``make_bot``: any bot of a game by kind name and level, for the server, the tournament
and tests. The kinds are the game's (``Game.bots``), so a new game or kind needs no change
here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.bots.base import Bot, Budget
from engine.game import Game

MCTS_LEVELS: dict[int, int] = {1: 25, 2: 60, 3: 150, 4: 400}
"""``mcts`` level → iterations per move (with ``ms`` a time limit may end it sooner).

Level 3 (the default) takes about 100-200 ms a move on the machine of docs/bots.md."""

SEARCH_KINDS = frozenset({"mcts"})
"""Kinds that search with an iteration/time budget (they take ``level`` and ``ms``)."""


def _game(game: Game | str | None) -> Game:
    from engine import get_game

    if game is None:  # the engine library's first game; the service always names the game
        return get_game("einauge")
    return get_game(game) if isinstance(game, str) else game


def kinds(game: Game | str | None = None) -> dict[str, type[Bot]]:
    """The bot classes of ``game`` (a ``Game``, its name, or ``None``: the registry's
    default game) by kind name; raises ``KeyError`` for an unknown game name."""
    return dict(_game(game).bots())


def make_bot(kind: str, seed: int | str = 0, *, game: Game | str | None = None,
             level: int | None = None, iterations: int | None = None, ms: float | None = None,
             clock: Callable[[], float] | None = None, **params: Any) -> Bot:
    """A bot of ``kind`` (one of ``kinds(game)``, e.g. ``random``, ``greedy``, ``mcts``)
    with its own seed, for ``game`` (default: Einauge, the library's first game).

    For ``mcts``: ``level`` (1-4, see ``MCTS_LEVELS``; default 3) or ``iterations`` sets the
    iteration budget; ``ms`` with ``clock`` (a function returning seconds, e.g.
    ``time.perf_counter``) adds a time limit per move; other ``params`` go to the bot
    class (``exploration``, …). Other kinds take no level or budget.
    Raises ``ValueError`` for an unknown kind, level or parameter.
    """
    table = kinds(game)
    cls = table.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown bot kind {kind!r}; expected one of: {', '.join(table)}")
    if kind not in SEARCH_KINDS:
        if level is not None or iterations is not None or ms is not None or params:
            raise ValueError(f"a {kind} bot takes no level, budget or parameters")
        return cls(seed)
    if level is not None and iterations is not None:
        raise ValueError("give an mcts bot a level or iterations, not both")
    if level is not None and level not in MCTS_LEVELS:
        raise ValueError(f"mcts level must be one of {sorted(MCTS_LEVELS)}, not {level!r}")
    unknown = set(params) - set(getattr(cls, "PARAMS", ()))
    if unknown:
        raise ValueError(f"unknown mcts parameter(s): {sorted(unknown)}")
    if iterations is None and ms is None:
        iterations = MCTS_LEVELS[level if level is not None else 3]
    budget = Budget(iterations=iterations, ms=ms, clock=clock)
    return cls(seed, budget, **params)
