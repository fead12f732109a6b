"""Keltis's bots: ``greedy`` (one step, sampled hidden cards) and ``mcts`` (the generic
information-set search of ``engine.bots.ismcts`` with ``heuristic`` at its leaves);
``random`` is the generic one of ``engine.bots``. docs/bots.md has their strength."""

from __future__ import annotations

from typing import Any

from engine.bots.ismcts import IsMctsBot, win_shares
from engine.keltis.bots.greedy import GreedyBot
from engine.keltis.bots.heuristic import values, win_estimate
from engine.keltis.game import KELTIS


def evaluate(state: Any) -> list[float]:
    """Per seat in 0..1: its win share once the game is over, else ``win_estimate``."""
    if state.result is not None:
        return win_shares(state.result, len(state.players))
    vals = values(state)
    return [win_estimate(vals, s) for s in range(len(vals))]


class MctsBot(IsMctsBot):
    """Information-set MCTS on Keltis (``engine.bots.ismcts``)."""

    game = KELTIS
    evaluate = staticmethod(evaluate)


__all__ = ["GreedyBot", "MctsBot", "evaluate"]
