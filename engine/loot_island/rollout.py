"""A short playout that carries a search leaf on before ``mcts`` values it.

Valued where it stands, a leaf in the middle of phase 2 counts its discs as expected
picks, one a few decisions later counts the same loot as cards and cubes: the estimate
(``mcts.values``) is not the same function of the game in every phase, and a deeper tree
mixes those (docs/bots.md, "Loot Island"). ``playout(state, decisions)`` plays on, in
place, for up to ``decisions`` decisions, or to the end of the round (the next round's
preparation; the end of the game after round 5), whichever comes first: a leaf is then
valued nearer the end of its round, often with the coast's loot found and picked.

Each mover takes ``policy``'s move: the greedy policy's choice (``engine.loot_island.
greedy``) over the search's pruned candidates (``search.candidates``) rather than every
legal action, so a playout decision costs about what the search's move ranking does:
keep the hand in the preparation, the best one-step score in phase 2 (``pass`` scored as
greedy scores it), greedy's pick and healer. The state is a sample of the searching seat's
observation (``Game.sample``), so a mover "sees" a sampled hand and decks, never the real
hidden cards; it reads only its own hand and the public part of the sample.
"""

from __future__ import annotations

from engine.game import Message
from engine.loot_island import actions as ac
from engine.loot_island import greedy, rules
from engine.loot_island.checks import can_act
from engine.loot_island.data import START_MARKER
from engine.loot_island.legal import legal_actions
from engine.loot_island.search import candidates, scored
from engine.loot_island.state import State

DECISIONS = 8
"""Decisions a leaf is carried on by at most (measured in docs/bots.md, "Loot Island")."""


def policy(s: State, seat: int) -> Message:
    """``seat``'s playout move in ``s`` (module docstring), one ``decide`` accepts.
    Raises ``ValueError`` when ``seat`` has no decision pending."""
    if s.current_seat != seat or s.phase == "ended":
        raise ValueError(f"seat {seat} has no decision pending")
    if s.phase == "preparation":
        return ac.Discard(seat, [])
    if s.phase == "actions":
        if not can_act(s, seat):
            return ac.Pass(seat)
        best: Message | None = None
        best_score = 0.0
        for score, move in scored(s, seat, candidates(s, seat)):
            if best is None or score > best_score:  # ties: the first (as greedy)
                best, best_score = move, score
        marker = 0.0 if s.first_passed else START_MARKER if s.round >= 5 else greedy.MARKER
        if best is None or marker > best_score:  # greedy lists pass last
            return ac.Pass(seat)
        return best
    if s.offer is not None:
        return greedy._pick(s, seat, legal_actions(s, seat))
    return greedy._healer(s, seat)


def playout(s: State, decisions: int | None = None) -> int:
    """Play ``s`` on in place by ``policy`` for up to ``decisions`` decisions (``None``:
    ``DECISIONS``), stopping early at the start of the next round or at the end of the game
    (module docstring); returns the decisions played (0 for a finished game, which is left
    alone)."""
    limit = DECISIONS if decisions is None else decisions
    start = s.round
    done = 0
    while (done < limit and s.round == start and s.phase != "ended"
           and s.current_seat is not None):
        rules.play(s, policy(s, s.current_seat))
        done += 1
    return done
