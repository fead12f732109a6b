"""``mcts``: information-set Monte Carlo tree search (single-observer ISMCTS).

The bot never sees the deck order. Every iteration it samples one: the face-down island
cards of its observation in a uniformly random order, ships last (``engine.einauge.
determinize``), and plays down one shared tree on that determinization (Cowling, Powley &
Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012):

1. **Select.** At a node, the candidate actions (``engine.bots.candidates``) legal in this
   determinization are considered; every tried one has its availability count raised and
   the one with the best UCB score ``w/n + c·sqrt(ln(availability)/n)`` is played (each
   node keeps the rewards of the seat that chose the action leading to it).
2. **Expand.** The candidates not tried yet at this node each get a child, started with
   one visit worth the heuristic value (``engine.bots.heuristic``) of the state after
   them, and the best of them is this iteration's leaf ("node priors": a new node is
   judged by the heuristic at once instead of by one random child per iteration). With
   ``priors=False``, one untried candidate, in random order, is expanded instead.
3. **Evaluate.** The heuristic turns the leaf state into a 0..1 reward per seat (a
   logistic of its margin over the other seats, from the actual totals once the game is
   over).
   There is no random playout: random play to the end says little in this game and costs
   the budget of many tree iterations.
4. **Back up** each seat's reward along the path.

The move played is the most visited root candidate. The budget is iterations, or
milliseconds read from a clock the caller passes in (the engine has no clock of its own).
Deterministic for a seed when the budget is iterations only.
"""

from __future__ import annotations

import math
import random

from engine.bots.base import Bot, Budget, require_legal
from engine.einauge import rules
from engine.einauge.bots.candidates import candidates
from engine.einauge.bots.heuristic import mean_win_estimate, values, win_estimate
from engine.einauge.determinize import public_state, with_deck
from engine.einauge.observation import Observation
from engine.game import Message

DEFAULT_ITERATIONS = 150
EXPLORATION = 0.3
MAX_ITERATIONS_WITH_CLOCK = 10_000_000


class _Node:
    __slots__ = ("avail", "children", "n", "w")

    def __init__(self) -> None:
        self.children: dict[Message, _Node] = {}
        self.n = 0
        self.w = 0.0
        self.avail = 1


class MctsBot(Bot):
    """ISMCTS (module docstring). ``budget`` defaults to ``DEFAULT_ITERATIONS`` iterations;
    ``exploration`` is the UCB constant ``c``; ``priors`` starts every new child with one
    visit worth its heuristic value (instead of expanding one random child per iteration);
    ``margin_to`` is what a seat's reward measures its value against: the ``mean`` of the
    other seats (default; the same as ``best`` with two players) or the ``best`` other.
    Raises ``ValueError`` for another ``margin_to``."""

    kind = "mcts"

    PARAMS = ("exploration", "priors", "margin_to")
    """Keyword parameters ``make_bot`` passes on."""

    def __init__(self, seed: int | str = 0, budget: Budget | None = None,
                 exploration: float = EXPLORATION, priors: bool = True,
                 margin_to: str = "mean") -> None:
        super().__init__(seed, budget)
        if margin_to not in ("best", "mean"):
            raise ValueError("margin_to must be 'best' or 'mean'")
        self.rng = random.Random(seed)
        self.exploration = exploration
        self.priors = priors
        self.margin_to = margin_to
        self.last_iterations = 0
        """Iterations the last ``act`` ran (for tests and reports)."""

    def describe(self) -> dict[str, object]:
        """Kind, budget and exploration constant."""
        b = self.budget
        return {"kind": self.kind, "iterations": b.iterations if b else DEFAULT_ITERATIONS,
                "ms": b.ms if b else None, "exploration": self.exploration,
                "priors": self.priors, "margin_to": self.margin_to}

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """The most visited root action after the search; raises ``ValueError`` when the
        seat has no legal action."""
        legal = require_legal(obs)
        self.last_iterations = 0
        if len(legal) == 1:
            return legal[0]
        base = public_state(obs)
        root_moves = candidates(base, obs.seat, list(legal))
        if len(root_moves) == 1:
            return root_moves[0]
        budget = budget or self.budget or Budget(iterations=DEFAULT_ITERATIONS)
        deadline = budget.deadline()
        clock = budget.clock
        limit = budget.iterations or (MAX_ITERATIONS_WITH_CLOCK if deadline is not None
                                      else DEFAULT_ITERATIONS)
        root = _Node()
        rng = self.rng
        unseen = list(obs.unseen)
        c = self.exploration
        priors = self.priors
        reward = win_estimate if self.margin_to == "best" else mean_win_estimate
        log = math.log
        sqrt = math.sqrt
        it = 0
        while it < limit:
            if deadline is not None and it and clock() >= deadline:  # type: ignore[misc]
                break
            it += 1
            order = unseen[:]
            rng.shuffle(order)
            s = with_deck(base, obs, order)
            node = root
            path: list[tuple[_Node, int]] = []
            while True:
                seat = s.current_seat
                if seat is None or s.step is None:
                    break
                moves = candidates(s, seat, rules.legal_actions(s, seat))
                children = node.children
                untried = [a for a in moves if a not in children]
                if untried and priors:
                    # Every new child starts with one visit worth its heuristic value; the
                    # best of them is this iteration's leaf.
                    best = None
                    best_r = -1.0
                    for a in untried:
                        t = s.copy()
                        rules.play(t, a)
                        r = reward(values(t), seat)
                        ch = children[a] = _Node()
                        ch.n = 1
                        ch.w = r
                        if r > best_r:
                            best, best_r, best_state = a, r, t
                    for m in moves:
                        if m is not best and m in children:
                            children[m].avail += 1
                    child = children[best]  # type: ignore[index]
                    child.n = 0
                    child.w = 0.0
                    s = best_state
                    path.append((child, seat))
                    break
                if untried:
                    a = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                    child = children[a] = _Node()
                    for m in moves:
                        if m is not a and m in children:
                            children[m].avail += 1
                    rules.play(s, a)
                    path.append((child, seat))
                    break
                best = None
                best_score = -1.0
                for m in moves:
                    ch = children[m]
                    ch.avail += 1
                    score = ch.w / ch.n + c * sqrt(log(ch.avail) / ch.n)
                    if score > best_score:
                        best, best_score = m, score
                child = children[best]  # type: ignore[index]
                rules.play(s, best)  # type: ignore[arg-type]
                path.append((child, seat))
                node = child
            vals = values(s)
            rewards = [reward(vals, i) for i in range(len(vals))]
            for nd, mover in path:
                nd.n += 1
                nd.w += rewards[mover]
        self.last_iterations = it
        best_move, best_key = root_moves[0], (-1, 0.0)
        for m in root_moves:
            ch = root.children.get(m)
            if ch is not None and (ch.n, ch.w / ch.n) > best_key:
                best_move, best_key = m, (ch.n, ch.w / ch.n)
        return best_move
