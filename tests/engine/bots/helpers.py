"""Helpers for bot tests: real games driven by real bots, and states mid-game."""

from __future__ import annotations

import random

from engine import get_game
from engine.bots import RandomBot
from engine.einauge.cards import CARDS
from engine.einauge.state import State

GAME = get_game("einauge")


def midgame(seed: str, players: int = 2, moves: int = 12) -> State:
    """A real state after ``moves`` random-bot actions from the game of ``seed``."""
    state = GAME.replay(GAME.start([f"p{i}" for i in range(players)], {}, seed))
    bots = [RandomBot(f"{seed}/{i}") for i in range(players)]
    for _ in range(moves):
        seats = GAME.to_move(state)
        if not seats:
            break
        GAME.play(state, bots[seats[0]].choose(GAME, state, seats[0]))
    return state


def reorder_unseen(state: State, seed: str) -> State:
    """A copy of ``state`` that differs only in the order of its face-down island cards."""
    other = state.copy()
    pos = state.deck_pos
    tail = state.deck[pos:]
    islands = [c for c in tail if CARDS[c].color]
    ships = [c for c in tail if not CARDS[c].color]
    rng = random.Random(seed)
    shuffled = islands[:]
    while len(islands) > 1 and shuffled == islands:
        rng.shuffle(shuffled)
    other.deck = [*state.deck[:pos], *shuffled, *ships]
    return other
