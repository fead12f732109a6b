"""``make_bot``: any bot by kind name and level, for the server, the tournament and tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.bots.base import Bot, Budget
from engine.bots.greedy import GreedyBot
from engine.bots.mcts import MctsBot
from engine.bots.random_bot import RandomBot

KINDS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "mcts": MctsBot}
"""Bot classes by kind name."""

MCTS_LEVELS: dict[int, int] = {1: 25, 2: 60, 3: 150, 4: 400}
"""``mcts`` level → iterations per move (with ``ms`` a time limit may end it sooner).

Level 3 (the default) takes about 100-200 ms a move on the machine of docs/bots.md."""


def make_bot(kind: str, seed: int | str = 0, *, level: int | None = None,
             iterations: int | None = None, ms: float | None = None,
             clock: Callable[[], float] | None = None, **params: Any) -> Bot:
    """A bot of ``kind`` (``random``, ``greedy`` or ``mcts``) with its own seed.

    For ``mcts``: ``level`` (1-4, see ``MCTS_LEVELS``; default 3) or ``iterations`` sets the
    iteration budget; ``ms`` with ``clock`` (a function returning seconds, e.g.
    ``time.perf_counter``) adds a time limit per move; other ``params`` go to ``MctsBot``
    (``exploration``). ``random`` and ``greedy`` take no level or budget.
    Raises ``ValueError`` for an unknown kind, level or parameter.
    """
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown bot kind {kind!r}; expected one of: {', '.join(KINDS)}")
    if cls is not MctsBot:
        if level is not None or iterations is not None or ms is not None or params:
            raise ValueError(f"a {kind} bot takes no level, budget or parameters")
        return cls(seed)
    if level is not None and iterations is not None:
        raise ValueError("give an mcts bot a level or iterations, not both")
    if level is not None and level not in MCTS_LEVELS:
        raise ValueError(f"mcts level must be one of {sorted(MCTS_LEVELS)}, not {level!r}")
    unknown = set(params) - {"exploration", "priors", "margin_to"}
    if unknown:
        raise ValueError(f"unknown mcts parameter(s): {sorted(unknown)}")
    if iterations is None and ms is None:
        iterations = MCTS_LEVELS[level if level is not None else 3]
    budget = Budget(iterations=iterations, ms=ms, clock=clock)
    return MctsBot(seed, budget, **params)
