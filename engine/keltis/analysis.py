"""What the post-game analysis (``engine.analysis``) needs to know of Keltis: the marks'
thresholds, the events that are chance, and the estimate of every seat's final points.

The one place these are declared for Keltis (docs/bots.md, "Post-game analysis")."""

from __future__ import annotations

from engine.keltis.bots.heuristic import values
from engine.keltis.bots.rollout import playout
from engine.keltis.state import State

MARKS = (1.0, 2.5, 5.0)
"""Loss in points from which a move is an inaccuracy, a mistake, a blunder (winners score
about 15-30; a row's last card is worth 1-3)."""
CHANCE_EVENTS = frozenset({"card_drawn"})
"""Events that take a card from the face-down deck: where luck is measured."""
ITERATION_MS = 2.5
"""About what one search iteration costs here, in ms, and ``ESTIMATE_MS`` one estimate
(a sample, a move, ``points``): the budget per decision becomes a number of iterations and
samples with them, never a clock reading (docs/bots.md, "Post-game analysis")."""
ESTIMATE_MS = 2.0


def points(state: State) -> list[float]:
    """Every seat's expected final points: ``state`` (a sample, changed in place) played on
    by the search's leaf playout (``rollout.playout``), then ``heuristic.values`` (the
    totals once the game is over)."""
    playout(state)
    return values(state)
