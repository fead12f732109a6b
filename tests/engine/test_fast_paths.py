"""The engine's fast paths agree exactly with the plain rules API.

``legal_count``/``legal_action`` (the count and the n-th legal action, with their
out-of-range errors), the interned and memoized actions and events, and ``random_playout``
must give exactly what ``legal_actions``, fresh message objects and a ``RandomBot``-style
loop give.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.einauge import actions as ac
from engine.einauge import events as ev
from engine.einauge import rules
from engine.einauge.game import EINAUGE
from engine.einauge.state import State
from engine.einauge.view import public_view
from engine.game import IllegalAction
from engine.selfplay import random_playout

OPTIONS = ({"end_rule": "round", "color_bonus": False},
           {"end_rule": "one_more_turn", "color_bonus": True})


def _fresh(message):
    """An equal message built from scratch, from its wire form."""
    codec = EINAUGE.actions if type(message) in EINAUGE.actions.classes.values() else EINAUGE.events
    return codec.decode(message.to_dict())


def _check_menu(state: State) -> None:
    """At this state, for every seat: count, n-th and the list agree, and out-of-range
    indexes raise ``IndexError``."""
    for seat in range(len(state.players)):
        legal = EINAUGE.legal_actions(state, seat)
        count = EINAUGE.legal_count(state, seat)
        assert count == len(legal)
        assert [EINAUGE.legal_action(state, seat, i) for i in range(count)] == legal
        for bad in (count, count + 5, -1):
            with pytest.raises(IndexError):
                EINAUGE.legal_action(state, seat, bad)
        if seat != state.current_seat:
            assert count == 0


def _walk(n: int, options: dict, seed: str, check=_check_menu) -> State:
    rng = random.Random(seed)
    events = EINAUGE.start([f"p{i}" for i in range(n)], options, seed)
    state = EINAUGE.replay(events)
    while not EINAUGE.is_over(state):
        check(state)
        seat = state.current_seat
        legal = EINAUGE.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        assert _fresh(action) == action and _fresh(action).to_dict() == action.to_dict()
        new = EINAUGE.play(state, action)
        for e in new:
            assert _fresh(e) == e
        events.extend(new)
    check(state)
    assert public_view(EINAUGE.replay(events)) == public_view(state)
    return state


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("options", OPTIONS, ids=["round", "one_more_turn+bonus"])
def test_count_and_nth_match_legal_actions_in_every_state(n: int, options: dict) -> None:
    for i in range(6):
        state = _walk(n, options, f"fast-{n}-{i}")
        assert state.result is not None


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 5), seed=st.text(min_size=1, max_size=12),
       one_more=st.booleans())
def test_count_and_nth_match_for_any_seed(n: int, seed: str, one_more: bool) -> None:
    _walk(n, OPTIONS[one_more], seed)


def test_ships_in_rows_full_rows_and_ship_offers() -> None:
    # A hand-made buy step: a row holding ships, a full row, a ship in the display.
    state = EINAUGE.replay(EINAUGE.start(["a", "b"], {}, "hand"))
    seat = state.current_seat
    p = state.players[seat]
    p.rows = {"red": ["red-2", "ship-1", "red-5"],
              "blue": [f"blue-{x}" for x in range(2, 8)] + ["ship-2"],
              "green": ["green-3"]}
    p.lone_ships = ["ship-3"]
    state.display[0] = "ship-4"
    state.display[1] = "blue-8"
    p.ducats, p.jewels = 8, 0
    _check_menu(state)
    legal = EINAUGE.legal_actions(state, seat)
    sells = [a.card for a in legal if type(a) is ac.SellCard]
    assert sells == ["red-2", "red-5", *(f"blue-{x}" for x in range(2, 8)), "green-3"]
    buys = [(a.card, a.row) for a in legal if type(a) is ac.Buy]
    assert ("ship-4", "blue") not in buys  # the blue row is full
    # rows in canonical color order, then alone
    assert [r for c, r in buys if c == "ship-4"] == ["green", "red", "alone"]
    assert all(c != "blue-8" for c, _ in buys)


def test_every_listed_action_is_accepted_and_interned_events_match_fresh_ones() -> None:
    rng = random.Random(7)
    state = EINAUGE.replay(EINAUGE.start(["a", "b", "c"], {}, "accept"))
    while not EINAUGE.is_over(state):
        seat = state.current_seat
        for action in EINAUGE.legal_actions(state, seat):
            before = public_view(state)
            events = EINAUGE.decide(state, action)
            assert public_view(state) == before
            assert events and all(_fresh(e) == e for e in events)
        legal = EINAUGE.legal_actions(state, seat)
        EINAUGE.play(state, legal[rng.randrange(len(legal))])


def test_memoized_payout_events_carry_their_own_payout() -> None:
    # The same card bought onto different rows must not reuse the first memoized event.
    state = EINAUGE.replay(EINAUGE.start(["a", "b"], {}, "memo"))
    seat = state.current_seat
    card = next(c for c in state.display if c in rules.ISLAND_SET and rules.PRICE[c] <= 20)
    color, price = rules.COLOR[card], rules.PRICE[card]
    first = EINAUGE.decide(state, ac.Buy(seat, card))[0]
    assert first == ev.CardBought(seat, card, color, price, *rules.YIELDS[card])
    # Give the player a row of that color behind the card (two other cards of the color).
    others = [f"{color}-{x}" for x in range(2, 9) if f"{color}-{x}" != card][:2]
    state.players[seat].rows[color] = list(others)
    second = EINAUGE.decide(state, ac.Buy(seat, card))[0]
    total = [sum(rules.YIELDS[c][i] for c in [*others, card]) for i in range(3)]
    assert second == ev.CardBought(seat, card, color, price, *total)
    assert second.to_dict() == _fresh(second).to_dict()


def test_illegal_index_and_wrong_seat() -> None:
    state = EINAUGE.replay(EINAUGE.start(["a", "b"], {}, "idx"))
    assert EINAUGE.legal_count(state, 1) == 0
    with pytest.raises(IndexError):
        EINAUGE.legal_action(state, 1, 0)
    with pytest.raises(IndexError):
        EINAUGE.legal_action(state, 0, True)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction) as err:
        EINAUGE.play(state, ac.Pass(1))
    assert err.value.code == "not_your_turn"


@pytest.mark.parametrize("n", [2, 5])
def test_random_playout_picks_what_a_random_bot_picks(n: int) -> None:
    names = [f"p{i}" for i in range(n)]
    for i in range(5):
        start = EINAUGE.start(names, {}, f"playout-{i}")
        fast_state = EINAUGE.replay(start)
        fast_actions: list = []
        fast_events: list = []
        played = random_playout(EINAUGE, fast_state, random.Random(i), fast_actions,
                                fast_events)
        assert played == len(fast_actions)

        rng = random.Random(i)
        state = EINAUGE.replay(start)
        actions, events = [], []
        while not EINAUGE.is_over(state):
            legal = EINAUGE.legal_actions(state, state.current_seat)
            actions.append(legal[rng.randrange(len(legal))])
            events.extend(EINAUGE.play(state, actions[-1]))
        assert fast_actions == actions and fast_events == events
        assert public_view(fast_state) == public_view(state)
