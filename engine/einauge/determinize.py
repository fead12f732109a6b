"""Determinization: an engine ``State`` built from an observation and a guessed deck order.

Information-set search (``engine.bots.mcts``) cannot play on the true state (it may not know
the deck order), so it plays on states that agree with everything the seat knows and put the
face-down island cards in a sampled order, ships last (RULES "Setup" 3). The state built here
is an ordinary ``State``: the rules code (``play``, ``legal_actions``) accepts it as is. Its
``deck`` holds only the cards still face down (``deck_pos`` 0); the cards already revealed are
not needed by any rule.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.einauge.observation import Observation
from engine.einauge.state import Player, State


def public_state(obs: Observation) -> State:
    """A state with the observation's public part and the face-down cards in canonical
    order (a stand-in: use ``determinize`` or ``with_deck`` before revealing cards)."""
    s = State()
    players = []
    for po in obs.players:
        p = Player(po.name)
        p.sabres = po.sabres
        p.ducats = po.ducats
        p.jewels = po.jewels
        p.rows = {color: list(cards) for color, cards in po.rows}
        p.lone_ships = list(po.lone_ships)
        p.turns = po.turns
        players.append(p)
    s.players = players
    s.options = dict(obs.options)
    s.colors = tuple(obs.colors)
    s.deck = [*obs.unseen, *obs.ships_in_deck]
    s.deck_pos = 0
    s.display = list(obs.display)
    s.pirate_table = list(obs.pirate_table)
    s.phase = obs.phase
    s.step = obs.step
    s.current_seat = obs.current_seat
    s.end_triggered = obs.end_triggered
    s.revealer = obs.revealer
    s.turns_left = obs.turns_left
    s.final_start = obs.final_start
    s.final_left = obs.final_left
    s.seq = obs.seq
    s.result = None
    return s


def with_deck(base: State, obs: Observation, order: list[str]) -> State:
    """A copy of ``base`` (from ``public_state(obs)``) whose face-down island cards are
    ``order`` (top first), ships after them. ``order`` is not checked (hot path: see
    ``determinize`` for the checked form) and is owned by the new state from now on."""
    s = base.copy()
    order.extend(obs.ships_in_deck)
    s.deck = order
    s.deck_pos = 0
    return s


def sample_order(obs: Observation, rng: random.Random) -> list[str]:
    """The face-down island cards of ``obs`` in a uniformly random order."""
    order = list(obs.unseen)
    rng.shuffle(order)
    return order


def determinize(obs: Observation, order: Sequence[str] | None = None,
                rng: random.Random | None = None) -> State:
    """A full ``State`` consistent with ``obs``: the face-down island cards in ``order``
    (top first), or in an order sampled from ``rng`` when ``order`` is ``None``.

    Raises ``ValueError`` when ``order`` is not a permutation of ``obs.unseen``, or when
    neither ``order`` nor ``rng`` is given.
    """
    if order is None:
        if rng is None:
            raise ValueError("determinize needs a deck order or a random generator")
        cards = sample_order(obs, rng)
    else:
        cards = list(order)
        if sorted(cards) != sorted(obs.unseen):
            raise ValueError("order must be a permutation of the unseen island cards")
    return with_deck(public_state(obs), obs, cards)
