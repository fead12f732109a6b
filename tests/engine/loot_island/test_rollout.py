"""The leaf playout of Loot Island's ``mcts`` (engine/loot_island/rollout.py): its moves
are legal, it takes greedy's best-scoring candidate, it stops after its decisions, at the
next round or at the end of the game, and leaves a finished game alone."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.bots import make_bot
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import actions as ac
from engine.loot_island import greedy
from engine.loot_island.data import START_MARKER
from engine.loot_island.rollout import DECISIONS, playout, policy
from engine.loot_island.search import action_key, candidates, scored
from engine.selfplay import play_game


def _midgame(players: int, seed: str, steps: int) -> Any:
    """A position after ``steps`` decisions of random play (a real game)."""
    state = G.replay(G.start([f"p{i}" for i in range(players)], {"events": True}, seed))
    rng = random.Random(seed)
    for _ in range(steps):
        seat = G.to_move(state)[0]
        legal = G.legal_actions(state, seat)
        G.play(state, legal[rng.randrange(len(legal))])
    return state


@pytest.mark.parametrize("players", [2, 4, 5])
def test_policy_plays_whole_games_of_legal_moves(players: int) -> None:
    state = G.replay(G.start([f"p{i}" for i in range(players)], {"events": players != 4},
                             f"roll-{players}"))
    kinds = set()
    moves = 0
    while not G.is_over(state):
        seat = G.to_move(state)[0]
        move = policy(state, seat)
        assert action_key(move) in {action_key(a) for a in G.legal_actions(state, seat)}
        G.decide(state, move)  # raises if the rules refuse it
        kinds.add(move.type)
        G.play(state, move)
        moves += 1
    assert G.result(state) is not None
    assert {"discard", "play", "take_loot", "choose_healer"} <= kinds
    assert moves > 20


def test_phase_two_move_is_the_best_scoring_candidate_or_pass() -> None:
    checked = 0
    for seed in ("s1", "s2", "s3", "s4"):
        state = _midgame(3, seed, 0)
        rng = random.Random(seed)
        while not G.is_over(state) and checked < 60:
            seat = G.to_move(state)[0]
            if state.phase == "actions":
                scores = scored(state, seat, candidates(state, seat))
                move = policy(state, seat)
                marker = (0.0 if state.first_passed
                          else START_MARKER if state.round >= 5 else greedy.MARKER)
                best = max((sc for sc, _ in scores), default=None)
                if best is None or marker > best:
                    assert isinstance(move, ac.Pass)
                else:
                    assert action_key(move) == action_key(
                        next(m for sc, m in scores if sc == best))
                checked += 1
            legal = G.legal_actions(state, seat)
            G.play(state, legal[rng.randrange(len(legal))])
    assert checked >= 40


def test_stops_after_its_decisions_as_the_policy_would_play() -> None:
    state = _midgame(3, "stop", 12)
    assert state.round == 1 and state.phase == "actions"
    played = state.copy()
    assert playout(played, 3) == 3
    by_hand = state.copy()
    for _ in range(3):
        G.play(by_hand, policy(by_hand, by_hand.current_seat))
    assert played.seq == by_hand.seq > state.seq
    assert G.view(played, None) == G.view(by_hand, None)
    assert [p.hand for p in played.players] == [p.hand for p in by_hand.players]
    again = state.copy()
    playout(again, 3)  # no randomness: the same state plays on the same way
    assert G.view(again, None) == G.view(played, None)


def test_stops_at_the_start_of_the_next_round() -> None:
    state = _midgame(2, "round", 1)
    start = state.round
    assert start < 5
    assert playout(state, 1_000) > DECISIONS  # a round is longer than a playout
    assert state.round == start + 1 and state.phase == "preparation"
    assert G.result(state) is None


def test_round_five_plays_to_the_end_and_a_finished_game_is_left_alone() -> None:
    state = _midgame(2, "last", 0)
    while state.round < 5:
        playout(state, 1_000)
    assert playout(state, 1_000) > 0
    assert G.is_over(state) and G.result(state) is not None
    ended = play_game(G, ["a", "b"], {}, "done",
                      [make_bot("greedy", i, game="loot-island") for i in range(2)]).state
    result, seq = G.result(ended), ended.seq
    assert playout(ended, 5) == 0
    assert G.result(ended) == result and ended.seq == seq


def test_policy_refuses_a_seat_without_a_decision() -> None:
    state = _midgame(3, "who", 5)
    other = (state.current_seat + 1) % 3
    with pytest.raises(ValueError, match="no decision"):
        policy(state, other)
