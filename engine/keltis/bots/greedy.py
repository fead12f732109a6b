"""``greedy`` for Keltis: one-step lookahead, averaged over samples of the hidden cards.

For each legal action the bot plays it on ``SAMPLES`` states drawn consistently with its
observation (``Game.sample``: other hands and the deck dealt at random from the cards it
has not seen), and keeps the action with the best mean margin (``heuristic``: its value
minus the best other seat's). A deck draw is thus valued at the mean of the cards it may
bring. Ties go to the first action in the rules' order; deterministic for a seed.
"""

from __future__ import annotations

import random

from engine.bots.base import Bot, Budget, Observation, require_legal
from engine.game import Message
from engine.keltis import observation as obs_mod
from engine.keltis import rules
from engine.keltis.bots.heuristic import margin, values

SAMPLES = 6
"""Hidden-card samples each action is valued on."""


class GreedyBot(Bot):
    """The one-step sampling bot of the module docstring; the budget is ignored."""

    kind = "greedy"

    def __init__(self, seed: int | str = 0, budget: Budget | None = None) -> None:
        super().__init__(seed, budget)
        self.rng = random.Random(seed)

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """The greedy choice among ``obs.legal``; raises ``ValueError`` if there is none."""
        legal = require_legal(obs)
        if len(legal) == 1:
            return legal[0]
        seat = obs.seat
        best, best_value = legal[0], -1e18
        samples = [obs_mod.sample(obs, self.rng) for _ in range(SAMPLES)]
        for action in legal:
            total = 0.0
            for base in samples:
                s = base.copy()
                rules.play(s, action)
                total += margin(values(s), seat)
            if total > best_value:
                best, best_value = action, total
        return best
