"""The chain's canonical form (engine/chain.py): the bytes every head is computed over."""

from __future__ import annotations

import json
import random

import pytest

from engine import GAMES
from engine.chain import canonical, public_events


def spelled_out(value: object) -> bytes:
    """docs/fairness.md §5's canonical form, written out with ``json.dumps``."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


NAMES = ["Anna", "Bödvar", "Ĉiu", "Dörte", "Ēvi", "Fañch", "Gül", "Hélène"]
"""Seat names with non-ASCII letters (the canonical form keeps them unescaped)."""


@pytest.mark.parametrize("name", sorted(GAMES))
def test_canonical_bytes_are_the_documented_form_for_every_public_event(name):
    game = GAMES[name]
    checked = played = 0
    for g, seats in enumerate(range(game.min_players, game.max_players + 1)):
        rng = random.Random(g)
        events = list(game.start(NAMES[:seats], {}, f"seed-{g}"))
        log = list(events)
        state = game.replay(list(events))
        while not game.is_over(state):
            assert len(log) <= game.max_game_length
            seat = rng.choice(game.to_move(state))
            legal = game.legal_actions(state, seat)
            for e in game.decide(state, legal[rng.randrange(len(legal))]):
                state = game.evolve(state, e)
                log.append(e)
        for public in public_events(game, log):
            assert canonical(public) == spelled_out(public)
            checked += 1
        played += len(log)
    assert checked == played  # every event of every seat count's whole game
    assert canonical(None) == b"null"
    with pytest.raises(ValueError):
        canonical({"x": float("nan")})
