"""``mcts`` for Loot Island: the generic information-set search (``engine.bots.ismcts``)
over the moves of ``search`` with ``evaluate`` at its leaves (docs/bots.md, "Loot Island"):
a leaf's sample is first played on by ``rollout.playout`` (to the next round, at most
``rollout.DECISIONS`` decisions), then valued by ``estimate``.

``values(state)`` estimates every seat's final total from the state (a sample: the
search plays only on ``Game.sample`` states): its kept loot (``heuristic.loot_value``,
crowns ranked against the others' crosses now), minus its cubes (``heuristic.cube_cost``,
or the healer's exact bill once it has one), plus the loot its discs promise
(``heuristic.board_value``), ``CARD`` per map card in hand before round 5, and the start
marker (``START_MARKER`` once it can no longer move, else ``MARKER``). A seat's value is
then the logistic of its margin over the best other seat (``SCALE`` points); a finished
game gives its win shares.
"""

from __future__ import annotations

import math

from engine.bots.ismcts import IsMctsBot, win_shares
from engine.loot_island.checks import modifier
from engine.loot_island.data import HEALERS, LOOT, MINIMUM, START_MARKER
from engine.loot_island.heuristic import board_value, cube_cost, loot_value
from engine.loot_island.rollout import playout
from engine.loot_island.search import action_key, search_actions
from engine.loot_island.state import State

CARD = 0.5
"""Points a map card in hand is worth before round 5 (greedy's ``CARD``)."""
MARKER = 1.5
"""The start marker while it may still change hands (greedy's ``MARKER``)."""
SCALE = 8.0
"""Points of margin that make a win about 73 % likely."""


def values(s: State) -> list[float]:
    """Every seat's estimated final total in ``s`` (module docstring)."""
    n = len(s.players)
    crosses = [sum(LOOT[c].crosses for c in p.loot) for p in s.players]
    spots = [(x.count, x.chests, tuple(x.discs)) for x in s.landings]
    base = s.options.get("min_cards") or MINIMUM[n]
    minimum = max(1, base + modifier(s, "minimum"))
    big = modifier(s, "big")
    fixed = s.round >= 5 and (s.first_passed or s.phase != "actions")
    card = CARD if s.round < 5 else 0.0
    out = []
    for i, p in enumerate(s.players):
        v = loot_value(p.loot, crosses[:i] + crosses[i + 1:])
        if p.healer is not None:
            h = HEALERS[p.healer]
            v -= h.multiplier * p.cubes + h.fixed
        else:
            v -= cube_cost(p.cubes)
        if s.phase in ("preparation", "actions", "loot", "final_exploration"):
            v += board_value(spots, s.ship, s.round, i, minimum, base, big)
        v += card * len(p.hand)
        if s.start_seat == i:
            v += START_MARKER if fixed else MARKER
        out.append(v)
    return out


def estimate(s: State) -> list[float]:
    """Per seat in 0..1: its win share once the game is over, else the logistic of its
    estimated margin (``values``) over the best other seat; ``s`` is not changed."""
    if s.result is not None:
        return win_shares(s.result, len(s.players))
    vals = values(s)
    out = []
    for i, v in enumerate(vals):
        rival = max(x for j, x in enumerate(vals) if j != i)
        out.append(1.0 / (1.0 + math.exp(-(v - rival) / SCALE)))
    return out


def evaluate(s: State) -> list[float]:
    """The search's leaf value: ``estimate`` after ``rollout.playout`` has carried ``s``
    (a sample, changed in place) on to the next round or by ``rollout.DECISIONS``
    decisions."""
    playout(s)
    return estimate(s)


class MctsSearch(IsMctsBot):
    """Information-set MCTS on Loot Island (``engine.bots.ismcts``), searching the moves
    of ``search.search_actions``; ``engine.loot_island.game.MctsBot`` binds it to the
    game (``game = LOOT_ISLAND``)."""
    evaluate = staticmethod(evaluate)
    moves = staticmethod(search_actions)
    action_key = staticmethod(action_key)
    ordered = True


__all__ = ["MctsSearch", "estimate", "evaluate", "values"]

