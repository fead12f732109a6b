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

The bot needs the game and an ``evaluate``: a game's package binds them in subclasses
(``engine.keltis.bots.MctsSearch`` its ``evaluate``, ``engine.keltis.game.MctsBot`` the
game, so the bots never import the game's module). A game whose legal actions are too many to search
(Loot Island: every subset of a hand) also binds ``moves(state, seat)``, a subset of the
legal actions the tree expands, at the root too (computed on the first sample: a seat's
own moves follow from what it sees), ``action_key`` when its actions are not
hashable (they label the tree's edges), and ``ordered`` when ``moves`` come best first.

Progressive widening at the root (``widening`` > 0; Chaslot et al. 2008, "Progressive
strategies for MCTS"): the root's moves are ranked once by ``root_order`` (a game's
cheap prior, best first; by default as given) and after ``t`` iterations only the first
``1 + floor(widening * sqrt(t))`` of them are searched, so a small budget is spent deep
on the likely moves rather than thinly on all of them; a larger budget opens them all.
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
WIDENING = 0.0
"""Root widening (module docstring); 0 searches every root move from the start."""
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
    PARAMS = ("exploration", "widening")
    """Keyword parameters ``make_bot`` passes on."""
    game: ClassVar[Game]
    evaluate: ClassVar[Callable[[Any], list[float]]]
    moves: ClassVar[Callable[[Any, int], list[Message]] | None] = None
    """The moves searched (``None``: all legal actions; the root: ``obs.legal``)."""
    action_key: ClassVar[Callable[[Message], Any] | None] = None
    """A hashable key of an action (``None``: the action itself)."""
    ordered: ClassVar[bool] = False
    """True when ``moves`` lists the moves best first (a prior): a node then expands its
    untried moves in that order instead of at random, so another seat's first reply is
    its likeliest one, not a random one."""
    WIDENING: ClassVar[float] = WIDENING
    """The default ``widening`` of this bot class."""

    def __init__(self, seed: int | str = 0, budget: Budget | None = None,
                 exploration: float = EXPLORATION, widening: float | None = None) -> None:
        super().__init__(seed, budget)
        self.rng = random.Random(seed)
        self.exploration = exploration
        self.widening = type(self).WIDENING if widening is None else widening
        self.last_iterations = 0
        self.last_visits: list[tuple[Message, int]] = []
        """The root moves the last search visited, with their visits (empty: no search)."""

    def describe(self) -> dict[str, object]:
        """Kind, budget, exploration constant and root widening."""
        b = self.budget
        return {"kind": self.kind, "iterations": b.iterations if b else DEFAULT_ITERATIONS,
                "ms": b.ms if b else None, "exploration": self.exploration,
                "widening": self.widening}

    def root_order(self, obs: Observation, moves: list[Message]) -> list[Message]:
        """``moves`` (the root's) ranked best first by a prior, for root widening; here
        as given. A game's bot may override it (with ``self.rng``, never the clock)."""
        return moves

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """The most visited root action after the budget's iterations (or time); raises
        ``ValueError`` when the seat has no legal action."""
        legal = require_legal(obs)
        self.last_iterations = 0
        self.last_visits = []
        if len(legal) == 1:
            return legal[0]
        budget = budget or self.budget or Budget(iterations=DEFAULT_ITERATIONS)
        deadline = budget.deadline()
        clock = budget.clock
        limit = budget.iterations or (MAX_ITERATIONS_WITH_CLOCK if deadline is not None
                                      else DEFAULT_ITERATIONS)
        cls = type(self)
        game, evaluate, rng, c = cls.game, cls.evaluate, self.rng, self.exploration
        sample, play, to_move = game.sample, game.play, game.to_move
        legal_actions = cls.moves or game.legal_actions
        key = cls.action_key or _same
        ordered = cls.ordered
        widening = self.widening
        root_moves = list(legal) if cls.moves is None else None
        if root_moves is not None and widening > 0:
            root_moves = self.root_order(obs, root_moves)
        root_keys: list[Any] = []
        root = _Node(-1)
        it = 0
        while it < limit:
            if deadline is not None and it and clock() >= deadline:  # type: ignore[misc]
                break
            it += 1
            state = sample(obs, rng)
            if root_moves is None:
                root_moves = legal_actions(state, obs.seat)
                if widening > 0:
                    root_moves = self.root_order(obs, root_moves)
            node = root
            path = []
            while True:
                seats = to_move(state)
                if not seats:
                    break
                seat = seats[0]
                if node is root:
                    moves = root_moves
                    keys = root_keys or [key(m) for m in moves]
                    root_keys = keys
                    if widening > 0:
                        width = 1 + int(widening * math.sqrt(it))
                        moves, keys = moves[:width], keys[:width]
                else:
                    moves = legal_actions(state, seat)
                    keys = [key(m) for m in moves]
                children = node.children
                untried = []
                for i, k in enumerate(keys):  # one lookup per move: actions hash field by field
                    child = children.get(k)
                    if child is None:
                        untried.append(i)
                    else:
                        child.avail += 1
                if untried:
                    i = untried[0] if ordered else untried[rng.randrange(len(untried))]
                    child = node.children[keys[i]] = _Node(seat)
                    child.avail = 1
                    play(state, moves[i])
                    path.append(child)
                    break
                best, best_score = 0, -1.0
                for i, k in enumerate(keys):
                    ch = node.children[k]
                    score = ch.w / ch.n + c * math.sqrt(math.log(ch.avail) / ch.n)
                    if score > best_score:
                        best, best_score = i, score
                node = node.children[keys[best]]
                play(state, moves[best])
                path.append(node)
            vals = evaluate(state)
            for n in path:
                n.n += 1
                n.w += vals[n.seat]
        self.last_iterations = it
        final = root_moves or list(legal)

        def visits(m: Message) -> int:
            child = root.children.get(key(m))
            return child.n if child is not None else -1

        self.last_visits = [(m, visits(m)) for m in final if visits(m) >= 0]
        return max(final, key=visits)


def _same(m: Message) -> Message:
    return m
