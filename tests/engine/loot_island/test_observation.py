"""Observations and sampling (for information-set search): a sample agrees with all the
seat knows, and the observation does not depend on what the seat has not seen."""

from __future__ import annotations

import json
import random

from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island.data import LOOT
from tests.engine.loot_island.helpers import Table


def _walk(seed: str, n: int) -> list:
    rng = random.Random(seed)
    t = Table(n, seed=seed)
    states = []
    while not G.is_over(t.state):
        states.append(t.state.copy())
        legal = t.legal()
        t.play(legal[rng.randrange(len(legal))])
    return states


def test_a_sample_has_the_same_view_and_legal_actions_and_plays_on() -> None:
    rng = random.Random(7)
    states = _walk("obs-1", 4)
    for s in states[::7]:
        seat = s.current_seat
        obs = G.observation(s, seat)
        sampled = G.sample(obs, rng)
        assert json.dumps(G.view(sampled, seat)) == json.dumps(G.view(s, seat))
        assert G.legal_actions(sampled, seat) == G.legal_actions(s, seat)
        assert sorted(c for p in sampled.players for c in p.hand) + sorted(sampled.map_deck) \
            != [] and len(sampled.map_deck) == len(s.map_deck)
        for i, p in enumerate(sampled.players):
            assert len(p.hand) == len(s.players[i].hand)
        # loot decks stay stacked: I on top, then II, III, IV
        decks = [LOOT[c].deck for c in sampled.loot_deck[::-1]]
        assert decks == sorted(decks, key=["I", "II", "III", "IV"].index)
        assert len(sampled.events) == len(s.events)
        from engine.selfplay import random_playout
        random_playout(G, sampled, rng)  # a sample is a playable game
        assert G.is_over(sampled)


def test_samples_vary_the_hidden_part() -> None:
    s = _walk("obs-2", 3)[5]
    obs = G.observation(s, s.current_seat)
    other = (s.current_seat + 1) % 3
    hands = {tuple(sorted(G.sample(obs, random.Random(k)).players[other].hand))
             for k in range(10)}
    assert len(hands) > 1


def test_the_observation_ignores_what_the_seat_has_not_seen() -> None:
    s = _walk("obs-3", 3)[10]
    seat = s.current_seat
    other = (seat + 1) % 3
    changed = s.copy()
    if changed.players[other].hand and changed.map_deck:
        a, b = changed.players[other].hand[0], changed.map_deck[0]
        changed.players[other].hand[0], changed.map_deck[0] = b, a
    changed.map_deck.reverse()
    changed.loot_deck[:5] = changed.loot_deck[:5][::-1]
    assert G.observation(changed, seat) == G.observation(s, seat)
    assert G.observation(changed, other) != G.observation(s, other)
