"""The plain yardstick of issue 18 (bench/plain_einauge.py) plays the engine's rules.

Same seeds, same games: at every decision both list the same legal actions in the same
order, the same choice is applied to both, and the finished games have the same result.
The side-by-side benchmark relies on that (bench/engine_vs_plain.py).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench.engine import play_games
from bench.engine_vs_plain import plain_games, run
from bench.plain_einauge import Action, IllegalMove, PlainGame, random_game, shuffled_deck
from engine.einauge.game import EINAUGE
from engine.selfplay import random_playout

OPTIONS = ({"end_rule": "round", "color_bonus": False},
           {"end_rule": "one_more_turn", "color_bonus": True})


def _key(action: Any) -> tuple[Any, ...]:
    return (action.type, getattr(action, "card", None), getattr(action, "row", None))


@pytest.mark.parametrize("options", OPTIONS, ids=["round", "one_more_turn+bonus"])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_same_games_step_by_step(n: int, options: dict[str, Any]) -> None:
    names = [f"p{k}" for k in range(n)]
    for i in range(25):
        seed = f"plain-{n}-{i}"
        state = EINAUGE.replay(EINAUGE.start(names, options, seed))
        plain = PlainGame(names, seed, options["end_rule"], options["color_bonus"])
        rng = random.Random(seed)
        while not EINAUGE.is_over(state):
            assert not plain.is_over()
            seat = EINAUGE.to_move(state)[0]
            assert plain.current == seat
            legal = EINAUGE.legal_actions(state, seat)
            mine = plain.legal_actions()
            assert [_key(a) for a in legal] == [(a.kind, a.card, a.row) for a in mine]
            k = rng.randrange(len(legal))
            EINAUGE.play(state, legal[k])
            plain.apply(mine[k])
        assert plain.is_over() and plain.legal_actions() == []
        assert plain.scores == state.result


@pytest.mark.parametrize("n", [2, 4, 5])
def test_shuffle_is_the_contracts(n: int) -> None:
    for seed in ("a", "bench-4-7", "ü" * 3):
        assert shuffled_deck(n, seed) == EINAUGE.shuffled_deck(n, {}, seed)


def test_random_games_end_with_a_result_like_the_engine() -> None:
    names = ["a", "b", "c", "d"]
    game, actions = random_game(names, "s", random.Random(1))
    state = EINAUGE.replay(EINAUGE.start(names, None, "s"))
    assert actions == random_playout(EINAUGE, state, random.Random(1)) > 40
    assert game.scores == state.result
    assert game.scores["winners"]  # type: ignore[index]
    # the benchmark's batches seed both sides alike: the same games, the same actions
    assert plain_games(4, 3) == play_games(4, 3)[0]


def test_illegal_actions_are_refused_and_change_nothing() -> None:
    game = PlainGame(["a", "b"], "x")
    before = (game.display[:], game.players[0].ducats, game.step)
    wrong = [Action("place", 0, game.display[0]), Action("buy", 1, game.display[0]),
             Action("buy", 0, "ship-1", "alone"), Action("sell_card", 0, "blue-2"),
             Action("fight", 0, game.pirate_table[0]), Action("dance", 0)]
    for action in wrong:
        with pytest.raises(IllegalMove):
            game.apply(action)
    assert (game.display, game.players[0].ducats, game.step) == before


def test_side_by_side_checks_both_sides_played_the_same_games() -> None:
    result = run(3, 4, 2, oracle=True)
    assert [r["first"] for r in result["rounds"]] == ["engine", "plain"]
    assert all(r["ratio"] > 0 and r["actions"] > 0 for r in result["rounds"])
    assert all(r["oracle_ratio"] > 0 and r["oracle_actions"] > 0 for r in result["rounds"])
    assert result["replay"]["events"] > 4 * 40
