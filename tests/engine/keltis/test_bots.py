"""Keltis's bots (engine/keltis/bots, engine/bots/ismcts.py): only legal actions, only
what the seat may know, reproducible per seed, and greedy clearly above random."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.bots import Bot, make_bot
from engine.keltis import KELTIS
from engine.keltis.bots.heuristic import DECK_START, player_value, row_value, values, win_estimate
from engine.keltis.bots.rollout import best_play, playout
from engine.keltis.scoring import ROW_POINTS
from engine.selfplay import play_game


class Checked:
    """Passes a bot's choice on after checking it is among the legal actions."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    def choose(self, game: Any, state: Any, seat: int) -> Any:
        action = self.bot.choose(game, state, seat)
        assert action in game.legal_actions(state, seat), action
        return action


@pytest.mark.parametrize("kind,params", [("greedy", {}), ("mcts", {"iterations": 20})])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_only_legal_actions(kind: str, params: dict[str, Any], players: int) -> None:
    seed = f"legal-{kind}-{players}"
    bots = [Checked(make_bot(kind, f"{seed}/{s}", game="keltis", **params))
            for s in range(players)]
    played = play_game(KELTIS, [f"p{i}" for i in range(players)], {}, seed, bots)
    assert KELTIS.result(played.state) is not None


def _midgame(seed: str, steps: int = 30) -> Any:
    state = KELTIS.replay(KELTIS.start(["a", "b", "c"], {}, seed))
    rng = random.Random(seed)
    for _ in range(steps):
        seat = KELTIS.to_move(state)[0]
        KELTIS.play(state, rng.choice(KELTIS.legal_actions(state, seat)))
    return state


@pytest.mark.parametrize("kind", ["greedy", "mcts"])
def test_decides_from_the_observation_only(kind: str) -> None:
    """Two states that differ only in cards the seat has not seen (another sample of its
    observation) get the same move from equally seeded bots."""
    params = {"iterations": 40} if kind == "mcts" else {}
    for seed in ("o1", "o2", "o3"):
        state = _midgame(seed)
        seat = KELTIS.to_move(state)[0]
        obs = KELTIS.observation(state, seat)
        other = KELTIS.sample(obs, random.Random(99))
        assert other.players[(seat + 1) % 3].hand != state.players[(seat + 1) % 3].hand \
            or other.deck[other.deck_pos:] != state.deck[state.deck_pos:]
        a = make_bot(kind, "same", game="keltis", **params).choose(KELTIS, state, seat)
        b = make_bot(kind, "same", game="keltis", **params).choose(KELTIS, other, seat)
        assert a == b


def test_mcts_is_reproducible_and_counts_iterations() -> None:
    state = _midgame("r")
    seat = KELTIS.to_move(state)[0]
    bots = [make_bot("mcts", "x", game="keltis", iterations=60) for _ in range(2)]
    assert bots[0].choose(KELTIS, state, seat) == bots[1].choose(KELTIS, state, seat)
    assert bots[0].last_iterations == 60


def test_root_widening_searches_the_prior_s_best_first() -> None:
    """With ``widening`` the root searches only the first ``1 + floor(w * sqrt(t))``
    actions of ``root_order`` (one-step lookahead, best first); without, all of them."""
    state = _midgame("w", 30)
    seat = KELTIS.to_move(state)[0]
    obs = KELTIS.observation(state, seat)
    assert obs.step == "play" and len(obs.legal) > 4
    # An equally seeded bot's first use of its rng is the same ranking.
    bot = make_bot("mcts", "w", game="keltis")
    order = bot.root_order(obs, list(obs.legal))  # type: ignore[attr-defined]
    assert sorted(map(repr, order)) == sorted(map(repr, obs.legal))
    bot = make_bot("mcts", "w", game="keltis", iterations=50, widening=0.25)
    bot.act(obs)
    assert [m for m, _ in bot.last_visits] == order[:2]  # 1 + int(0.25 * sqrt(50)) = 2
    assert sum(n for _, n in bot.last_visits) == 50
    wide = make_bot("mcts", "w", game="keltis", iterations=50, widening=0)
    wide.act(obs)
    assert [m for m, _ in wide.last_visits] == list(obs.legal)


def test_heuristic() -> None:
    assert [row_value(n) for n in range(len(ROW_POINTS))] == list(map(float, ROW_POINTS))
    assert row_value(3.5) == (ROW_POINTS[3] + ROW_POINTS[4]) / 2
    played = play_game(KELTIS, ["a", "b"], {}, "h", [make_bot("random", 0),
                                                    make_bot("random", 1)])
    result = KELTIS.result(played.state)
    assert values(played.state) == [s["total"] for s in result["scores"]]
    assert win_estimate([10.0, 0.0], 0) > 0.5 > win_estimate([10.0, 0.0], 1)


def test_greedy_beats_random_clearly() -> None:
    """The tournament measures it over more games (docs/bots.md)."""
    games = 30
    wins = 0.0
    for i in range(games):
        seed = f"strength-{i}"
        greedy_seat = i % 2  # seat rotation
        bots = [make_bot("greedy" if s == greedy_seat else "random", f"{seed}/{s}",
                         game="keltis") for s in range(2)]
        winners = KELTIS.result(play_game(KELTIS, ["a", "b"], {}, seed, bots).state)["winners"]
        if greedy_seat in winners:
            wins += 1 / len(winners)
    assert wins >= 27, wins


def test_rollout_plays_each_mover_s_best_own_value_then_draws_from_the_deck() -> None:
    """``rollout.playout`` carries a leaf on by ``plays`` plays, each the mover's best by
    its own ``player_value``, with the refills in between from the deck."""
    state = _midgame("p", 30)
    seat = KELTIS.to_move(state)[0]
    assert state.step == "play"
    legal = KELTIS.legal_actions(state, seat)
    left, free = state.deck_count / DECK_START, frozenset(state.stones)

    def own(action: Any) -> float:
        s = state.copy()
        KELTIS.play(s, action)
        return player_value(s.players[seat], left, free)

    best = best_play(state, seat, legal)
    assert own(best) == max(own(a) for a in legal)
    after = state.copy()
    KELTIS.play(after, best)
    deck_before = state.deck_count
    played = state.copy()
    playout(played, 2)
    # Stopped after the next seat's play, before its refill; ours was refilled.
    assert played.step == "draw" and played.current_seat == (seat + 1) % 3
    assert len(played.players[seat].hand) == 8
    assert len(played.players[(seat + 1) % 3].hand) in (6, 7)
    mine, first = played.players[seat], after.players[seat]  # the same first play
    assert (mine.rows, mine.point_row, mine.stones) == (first.rows, first.point_row,
                                                        first.stones)
    assert deck_before - played.deck_count in (1, 2)  # 1 draw after a play, 2 after a stone
    ended = play_game(KELTIS, ["a", "b"], {}, "h", [make_bot("random", 0),
                                                   make_bot("random", 1)]).state
    total = KELTIS.result(ended)
    playout(ended, 2)
    assert KELTIS.result(ended) == total
