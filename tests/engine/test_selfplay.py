"""Self-play: 1,000 seeded random games per player count finish with a result."""

from __future__ import annotations

import pytest

from engine.bots import RandomBot
from engine.einauge import EINAUGE
from engine.selfplay import play_game

GAMES = 1000


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_thousand_games_finish(n: int) -> None:
    names = [f"bot{i}" for i in range(n)]
    winners = [0] * n
    for i in range(GAMES):
        seed = f"sp{n}-{i}"
        options = {"end_rule": ("round", "one_more_turn")[i % 2], "color_bonus": i % 3 == 0}
        g = play_game(EINAUGE, names, options, seed, [RandomBot(f"{seed}/{s}") for s in range(n)])
        assert EINAUGE.is_over(g.state)
        result = g.state.result
        assert [s["seat"] for s in result["scores"]] == list(range(n))
        best = max(s["total"] for s in result["scores"])
        assert result["winners"] == [s["seat"] for s in result["scores"] if s["total"] == best]
        for w in result["winners"]:
            winners[w] += 1
    assert all(winners)  # every seat wins some games: no seat is stuck out


def test_play_game_is_deterministic() -> None:
    def once():
        return play_game(EINAUGE, ["a", "b", "c"], {}, "det",
                         [RandomBot(f"det/{s}") for s in range(3)])
    a, b = once(), once()
    assert [x.to_dict() for x in a.actions] == [x.to_dict() for x in b.actions]
    assert EINAUGE.public_view(a.state) == EINAUGE.public_view(b.state)


def test_random_bot_refuses_when_no_action() -> None:
    g = play_game(EINAUGE, ["a", "b"], {}, "end", [RandomBot(1), RandomBot(2)])
    with pytest.raises(ValueError):
        RandomBot(0).choose(EINAUGE, g.state, 0)
