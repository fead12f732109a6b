"""``random``: uniform over the legal actions (the baseline every other bot must beat)."""

from __future__ import annotations

import random
from typing import Any

from engine.bots.base import Bot, Budget, Observation, require_legal
from engine.game import Game, Message


class RandomBot(Bot):
    """Picks uniformly among the legal actions, from its own seeded ``random.Random``.

    Deterministic for a given seed and sequence of observations; the budget is ignored.
    """

    kind = "random"

    def __init__(self, seed: int | str = 0, budget: Budget | None = None) -> None:
        super().__init__(seed, budget)
        self.rng = random.Random(seed)

    def choose(self, game: Game, state: Any, seat: int) -> Message:
        """Pick from ``game.legal_actions`` directly: the legal actions are all this bot
        reads, and they are what the seat may know, so a full observation (a copy of the
        public view per move) would only slow self-play down."""
        legal = game.legal_actions(state, seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        return legal[self.rng.randrange(len(legal))]

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """A uniformly random legal action; raises ``ValueError`` if there is none."""
        legal = require_legal(obs)
        return legal[self.rng.randrange(len(legal))]
