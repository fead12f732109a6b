"""Keltis's bots: ``greedy`` (one step, sampled hidden cards) and ``mcts`` (the generic
information-set search of ``engine.bots.ismcts``; its leaves are played on by
``rollout`` for a few plays, then valued by ``heuristic``);
``random`` is the generic one of ``engine.bots``. docs/bots.md has their strength."""

from __future__ import annotations

from typing import Any

from engine.bots.base import Observation
from engine.bots.ismcts import IsMctsBot, win_shares
from engine.game import Message
from engine.keltis import rules
from engine.keltis.bots.greedy import GreedyBot
from engine.keltis.bots.heuristic import margin, values, win_estimate
from engine.keltis.bots.rollout import playout
from engine.keltis.observation import sample


def evaluate(state: Any) -> list[float]:
    """Per seat in 0..1: its win share once the game is over, else ``win_estimate``
    after ``rollout.playout`` has carried ``state`` (changed in place) on by
    ``rollout.PLAYS`` plays."""
    playout(state)
    if state.result is not None:
        return win_shares(state.result, len(state.players))
    vals = values(state)
    return [win_estimate(vals, s) for s in range(len(vals))]


PRIOR_SAMPLES = 4
"""Hidden-card samples each root action is valued on for the widening order."""


class MctsSearch(IsMctsBot):
    """Information-set MCTS on Keltis (``engine.bots.ismcts``), with root widening in the
    order of a one-step lookahead (``greedy``'s margin on ``PRIOR_SAMPLES`` samples).
    ``engine.keltis.game.MctsBot`` binds it to the game (``game = KELTIS``)."""
    evaluate = staticmethod(evaluate)
    WIDENING = 0.25

    def root_order(self, obs: Observation, legal: list[Message]) -> list[Message]:
        """``legal`` by the mean heuristic margin after each action, best first (ties:
        the rules' order); samples drawn from ``obs`` with ``self.rng``."""
        samples = [sample(obs, self.rng) for _ in range(PRIOR_SAMPLES)]
        seat = obs.seat
        score: dict[Message, float] = {}
        for action in legal:
            total = 0.0
            for base in samples:
                s = base.copy()
                rules.play(s, action)
                total += margin(values(s), seat)
            score[action] = total
        return sorted(legal, key=lambda a: -score[a])


__all__ = ["GreedyBot", "MctsSearch", "evaluate"]
