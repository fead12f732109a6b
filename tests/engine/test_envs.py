"""The games for machine learning (engine/envs/): PettingZoo's and OpenSpiel's own checks
at every seat count of every game, reproducibility, what an observation may hold, the
masks against the engine's legal actions, and the ISMCTS example.

The games and seat counts come from the registry (``engine.GAMES``), so a new game with
an encoding is checked with no change here.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from engine import GAMES
from engine.envs import ENCODINGS, Match, encoding, openspiel_game, pettingzoo_env
from engine.envs.openspiel import short_name

ROOT = Path(__file__).resolve().parents[2]

CASES = [(name, n) for name, g in GAMES.items()
         for n in range(g.min_players, g.max_players + 1)]


def test_every_game_has_an_encoding() -> None:
    assert sorted(ENCODINGS) == sorted(GAMES)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_pettingzoo_api_test(game: str, players: int) -> None:
    env = pettingzoo_env(game, players, seed=players)
    # The test's random actions come from the action spaces' own generators, seeded by
    # nobody else: seeded here, a run's games follow from the test alone (a failure replays).
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(players * 100 + i)
    api_test(env, num_cycles=2000, verbose_progress=False)


@pytest.mark.parametrize(("game", "players"), CASES)
def test_openspiel_random_sim_test(game: str, players: int) -> None:
    g = openspiel_game(game, players)
    assert g.num_players() == players
    assert g.get_type().short_name == short_name(game)
    pyspiel.random_sim_test(g, num_sims=1, serialize=True, verbose=False)


def test_player_counts_outside_a_games_range_are_refused() -> None:
    for name, g in GAMES.items():
        for n in (g.min_players - 1, g.max_players + 1):
            with pytest.raises(ValueError):
                encoding(name, n)
    with pytest.raises(KeyError):
        encoding("chess", 2)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_pettingzoo_seed_and_render_tests(game: str) -> None:
    players = GAMES[game].min_players + 1
    seed_test(lambda: pettingzoo_env(game, players), num_cycles=100)
    render_test(lambda render_mode=None: pettingzoo_env(game, players,
                                                          render_mode=render_mode))


def _run_env(game: str, players: int, seed: int, policy_seed: int) -> list[tuple[bytes, ...]]:
    """Every observation and mask of one game, actions chosen by a seeded policy."""
    env = pettingzoo_env(game, players)
    env.reset(seed=seed)
    rng = random.Random(policy_seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        trace.append((agent.encode(), obs["observation"].tobytes(),
                      obs["action_mask"].tobytes(), str(reward).encode()))
        if term or trunc:
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return trace


@pytest.mark.parametrize("game", sorted(GAMES))
def test_pettingzoo_same_seed_same_game(game: str) -> None:
    players = GAMES[game].min_players + 1
    first = _run_env(game, players, seed=11, policy_seed=5)
    assert first == _run_env(game, players, seed=11, policy_seed=5)
    # Another seed deals another game: its very first observation differs.
    assert first[0] != _run_env(game, players, seed=12, policy_seed=5)[0]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_pettingzoo_deals_the_engines_shuffle_of_the_seed(game: str) -> None:
    g = GAMES[game]
    env = pettingzoo_env(game, 3)
    env.reset(seed=42)
    expected = g.replay(g.start(env.possible_agents, None, "42"))
    assert g.view(env.match.state, None) == g.view(expected, None)
    for seat in range(3):
        assert g.view(env.match.state, seat) == g.view(expected, seat)


def test_pettingzoo_resets_without_seed_follow_the_environment_seed() -> None:
    a, b, c = (pettingzoo_env("keltis", 2, seed=s) for s in (3, 3, 4))
    seeds = []
    for env in (a, b, c):
        env.reset()
        first = env.game_seed
        env.reset()
        seeds.append((first, env.game_seed))
    assert seeds[0] == seeds[1]
    assert seeds[0][0] != seeds[0][1]
    assert seeds[0] != seeds[2]


def test_pettingzoo_rewards_are_the_win_shares_and_scores_in_infos() -> None:
    env = pettingzoo_env("einauge", 3)
    env.reset(seed=9)
    rng = random.Random(1)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            assert info["score"] is not None
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    result = GAMES["einauge"].result(env.match.state)
    assert result is not None
    winners = result["winners"]
    assert winners
    for i, agent in enumerate(env.possible_agents):
        assert totals[agent] == (1.0 / len(winners) if i in winners else 0.0)


def test_openspiel_same_chance_outcomes_same_game() -> None:
    game = openspiel_game("loot-island", 3)

    def run() -> list[str]:
        rng = np.random.default_rng(7)
        state = game.new_initial_state()
        out = []
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                player = state.current_player()
                state.apply_action(int(rng.choice(state.legal_actions())))
                out.append(state.information_state_string(player)
                           if not state.is_terminal() else str(state.returns()))
        return out

    assert run() == run()


def test_openspiel_chance_outcomes_deal_every_card_uniformly() -> None:
    game = openspiel_game("keltis", 2)
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == list(range(101))
    assert all(p == pytest.approx(1 / 101) for _, p in outcomes)
    state.apply_action(17)
    after = state.chance_outcomes()
    assert 17 not in [o for o, _ in after]
    assert all(p == pytest.approx(1 / 100) for _, p in after)


def _random_match(game: str, players: int, seed: int, by_chance: bool) -> Match:
    m = Match(encoding(game, players))
    if by_chance:
        m.start_dealing()
    else:
        m.start_seeded(f"envs-{seed}")
    return m


def _decisions(m: Match, rng: random.Random, limit: int):
    """Yield ``m`` at each decision of a game played with random tokens (chance outcomes
    from ``rng`` too), at most ``limit`` decisions."""
    count = 0
    while not m.is_over() and count < limit:
        if m.dealing is not None:
            m.apply_chance(rng.choice(m.chance_outcomes())[0])
            continue
        if not m.prefix:
            yield m
            count += 1
        m.choose(rng.choice(m.legal_tokens()))


def _complete_sequences(m: Match) -> set[tuple[int, ...]]:
    """Every token sequence the masks allow from ``m``'s decision, walked to the end."""
    out: set[tuple[int, ...]] = set()

    def walk(node: Match, path: tuple[int, ...]) -> None:
        for t in np.flatnonzero(node.mask()).tolist():
            child = node.copy()
            done = child.choose(t)
            if done is not None:
                out.add((*path, t))
            else:
                walk(child, (*path, t))

    walk(m, ())
    return out


