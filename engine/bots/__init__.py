"""Bots for Einauge: ``random``, ``greedy`` and ``mcts``, one module each.

Every bot decides from an ``Observation`` (what its seat may know) and a ``Budget``:
``bot.act(observe(state, seat), budget)``; ``bot.choose(game, state, seat)`` does the
observing for callers that hold the state (self-play, the server). Create any kind by name
with ``make_bot(kind, seed, level=…)``.
"""

from engine.bots.base import Bot, Budget
from engine.bots.greedy import GreedyBot
from engine.bots.mcts import MctsBot
from engine.bots.random_bot import RandomBot
from engine.bots.registry import KINDS, MCTS_LEVELS, make_bot
from engine.einauge.observation import Observation, observe

__all__ = ["KINDS", "MCTS_LEVELS", "Bot", "Budget", "GreedyBot", "MctsBot", "Observation",
           "RandomBot", "make_bot", "observe"]
