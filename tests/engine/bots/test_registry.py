"""``make_bot``: every kind by name, levels, and clear errors for bad requests."""

from __future__ import annotations

import time

import pytest

from engine.bots import MCTS_LEVELS, RandomBot, make_bot
from engine.einauge.bots import GreedyBot, MctsBot


def test_kinds_by_name() -> None:
    assert isinstance(make_bot("random", 1), RandomBot)
    assert isinstance(make_bot("greedy", 1), GreedyBot)
    assert isinstance(make_bot("mcts", 1), MctsBot)
    assert make_bot("mcts", 1).budget.iterations == MCTS_LEVELS[3]


def test_mcts_levels_and_budgets() -> None:
    for level, iterations in MCTS_LEVELS.items():
        assert make_bot("mcts", "s", level=level).budget.iterations == iterations
    bot = make_bot("mcts", "s", ms=200, clock=time.perf_counter)
    assert bot.budget.ms == 200 and bot.budget.iterations is None
    assert make_bot("mcts", "s", iterations=77, exploration=0.3).exploration == 0.3


@pytest.mark.parametrize("kind,kwargs", [
    ("minimax", {}),
    (None, {}),
    ("greedy", {"level": 2}),
    ("random", {"iterations": 10}),
    ("mcts", {"level": 9}),
    ("mcts", {"level": 2, "iterations": 10}),
    ("mcts", {"ms": 100}),
    ("mcts", {"depth": 3}),
    ("mcts", {"iterations": 0}),
])
def test_bad_requests_raise(kind, kwargs) -> None:
    with pytest.raises(ValueError):
        make_bot(kind, 1, **kwargs)


def test_old_import_path_still_works() -> None:
    from engine.bots import RandomBot as Imported

    assert Imported is RandomBot
