"""Observations for bots and states sampled from them (OpenSpiel's
``resample_from_infostate``): what a seat knows, nothing more, and samples that agree."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.bots import RandomBot
from engine.keltis import KELTIS
from engine.keltis.cards import CANONICAL
from engine.keltis.observation import observation, sample
from engine.selfplay import random_playout
from tests.engine.keltis.helpers import Table


def _midgame(n: int, seed: str, actions: int) -> Table:
    t = Table(n, seed=seed)
    r = random.Random(seed)
    for _ in range(actions):
        legal = t.legal()
        t.play(legal[r.randrange(len(legal))])
    return t


@pytest.mark.parametrize("n", [2, 3, 4])
def test_observation_holds_own_hand_and_the_unseen_multiset(n: int) -> None:
    t = _midgame(n, f"obs{n}", 61)
    for seat in range(n):
        o = observation(t.state, seat)
        assert o.hand == tuple(t.state.players[seat].hand)
        hidden = [c for i, p in enumerate(t.state.players) if i != seat
                  for c in p.hand if c not in p.known]
        where = [*hidden, *t.state.removed, *t.state.deck[t.state.deck_pos:]]
        assert sorted(o.unseen) == sorted(where)
        assert list(o.unseen) == sorted(o.unseen, key=CANONICAL.index)  # never deck order
        assert o.legal == tuple(KELTIS.legal_actions(t.state, seat))


def test_known_cards_of_other_hands() -> None:
    t = Table(2, hands={0: ["green-5a"]})
    t.discard("green-5a")
    t.draw()
    t.discard(t.hand(1)[0])
    t.draw("green")
    o = observation(t.state, 0)
    assert o.players[1].known == ("green-5a",) and "green-5a" not in o.unseen


def test_observation_is_blind_to_where_unseen_cards_lie() -> None:
    base = Table(3, seed="blind")
    o = observation(base.state, 0)
    x, y = o.unseen[0], o.unseen[-1]
    swapped = [y if c == x else x if c == y else c for c in base.deck]
    other = Table(3, deck=swapped)
    assert other.state.deck != base.state.deck
    assert observation(other.state, 0) == o


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sample_agrees_with_the_observation(n: int) -> None:
    t = _midgame(n, f"sample{n}", 45)
    for seat in range(n):
        o = observation(t.state, seat)
        samples = [sample(o, random.Random(i)) for i in range(5)]
        for s in samples:
            assert observation(s, seat) == o  # everything the seat knows is unchanged
            for viewer in (seat, None):
                assert KELTIS.view(s, viewer) == KELTIS.view(t.state, viewer)
        hidden = {tuple(tuple(p.hand) for p in s.players) for s in samples}
        assert len(hidden) > 1  # the hidden part is really resampled


def test_sampled_states_play_to_the_end() -> None:
    t = _midgame(3, "playout", 30)
    o = observation(t.state, t.seat)
    s = sample(o, random.Random(1))
    random_playout(KELTIS, s, random.Random(2))
    assert KELTIS.is_over(s) and s.result is not None


def test_sample_refuses_inconsistent_observations() -> None:
    o = observation(Table(2).state, 0)
    with pytest.raises(ValueError):
        sample(replace(o, deck_count=o.deck_count + 1), random.Random(0))


def test_observation_errors_and_random_bot_acts_on_it() -> None:
    t = Table(2)
    with pytest.raises(ValueError):
        observation(t.state, 2)
    with pytest.raises(ValueError):
        observation(KELTIS.initial_state(), 0)
    action = RandomBot(3).act(observation(t.state, 0))
    assert action in KELTIS.legal_actions(t.state, 0)
