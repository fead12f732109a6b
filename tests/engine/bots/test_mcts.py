"""ISMCTS: budget in iterations or via a caller's clock, and determinism for a seed."""

from __future__ import annotations

import pytest

from engine.bots import Budget, make_bot
from engine.einauge.bots import MctsBot
from engine.einauge.observation import observe
from engine.selfplay import play_game
from tests.engine.bots.helpers import GAME, midgame


def _decision_state(seed: str):
    for moves in range(0, 40):
        state = midgame(seed, 2, moves)
        seat = state.current_seat
        if seat is not None and state.step in ("buy", "place"):
            bot = MctsBot(0, Budget(iterations=2))
            bot.act(observe(state, seat))
            if bot.last_iterations == 2:  # more than one candidate: a search runs
                return state
    raise AssertionError("no decision with a choice found")


@pytest.mark.parametrize("iterations", [1, 7, 50])
def test_iteration_budget_is_respected(iterations: int) -> None:
    state = _decision_state("budget")
    bot = MctsBot("b", Budget(iterations=iterations))
    bot.act(observe(state, state.current_seat))
    assert bot.last_iterations == iterations


def test_time_budget_reads_only_the_callers_clock() -> None:
    state = _decision_state("clock")
    ticks = iter(range(10_000))

    def clock() -> float:  # a fake clock: each reading is 1 ms later
        return next(ticks) / 1000.0

    bot = MctsBot("c", Budget(ms=20, clock=clock))
    bot.act(observe(state, state.current_seat))
    # deadline read once, then one reading per iteration after the first
    assert bot.last_iterations == 20
    capped = MctsBot("c", Budget(iterations=5, ms=1000, clock=clock))
    capped.act(observe(state, state.current_seat))
    assert capped.last_iterations == 5


def test_same_seed_same_game_and_other_seed_may_differ() -> None:
    def game(seed: str) -> list:
        bots = [make_bot("mcts", seed, iterations=30), make_bot("greedy", "g")]
        return play_game(GAME, ["m", "g"], {}, "determinism", bots).actions

    first = game("s1")
    assert len(first) > 20
    assert game("s1") == first


def test_budget_rejects_bad_limits() -> None:
    with pytest.raises(ValueError):
        Budget(iterations=0)
    with pytest.raises(ValueError):
        Budget(iterations=2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Budget(ms=-1, clock=lambda: 0.0)
    with pytest.raises(ValueError, match="clock"):
        Budget(ms=100)
    assert Budget(ms=100, clock=lambda: 2.0).deadline() == pytest.approx(2.1)
    assert Budget(iterations=3).deadline() is None


def test_a_move_with_one_candidate_needs_no_search() -> None:
    from engine.einauge.bots.candidates import candidates

    for game, moves in ((g, m) for g in range(20) for m in range(0, 50, 3)):
        state = midgame(f"forced-{game}", 2, moves)
        seat = state.current_seat
        if seat is None:
            continue
        legal = GAME.legal_actions(state, seat)
        if len(legal) > 1 and len(candidates(state, seat, legal)) == 1:
            bot = MctsBot("f", Budget(iterations=10))
            action = bot.act(observe(state, seat))
            assert action == candidates(state, seat, legal)[0]
            assert bot.last_iterations == 0
            return
    raise AssertionError("no state with a single candidate found")