@pytest.mark.parametrize(("game", "players"), CASES)
def test_mask_is_the_engines_legal_actions(game: str, players: int) -> None:
    match = _random_match(game, players, seed=players, by_chance=game == "loot-island")
    enc, g = match.enc, match.game
    walked = 0
    for m in _decisions(match, random.Random(players), limit=400):
        seat = m.seat()
        legal = g.legal_actions(m.state, seat)
        seqs = [enc.tokens(a) for a in legal]
        # One sequence per legal action, none the beginning of another.
        assert len(set(seqs)) == len(legal)
        starts = {s[:k] for s in seqs for k in range(1, len(s))}
        assert not starts & set(seqs)
        assert set(np.flatnonzero(m.mask()).tolist()) == {s[0] for s in seqs}
        if len(legal) <= 120:  # walk the masks to the end: exactly the legal actions
            assert _complete_sequences(m) == set(seqs)
            walked += 1
        # A chosen sequence plays exactly its action.
        pick = random.Random(len(legal)).randrange(len(legal))
        probe = m.copy()
        played = None
        for t in seqs[pick]:
            assert probe.mask()[t] == 1
            played = probe.choose(t)
        assert played == legal[pick]
    assert walked > 0


def _hidden_differs(game: str, a, b, seat: int, players: int) -> bool:
    g = GAMES[game]
    return (any(g.view(a, j) != g.view(b, j) for j in range(players) if j != seat)
            or getattr(a, "deck", None) != getattr(b, "deck", None))


