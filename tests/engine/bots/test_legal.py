"""Every bot returns only legal actions, over many seeded games and player counts."""

from __future__ import annotations

from typing import Any

import pytest

from engine.bots import Bot, make_bot
from engine.selfplay import play_game
from tests.engine.bots.helpers import GAME


class Checked:
    """Passes a bot's choice on after checking it is among the legal actions."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.moves = 0

    def choose(self, game: Any, state: Any, seat: int) -> Any:
        action = self.bot.choose(game, state, seat)
        assert action in game.legal_actions(state, seat), action
        self.moves += 1
        return action


@pytest.mark.parametrize("kind,games,params", [
    ("random", 12, {}),
    ("greedy", 5, {}),
    ("mcts", 2, {"iterations": 25}),
])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_bot_plays_only_legal_actions(kind: str, games: int, params: dict[str, Any],
                                      players: int) -> None:
    options = {"end_rule": "one_more_turn"} if players == 3 else {}
    for g in range(games):
        seed = f"legal-{kind}-{players}-{g}"
        # The bot under test in every seat, so it meets every situation of a game.
        bots = [Checked(make_bot(kind, f"{seed}/{s}", **params)) for s in range(players)]
        played = play_game(GAME, [f"p{s}" for s in range(players)], options, seed, bots)
        assert GAME.is_over(played.state)
        assert sum(b.moves for b in bots) == len(played.actions) > 0


def test_a_bot_with_nothing_to_do_says_so() -> None:
    state = GAME.replay(GAME.start(["a", "b"], {}, "idle"))
    waiting = 1 - state.current_seat
    for kind in ("random", "greedy", "mcts"):
        with pytest.raises(ValueError, match="no legal action"):
            make_bot(kind, 1).choose(GAME, state, waiting)
