"""The hidden-information guarantee: a bot's input never holds the deck order."""

from __future__ import annotations

import random

import pytest

from engine.bots import kinds, make_bot
from engine.einauge import rules
from engine.einauge.cards import CARDS, ISLAND_CARDS
from engine.einauge.determinize import determinize
from engine.einauge.observation import observe
from tests.engine.bots.helpers import GAME, midgame, reorder_unseen


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("moves", [0, 9, 25])
def test_unseen_order_does_not_change_the_observation(players: int, moves: int) -> None:
    state = midgame(f"hidden-{players}-{moves}", players, moves)
    other = reorder_unseen(state, "x")
    assert state.deck != other.deck  # the two games really differ in the deck order
    for seat in range(players):
        assert observe(state, seat) == observe(other, seat)


@pytest.mark.parametrize("kind", sorted(kinds("einauge")))
@pytest.mark.parametrize("moves", [0, 7, 20])
def test_bots_choose_alike_when_only_the_unseen_order_differs(kind: str, moves: int) -> None:
    state = midgame(f"choice-{kind}-{moves}", 2, moves)
    other = reorder_unseen(state, "y")
    seat = GAME.to_move(state)[0]
    params = {"iterations": 60} if kind == "mcts" else {}
    a = make_bot(kind, "same-seed", **params).choose(GAME, state, seat)
    b = make_bot(kind, "same-seed", **params).choose(GAME, other, seat)
    assert a == b
    assert a in GAME.legal_actions(state, seat)


def test_observation_lists_unseen_cards_canonically_and_no_deck() -> None:
    state = midgame("canon", 3, 10)
    waiting = (state.current_seat + 1) % 3
    obs = observe(state, waiting)
    tail = state.deck[state.deck_pos:]
    assert sorted(obs.unseen) == sorted(c for c in tail if CARDS[c].color)
    assert list(obs.unseen) == sorted(obs.unseen, key=ISLAND_CARDS.index)
    assert obs.ships_in_deck == tuple(c for c in tail if not CARDS[c].color)
    assert obs.deck_count == state.deck_count
    assert not hasattr(obs, "deck")
    assert obs.legal == ()  # not this seat's turn
    assert observe(state, state.current_seat).legal == tuple(
        rules.legal_actions(state, state.current_seat))


def test_observe_rejects_a_seat_not_at_the_table() -> None:
    state = midgame("bad-seat", 2, 0)
    for seat in (-1, 2, "0", None):
        with pytest.raises(ValueError):
            observe(state, seat)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        observe(GAME.initial_state(), 0)


@pytest.mark.parametrize("seed", [f"det-{i}" for i in range(6)])
def test_determinized_state_with_the_true_order_plays_like_the_real_game(seed: str) -> None:
    """A state rebuilt from an observation and the real deck order is accepted by the rules
    and produces exactly the real game's events, to the end."""
    players = 2 + int(seed[-1]) % 3
    state = midgame(seed, players, 11)
    seat = state.current_seat
    obs = observe(state, seat)
    true_order = [c for c in state.deck[state.deck_pos:] if CARDS[c].color]
    rebuilt = determinize(obs, true_order)
    assert GAME.public_view(rebuilt) == GAME.public_view(state)
    rng = random.Random(seed)
    while GAME.to_move(state):
        s = GAME.to_move(state)[0]
        legal = GAME.legal_actions(state, s)
        assert legal == GAME.legal_actions(rebuilt, s)
        action = legal[rng.randrange(len(legal))]
        assert GAME.play(state, action) == GAME.play(rebuilt, action)
    assert rebuilt.result == state.result


def test_determinize_samples_consistent_states_and_rejects_bad_orders() -> None:
    state = midgame("sample", 2, 6)
    obs = observe(state, state.current_seat)
    sampled = determinize(obs, rng=random.Random(3))
    tail = sampled.deck[sampled.deck_pos:]
    assert sorted(c for c in tail if CARDS[c].color) == sorted(obs.unseen)
    assert GAME.public_view(sampled) == GAME.public_view(state)
    with pytest.raises(ValueError):
        determinize(obs, list(obs.unseen)[1:])
    with pytest.raises(ValueError):
        determinize(obs, [*obs.unseen[1:], "ship-1"])
    with pytest.raises(ValueError):
        determinize(obs)
