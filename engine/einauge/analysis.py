"""What the post-game analysis (``engine.analysis``) needs to know of Einauge: the marks'
thresholds, the events that are chance, and the estimate of every seat's final jewels.

The one place these are declared for Einauge (docs/bots.md, "Post-game analysis")."""

from __future__ import annotations

from engine.einauge import rules
from engine.einauge.bots.greedy import best_action
from engine.einauge.bots.heuristic import values
from engine.einauge.state import State

MARKS = (1.0, 3.0, 6.0)
"""Loss in jewels from which a move is an inaccuracy, a mistake, a blunder (a game ends
near 50 jewels for the winner; one card's row payout is 2-6)."""
CHANCE_EVENTS = frozenset({"card_revealed", "ship_revealed"})
"""Events that turn up a face-down card: where luck is measured."""
PLAYOUT = 3
"""Decisions ``points`` plays on by the greedy policy before valuing: the heuristic does
not look at the display, so a card turned up there counts only once someone can buy or
fight it."""
ITERATION_MS = 1.5
"""About what one search iteration costs here, in ms, and ``ESTIMATE_MS`` one estimate
(a sample, a move, ``points``): the budget per decision becomes a number of iterations and
samples with them, never a clock reading (docs/bots.md, "Post-game analysis")."""
ESTIMATE_MS = 7.0


def points(state: State) -> list[float]:
    """Every seat's expected final jewels: ``state`` (a sample, changed in place) played on
    for ``PLAYOUT`` decisions by the greedy policy (``greedy.best_action``), then
    ``heuristic.values`` (the totals once the game is over)."""
    for _ in range(PLAYOUT):
        seat = state.current_seat
        if state.result is not None or seat is None:
            break
        rules.play(state, best_action(state, seat, rules.legal_actions(state, seat)))
    return values(state)
