"""``mcts`` for any game with hidden information: single-observer information-set MCTS
(Cowling, Powley & Whitehouse 2012, "SO-ISMCTS") over the Game protocol only.

Each iteration draws a full state consistent with the bot's observation
(``Game.sample``, OpenSpiel's ``resample_from_infostate``: the other hands and the deck
dealt from the cards the seat has not seen), then walks one shared tree whose edges are
actions: at a node it picks, among the actions legal *in this sample*, an untried one or
the one with the best UCB score, where a child's exploration term counts the visits in
which it was available (not its parent's visits: an action of another seat exists only
in the samples that deal them that card). A new leaf is valued by the game's
``evaluate(state) -> [value per seat in 0..1]`` (a finished game: its win shares), and
each node on the path adds the value of the seat that moved into it. The move is the
root child with the most visits. Deterministic for a seed and an iteration budget.

The bot needs the game and an ``evaluate``: a game's package binds them in a subclass
(``engine.keltis.bots.MctsBot``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any, ClassVar

from engine.bots.base import Bot, Budget, Observation, require_legal
from engine.game import Game, Message

DEFAULT_ITERATIONS = 150
EXPLORATION = 0.7
MAX_ITERATIONS_WITH_CLOCK = 1_000_000


class _Node:
    __slots__ = ("avail", "children", "n", "seat", "w")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who moved into this node
        self.children: dict[Message, _Node] = {}
        self.n = 0
        self.w = 0.0
        self.avail = 0


def win_shares(result: dict[str, Any], seats: int) -> list[float]:
    """``1/k`` for each of ``k`` winners, else 0 (CONTRACT ``result.winners``)."""
    winners = result["winners"]
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(seats)]


class IsMctsBot(Bot):
    """SO-ISMCTS (module docstring). Subclasses set ``game`` and ``evaluate``."""

    kind = "mcts"
    PARAMS = ("exploration",)
    """Keyword parameters ``make_bot`` passes on."""
    game: ClassVar[Game]
    evaluate: ClassVar[Callable[[Any], list[float]]]

    def __init__(self, seed: int | str = 0, budget: Budget | None = None,
                 exploration: float = EXPLORATION) -> None:
        super().__init__(seed, budget)
        self.rng = random.Random(seed)
        self.exploration = exploration
        self.last_iterations = 0

    def describe(self) -> dict[str, object]:
        """Kind, budget and exploration constant."""
        b = self.budget
        return {"kind": self.kind, "iterations": b.iterations if b else DEFAULT_ITERATIONS,
                "ms": b.ms if b else None, "exploration": self.exploration}

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """The most visited root action after the budget's iterations (or time); raises
        ``ValueError`` when the seat has no legal action."""
        legal = require_legal(obs)
        self.last_iterations = 0
        if len(legal) == 1:
            return legal[0]
        budget = budget or self.budget or Budget(iterations=DEFAULT_ITERATIONS)
        deadline = budget.deadline()
        clock = budget.clock
        limit = budget.iterations or (MAX_ITERATIONS_WITH_CLOCK if deadline is not None
                                      else DEFAULT_ITERATIONS)
        game, evaluate, rng, c = type(self).game, type(self).evaluate, self.rng, self.exploration
        sample, play, to_move, legal_actions = game.sample, game.play, game.to_move, \
            game.legal_actions
        root = _Node(-1)
        it = 0
        while it < limit:
            if deadline is not None and it and clock() >= deadline:  # type: ignore[misc]
                break
            it += 1
            state = sample(obs, rng)
            node = root
            path = []
            while True:
                seats = to_move(state)
                if not seats:
                    break
                seat = seats[0]
                moves = legal_actions(state, seat) if node is not root else list(legal)
                untried = [m for m in moves if m not in node.children]
                for m in moves:
                    child = node.children.get(m)
                    if child is not None:
                        child.avail += 1
                if untried:
                    move = untried[rng.randrange(len(untried))]
                    child = node.children[move] = _Node(seat)
                    child.avail = 1
                    play(state, move)
                    path.append(child)
                    break
                best, best_score = None, -1.0
                for m in moves:
                    ch = node.children[m]
                    score = ch.w / ch.n + c * math.sqrt(math.log(ch.avail) / ch.n)
                    if score > best_score:
                        best, best_score = m, score
                node = node.children[best]  # type: ignore[index]
                play(state, best)
                path.append(node)
            vals = evaluate(state)
            for n in path:
                n.n += 1
                n.w += vals[n.seat]
        self.last_iterations = it
        return max(legal, key=lambda m: root.children[m].n if m in root.children else -1)
