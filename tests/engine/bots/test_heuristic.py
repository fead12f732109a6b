"""The shared evaluation: exact at the end, sensible rewards, public information only."""

from __future__ import annotations

from engine.bots import make_bot
from engine.einauge.bots.heuristic import mean_win_estimate, values, win_estimate
from engine.selfplay import play_game
from tests.engine.bots.helpers import GAME, midgame, reorder_unseen


def test_a_finished_game_is_valued_by_its_totals() -> None:
    bots = [make_bot("greedy", s) for s in range(3)]
    state = play_game(GAME, ["a", "b", "c"], {}, "heuristic-end", bots).state
    assert values(state) == [sc["total"] for sc in state.result["scores"]]


def test_values_ignore_the_deck_order() -> None:
    for moves in (0, 10, 30):
        state = midgame(f"heuristic-{moves}", 3, moves)
        assert values(state) == values(reorder_unseen(state, "h"))


def test_rewards_grow_with_the_margin() -> None:
    assert win_estimate([10.0, 10.0], 0) == 0.5
    assert win_estimate([12.0, 10.0], 0) > 0.5 > win_estimate([12.0, 10.0], 1)
    # Against the best other seat versus against the mean of the others.
    vals = [10.0, 14.0, 4.0]
    assert win_estimate(vals, 0) < 0.5 < mean_win_estimate(vals, 0)
    assert 0.0 < win_estimate([0.0, 100.0], 0) < 0.01