@pytest.mark.parametrize(("game", "players"), CASES)
def test_observation_does_not_depend_on_hidden_information(game: str, players: int) -> None:
    """A state and one that differs only in what a seat cannot see (the engine's
    ``sample`` of that seat's observation) give the seat the same observation vector and
    information state string; another seat, whose own cards differ, sees a difference."""
    match = _random_match(game, players, seed=players + 20, by_chance=False)
    g = match.game
    differing = other_sees = 0
    for k, m in enumerate(_decisions(match, random.Random(players), limit=60)):
        if k % 6:
            continue
        for seat in range(players):
            alt = m.copy()
            alt.state = g.sample(m.observation(seat), random.Random(k * 10 + seat))
            if not _hidden_differs(game, m.state, alt.state, seat, players):
                continue
            differing += 1
            assert np.array_equal(alt.encode(seat), m.encode(seat))
            assert alt.info_string(seat) == m.info_string(seat)
            other = (seat + 1) % players
            if not np.array_equal(alt.encode(other), m.encode(other)):
                other_sees += 1
    assert differing > 0
    if not GAMES[game].uniform_view:  # hidden hands: another seat's own hand differs
        assert other_sees > 0


@pytest.mark.parametrize("game", sorted(GAMES))
def test_openspiel_resample_keeps_the_information_state(game: str) -> None:
    g = openspiel_game(game, 2)
    rng = np.random.default_rng(3)
    state = g.new_initial_state()
    checked = 0
    while not state.is_terminal() and checked < 10:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        player = state.current_player()
        sampler = iter([0.25, 0.75]).__next__
        alt = state.resample_from_infostate(player, sampler)
        assert alt.information_state_string(player) == state.information_state_string(player)
        assert alt.observation_tensor(player) == state.observation_tensor(player)
        assert alt.legal_actions() == state.legal_actions()
        checked += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked == 10


def test_ismcts_example_plays_keltis_against_the_greedy_bot() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "openspiel_ismcts_keltis.py"),
         "--games", "1", "--simulations", "3", "--seed", "1"],
        capture_output=True, text=True, timeout=300, check=True).stdout
    lines = out.strip().splitlines()
    assert lines[0].startswith("game 1: returns [")
    assert lines[-1].startswith("ISMCTS won ") and lines[-1].endswith(" of 1 games")


def _dealt(game, outcomes: list[int]):
    state = game.new_initial_state()
    for o in outcomes:
        state.apply_action(o)
    return state


@pytest.mark.parametrize("game_name", ["keltis", "einauge"])
def test_openspiel_deals_differing_in_hidden_cards_look_the_same(game_name: str) -> None:
    """Two chance histories that differ only in cards seat 0 cannot see (Keltis: a card of
    seat 1's hand swapped with the bottom card of the deck; Einauge: the two bottom island
    cards of the deck) give seat 0 the same information state and observation tensor, also
    after its first action; seat 1 (Keltis) sees the difference in its own hand."""
    game = openspiel_game(game_name, 3)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    outcomes: list[int] = []
    while state.is_chance_node():
        o = int(rng.choice([o for o, _ in state.chance_outcomes()]))
        outcomes.append(o)
        state.apply_action(o)
    enc = state.match.enc
    deck = state.match.chosen["deck"]
    if game_name == "keltis":
        x, y = state.match.state.players[1].hand[0], deck[-1]
    else:
        x, y = deck[-2], deck[-1]
    i, j = outcomes.index(enc.chance_index[x]), outcomes.index(enc.chance_index[y])
    swapped = list(outcomes)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    other = _dealt(game, swapped)
    assert str(other) != str(state) or other.match.chosen != state.match.chosen
    for _ in range(2):  # the deal, then after seat 0's first action
        assert other.information_state_string(0) == state.information_state_string(0)
        assert other.observation_tensor(0) == state.observation_tensor(0)
        if game_name == "keltis":
            assert other.information_state_string(1) != state.information_state_string(1)
        token = state.legal_actions()[0]
        assert other.legal_actions() == state.legal_actions()
        state.apply_action(token)
        other.apply_action(token)
