"""Einauge's own bots: ``greedy`` (one-ply on the heuristic of ``heuristic``) and ``mcts``
(determinized search over ``candidates``); ``random`` is the generic one of
``engine.bots``. docs/bots.md has their strength."""

from engine.einauge.bots.greedy import GreedyBot
from engine.einauge.bots.mcts import MctsBot

__all__ = ["GreedyBot", "MctsBot"]
