"""Greedy is clearly stronger than random (the tournament measures 99.5 % over 100 games)."""

from __future__ import annotations

from engine.bots import make_bot
from engine.selfplay import play_game
from tests.engine.bots.helpers import GAME


def test_greedy_beats_random_clearly() -> None:
    games = 100
    greedy_wins = 0.0
    for i in range(games):
        seed = f"strength-{i}"
        greedy_seat = i % 2  # seat rotation
        bots = [make_bot("greedy" if s == greedy_seat else "random", f"{seed}/{s}")
                for s in range(2)]
        result = play_game(GAME, ["a", "b"], {}, seed, bots).state.result
        if greedy_seat in result["winners"]:
            greedy_wins += 1 / len(result["winners"])
    assert greedy_wins >= 90, greedy_wins
