"""Loot Island's bots behind ``engine.bots``'s interface: ``greedy`` is the policy of
``engine.loot_island.greedy`` (docs/bots.md, "Loot Island"); ``random`` is the generic one."""

from __future__ import annotations

import random

from engine.bots.base import Bot, Budget, Observation
from engine.game import Message
from engine.loot_island import greedy


class GreedyBot(Bot):
    """``greedy.choose`` on the seat's observation, with its own seeded ``random.Random``
    (the sample's hidden part); the budget is ignored."""

    kind = "greedy"

    def __init__(self, seed: int | str = 0, budget: Budget | None = None) -> None:
        super().__init__(seed, budget)
        self.rng = random.Random(seed)

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """The greedy decision; raises ``ValueError`` when the seat has none pending."""
        return greedy.choose(obs, obs.seat, self.rng)
