"""Bots of any game: the interface (``Bot``, ``Budget``), the generic ``random`` bot and
the registry ``make_bot(kind, seed, game=…)`` over each game's kinds (``Game.bots``).

Every bot decides from its game's observation (what its seat may know) and a ``Budget``:
``bot.act(game.observation(state, seat), budget)``; ``bot.choose(game, state, seat)``
does the observing for callers that hold the state (self-play, the server). A game's own
bots live in its package (``engine/<game>/bots``).
"""

from engine.bots.base import Bot, Budget, Observation
from engine.bots.random_bot import RandomBot
from engine.bots.registry import MCTS_LEVELS, SEARCH_KINDS, kinds, make_bot

__all__ = ["MCTS_LEVELS", "SEARCH_KINDS", "Bot", "Budget", "Observation", "RandomBot",
           "kinds", "make_bot"]
