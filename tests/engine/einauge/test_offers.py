"""``offers``: the cost and payout shown for each legal action are exactly what its event
carries; the view's ``turn`` counts the turns the events show."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.einauge import EINAUGE
from engine.einauge import actions as ac
from engine.einauge import events as ev
from engine.einauge.cards import CARDS
from engine.einauge.view import client_view
from tests.engine.einauge.helpers import Table, final_round_seats, normal_turn_seats


def _random_game(seed: int, players: int) -> Table:
    t = Table(players=[f"P{i}" for i in range(players)], seed=f"offers-{seed}")
    rng = random.Random(seed)
    t.checked = 0  # type: ignore[attr-defined]
    while not EINAUGE.is_over(t.state):
        legal = t.legal()
        details = EINAUGE.action_details(t.state, t.seat)
        assert len(details) == len(legal)
        for action, d in zip(legal, details, strict=True):
            first = EINAUGE.decide(t.state, action)[0]
            if isinstance(first, ev.CardBought | ev.FightWon):
                assert d["payout"] == {"sabres": first.sabres, "ducats": first.ducats,
                                       "jewels": first.jewels}
                if isinstance(first, ev.CardBought):
                    assert d["cost"] == {"ducats": first.price}
                else:
                    assert d["cost"] == {"sabres": first.cost}
                after = client_view(EINAUGE.replay([*t.events, first]), None)
                row = first.row
                held = after["players"][t.seat]["chests"].get(row, 0) if row != "alone" else 0
                assert d["chests"] == held
                t.checked += 1  # type: ignore[attr-defined]
            elif isinstance(first, ev.CardSold | ev.JewelSold):
                assert d == {"gain": {"ducats": first.ducats}}
            else:
                assert d == {}
        t.play(rng.choice(legal))
    return t


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 3), (3, 5)])
def test_every_shown_payout_and_cost_is_the_events(seed: int, players: int) -> None:
    t = _random_game(seed, players)
    assert t.checked > 20  # type: ignore[attr-defined]


def test_ship_rows_each_get_their_own_payout() -> None:
    seen = 0
    for seed in range(30):
        t = Table(players=["A", "B"], seed=f"ships-{seed}")
        rng = random.Random(seed)
        while not EINAUGE.is_over(t.state):
            legal = t.legal()
            details = EINAUGE.action_details(t.state, t.seat)
            for a, d in zip(legal, details, strict=True):
                if isinstance(a, ac.Buy | ac.Fight) and a.card.startswith("ship"):
                    p = t.state.players[t.seat]
                    if a.row == "alone":
                        assert d["payout"] == {"sabres": 0, "ducats": 0, "jewels": 0}
                        assert d["chests"] == 0
                    else:  # a ship adds nothing: the row pays what its cards yield
                        cards = p.rows[a.row]
                        assert d["payout"]["sabres"] == sum(CARDS[c].sabres for c in cards)
                        assert d["chests"] == sum(CARDS[c].chests for c in cards)
                        seen += 1
            t.play(rng.choice(legal))
        if seen > 5:
            break
    assert seen > 5


def test_no_details_for_a_seat_not_to_move() -> None:
    t = Table(players=["A", "B"])
    assert EINAUGE.action_details(t.state, 1) == []


@pytest.mark.parametrize("end_rule", ["round", "one_more_turn"])
def test_the_views_turn_counts_the_turns_of_the_events(end_rule: str) -> None:
    t = Table(players=["A", "B", "C"], seed=f"turns-{end_rule}", end_rule=end_rule)
    rng = random.Random(3)
    while not EINAUGE.is_over(t.state):
        t.play(rng.choice(t.legal()))
    turns = [client_view(EINAUGE.replay(t.events[:k]), None)["turn"]
             for k in range(len(t.events) + 1)]
    assert turns[0] == 0 and turns[1] == 1
    assert all(b - a in (0, 1) for a, b in itertools.pairwise(turns))
    assert turns[-1] == len(normal_turn_seats(t.events)) + len(final_round_seats(t.events))
    # Each turn's events (by the turn the view before them shows) hold one seat's moves.
    by_turn: dict[int, set[int]] = {}
    for k, e in enumerate(t.events):
        seat = getattr(e, "seat", None)
        if seat is not None and not isinstance(e, ev.ShipRevealed | ev.FinalRoundStarted):
            by_turn.setdefault(max(1, turns[k]), set()).add(seat)
    assert all(len(seats) == 1 for seats in by_turn.values())
