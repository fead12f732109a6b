"""``random``: uniform over the legal actions (the baseline every other bot must beat)."""

from __future__ import annotations

import random

from engine.bots.base import Bot, Budget, require_legal
from engine.einauge.observation import Observation
from engine.game import Message


class RandomBot(Bot):
    """Picks uniformly among the legal actions, from its own seeded ``random.Random``.

    Deterministic for a given seed and sequence of observations; the budget is ignored.
    """

    kind = "random"

    def __init__(self, seed: int | str = 0, budget: Budget | None = None) -> None:
        super().__init__(seed, budget)
        self.rng = random.Random(seed)

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """A uniformly random legal action; raises ``ValueError`` if there is none."""
        legal = require_legal(obs)
        return legal[self.rng.randrange(len(legal))]
