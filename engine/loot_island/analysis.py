"""What the post-game analysis (``engine.analysis``) needs to know of Loot Island: the
marks' thresholds, the events that are chance, and the estimate of every seat's final
total.

The one place these are declared for Loot Island (docs/bots.md, "Post-game analysis")."""

from __future__ import annotations

from engine.loot_island.mcts import values
from engine.loot_island.rollout import playout
from engine.loot_island.state import State

MARKS = (1.0, 3.0, 6.0)
"""Loss in points from which a move is an inaccuracy, a mistake, a blunder (a gold coin is
1-3, a crown up to 6)."""
CHANCE_EVENTS = frozenset({"event_revealed", "map_card_drawn", "map_deck_reshuffled",
                           "loot_offered", "healers_revealed"})
"""Events that turn up a face-down card (map, loot, event or healer): where luck is
measured."""
ITERATION_MS = 10.0
"""About what one search iteration costs here, in ms, and ``ESTIMATE_MS`` one estimate
(a sample, a move, ``points``): the budget per decision becomes a number of iterations and
samples with them, never a clock reading (docs/bots.md, "Post-game analysis")."""
ESTIMATE_MS = 10.0


def points(state: State) -> list[float]:
    """Every seat's expected final total: ``state`` (a sample, changed in place) played on
    by the search's leaf playout (``rollout.playout``: to the next round), then
    ``mcts.values`` (the totals once the game is over; an eliminated seat counts its
    total as the scoring gives it)."""
    playout(state)
    if state.result is not None:
        return [float(sc["total"] or 0) for sc in state.result["scores"]]
    return values(state)
