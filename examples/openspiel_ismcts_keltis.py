"""OpenSpiel's information-set MCTS against the service's greedy bot, on Keltis.

Keltis is loaded as an OpenSpiel game (``engine.envs.openspiel_game``); seat 0 is played
by ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with random rollouts, which samples
the hidden cards through the game's ``resample_from_infostate``; the other seats by the
engine's ``greedy`` bot (``engine.bots.registry.make_bot``), which decides from the
engine's observation of its seat. Chance outcomes (the shuffle, card by card) are drawn
with a seeded generator, so a run is reproducible.

    python examples/openspiel_ismcts_keltis.py --games 3 --simulations 100

prints one line per game (the seats' returns and final scores) and the ISMCTS bot's
wins. Needs the ``ml`` extra (pyproject.toml).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository's engine

from open_spiel.python.algorithms import ismcts, mcts

from engine.bots.registry import make_bot
from engine.envs import openspiel_game


def play(game, rng: np.random.RandomState, simulations: int, rollouts: int, seed: int,
         players: int) -> tuple[list[float], list[int | None]]:
    """One game: seat 0 ISMCTS, the others greedy; returns and final scores by seat."""
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=rng)
    searcher = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations,
                                random_state=rng)
    greedy = {seat: make_bot("greedy", seed=seed * 10 + seat, game="keltis")
              for seat in range(1, players)}
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        seat = state.current_player()
        if seat == 0:
            state.apply_action(searcher.step(state))
            continue
        match = state.match
        action = greedy[seat].act(match.observation(seat))
        (token,) = match.enc.tokens(action)  # Keltis: one token per action
        state.apply_action(token)
    return list(state.returns()), state.match.scores()


def main(argv: list[str] | None = None) -> int:
    """Play ``--games`` games and print the results; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--simulations", type=int, default=100,
                        help="ISMCTS simulations per decision")
    parser.add_argument("--rollouts", type=int, default=1,
                        help="random rollouts per leaf evaluation")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = openspiel_game("keltis", args.players)
    # OpenSpiel's search takes numpy's RandomState (it calls ``randint``).
    rng = np.random.RandomState(args.seed)
    wins = 0.0
    for g in range(args.games):
        returns, scores = play(game, rng, args.simulations, args.rollouts,
                               args.seed + g, args.players)
        wins += returns[0]
        print(f"game {g + 1}: returns {returns} scores {scores} "
              "(seat 0 ISMCTS, the others greedy)")
    print(f"ISMCTS won {wins:g} of {args.games} games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
