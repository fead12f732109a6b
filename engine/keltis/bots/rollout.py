"""A short playout that carries a search leaf past the next plays before it is valued.

Valued as it stands, a leaf reached after a lay or a discard looks no further than
``greedy`` does: the search then mostly repeats greedy's choice (docs/bots.md, "Keltis").
``playout(state, plays)`` plays on, in place, for up to ``plays`` plays (play steps and
final-turn steps; the draws in between do not count): each mover takes the action that
makes its own ``heuristic.player_value`` largest in this state, and every draw takes the
deck's top card (the first draw the rules list; a discard pile only when the deck is
empty). The state is a sample of the searching seat's observation (``Game.sample``), so
the mover "sees" a sampled hand and deck, never the real hidden cards.
"""

from __future__ import annotations

from engine.game import Message
from engine.keltis import rules
from engine.keltis.bots.heuristic import DECK_START, player_value
from engine.keltis.state import State

PLAYS = 2
"""Plays a leaf is carried on by (measured in docs/bots.md, "Keltis")."""
_MOVING = frozenset({"play", "draw", "final"})


def best_play(state: State, seat: int, legal: list[Message]) -> Message:
    """The action of ``legal`` after which ``seat``'s ``player_value`` is largest (ties:
    the first in the rules' order); an action that ends the game ranks by the final
    total of ``seat``."""
    left = state.deck_count / DECK_START
    free = frozenset(state.stones)
    best, best_value = legal[0], -1e18
    for action in legal:
        s = state.copy()
        rules.play(s, action)
        if s.result is not None:
            value = float(s.result["scores"][seat]["total"])
        else:
            value = player_value(s.players[seat], left, free)
        if value > best_value:
            best, best_value = action, value
    return best


def playout(state: State, plays: int = PLAYS) -> None:
    """Play ``state`` on in place for up to ``plays`` plays (module docstring): it stops
    right after the last of them (before that play's refill), or at the end of the game."""
    done = 0
    while done < plays and state.step in _MOVING:
        seat: int = state.current_seat  # type: ignore[assignment]
        legal = rules.legal_actions(state, seat)
        if state.step == "draw":
            rules.play(state, legal[0])
            continue
        rules.play(state, best_play(state, seat, legal))
        done += 1
