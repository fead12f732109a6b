"""Bots that play through the generic game interface, seeing only what a seat may see."""

from __future__ import annotations

import random
from typing import Any

from engine.game import Game, Message


class RandomBot:
    """Picks uniformly among the legal actions, from its own seeded ``random.Random``.

    Deterministic for a given seed and sequence of states; it reads nothing but the legal
    actions, so it cannot use hidden information.
    """

    name = "random"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, state: Any, seat: int) -> Message:
        """One legal action for ``seat``; raises ``ValueError`` if it has none."""
        legal = game.legal_actions(state, seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        return legal[self.rng.randrange(len(legal))]
