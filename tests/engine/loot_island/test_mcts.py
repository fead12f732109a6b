"""Loot Island's ``mcts`` (engine/loot_island/mcts.py on engine/bots/ismcts.py): whole
games of only legal actions, decisions from the observation alone, reproducible for a seed
and an iteration budget, and the leaf estimate's shape."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.bots import make_bot
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island.mcts import estimate, evaluate, values
from engine.loot_island.rollout import playout
from engine.loot_island.search import action_key
from engine.selfplay import play_game


class Checked:
    """Passes a bot's choice on after checking it is one of the legal actions."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.kinds: set[str] = set()

    def choose(self, game: Any, state: Any, seat: int) -> Any:
        action = self.bot.choose(game, state, seat)
        assert action_key(action) in {action_key(a) for a in game.legal_actions(state, seat)}
        self.kinds.add(action.type)
        return action


@pytest.mark.parametrize("players", [2, 4])
def test_whole_games_of_legal_actions(players: int) -> None:
    seed = f"mcts-legal-{players}"
    bots = [Checked(make_bot("mcts", f"{seed}/{s}", game="loot-island", iterations=8))
            for s in range(players)]
    played = play_game(G, [f"p{i}" for i in range(players)], {}, seed, bots)
    assert G.result(played.state) is not None
    kinds = set().union(*(b.kinds for b in bots))
    assert {"play", "take_loot", "choose_healer"} <= kinds  # (passes may all be forced)


def _midgame(seed: str, steps: int) -> Any:
    state = G.replay(G.start(["a", "b", "c"], {}, seed))
    rng = random.Random(seed)
    for _ in range(steps):
        seat = G.to_move(state)[0]
        legal = G.legal_actions(state, seat)
        G.play(state, legal[rng.randrange(len(legal))])
    return state


def test_decides_from_the_observation_only() -> None:
    """Two states that differ only in what the seat has not seen (another sample of its
    observation: other hands, the map deck, the loot decks' orders, the set-aside healers,
    the face-down events, the seed) get the same move from equally seeded bots."""
    for seed, steps in (("o1", 5), ("o2", 25), ("o3", 60)):
        state = _midgame(seed, steps)
        seat = G.to_move(state)[0]
        other = G.sample(G.observation(state, seat), random.Random(99))
        assert G.view(other, seat) == G.view(state, seat)
        assert (other.map_deck, other.loot_deck) != (state.map_deck, state.loot_deck)
        a = make_bot("mcts", "same", game="loot-island", iterations=30).choose(G, state, seat)
        b = make_bot("mcts", "same", game="loot-island", iterations=30).choose(G, other, seat)
        assert action_key(a) == action_key(b)


def test_reproducible_and_counts_iterations() -> None:
    state = _midgame("r", 12)
    seat = G.to_move(state)[0]
    bots = [make_bot("mcts", "x", game="loot-island", iterations=50) for _ in range(2)]
    assert action_key(bots[0].choose(G, state, seat)) == action_key(
        bots[1].choose(G, state, seat))
    assert bots[0].last_iterations == 50
    assert make_bot("mcts", 0, game="loot-island", level=1).budget.iterations == 25


def test_observation_lists_exactly_the_legal_actions() -> None:
    state = _midgame("legal", 30)
    seat = G.to_move(state)[0]
    obs = G.observation(state, seat)
    assert [action_key(a) for a in obs.legal] == [action_key(a)
                                                  for a in G.legal_actions(state, seat)]
    other = (seat + 1) % 3
    assert G.observation(state, other).legal == ()


def test_evaluate_gives_win_shares_at_the_end_and_favours_the_leader() -> None:
    played = play_game(G, ["a", "b", "c"], {}, "ev",
                       [make_bot("greedy", i, game="loot-island") for i in range(3)])
    result = G.result(played.state)
    shares = evaluate(played.state)
    assert shares == [1 / len(result["winners"]) if s in result["winners"] else 0.0
                      for s in range(3)]
    state = _midgame("lead", 40)
    vals, est = values(state), estimate(state)
    assert all(0.0 < e < 1.0 for e in est)
    best = max(range(3), key=vals.__getitem__)
    assert est[best] == max(est)
    # A leaf is played on first, then estimated.
    leaf, by_hand = state.copy(), state.copy()
    assert playout(by_hand) > 0
    assert evaluate(leaf) == estimate(by_hand) and leaf.seq == by_hand.seq
    state.players[best].cubes = 13  # elimination costs the whole stake
    assert values(state)[best] < vals[best] - 50
