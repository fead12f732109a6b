"""Property tests: random legal games for 2 to 5 players keep every invariant.

Each example plays one whole game with actions drawn from ``legal_actions`` and checks,
after every action: card conservation, no negative resources, replay equals the played
state, events round-trip through their wire form, nothing shows an undealt card or the
deck order, illegal actions change nothing, and ``legal_actions`` is exactly what
``decide`` accepts.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.einauge import EINAUGE
from engine.einauge import actions as ac
from engine.einauge import events as ev
from engine.einauge.cards import CARDS, COLORS
from engine.einauge.events import EVENTS
from engine.einauge.state import State
from engine.game import IllegalAction, Message

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

games = st.fixed_dictionaries({
    "n": st.integers(2, 5),
    "seed": st.text(max_size=12),
    "end_rule": st.sampled_from(["round", "one_more_turn"]),
    "color_bonus": st.booleans(),
    "rng": st.integers(0, 2**32 - 1),
})


def snapshot(s: State) -> Any:
    """Everything in a state, deeply, for before/after comparisons."""
    return (
        [(p.name, p.sabres, p.ducats, p.jewels, {k: list(v) for k, v in p.rows.items()},
          list(p.lone_ships), p.turns) for p in s.players],
        dict(s.options), s.colors, list(s.deck), s.deck_pos, list(s.display),
        list(s.pirate_table), s.phase, s.step, s.current_seat, s.end_triggered, s.revealer,
        s.turns_left, s.final_start, s.final_left, s.seq, json.dumps(s.result),
    )


def strings(obj: Any) -> set[str]:
    """Every str anywhere in a JSON-like value (dict keys included)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings(k) | strings(v) for k, v in obj.items()))
    if isinstance(obj, list | tuple):
        return set().union(*(strings(v) for v in obj))
    return set()


def keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj).union(*(keys(v) for v in obj.values()))
    if isinstance(obj, list | tuple):
        return set().union(*(keys(v) for v in obj))
    return set()


def check_cards(s: State, sold: list[str]) -> None:
    places = [*s.deck[s.deck_pos:], *s.display, *s.pirate_table, *sold]
    for p in s.players:
        places += p.lone_ships
        for row in p.rows.values():
            places += row
    assert sorted(places) == sorted(s.deck), "every card in exactly one place or sold"


def check_players(s: State) -> None:
    for p in s.players:
        assert min(p.sabres, p.ducats, p.jewels) >= 0
        for color, row in p.rows.items():
            assert color in COLORS and 1 <= len(row) <= 7
            islands = [c for c in row if CARDS[c].color]
            assert islands and all(CARDS[c].color == color for c in islands)
        assert all(CARDS[c].color is None for c in p.lone_ships)
    assert len(s.display) <= 6 and len(s.pirate_table) <= 6


def normalize(a: Message) -> Any:
    """A comparable key: an island card naming its own color as row is the same action as
    naming none; field types count (``True`` is not seat 1, as ``decide`` sees it)."""
    card = getattr(a, "card", None)
    if isinstance(card, str) and card in CARDS and getattr(a, "row", None) == CARDS[card].color:
        a = type(a)(a.seat, card)  # type: ignore[call-arg, attr-defined]
    d = a.to_dict()
    return tuple(sorted((k, type(v).__name__, repr(v)) for k, v in d.items()))


def random_action(rng: random.Random, n: int) -> Message:
    seat = rng.choice([*range(n), n, -1, "0", None, True])
    card = rng.choice([*CARDS, "blue-9", "", 3, None])
    row = rng.choice([None, *COLORS, "alone", "pink", 7])
    kind = rng.choice([ac.SellJewel, ac.SellCard, ac.Buy, ac.Fight, ac.Pass, ac.Place])
    if kind in (ac.SellJewel, ac.Pass):
        return kind(seat)
    if kind in (ac.SellCard, ac.Place):
        return kind(seat, card)
    return kind(seat, card, row)


def shaped_like(rng: random.Random, legal: list[Message], s: State) -> Message:
    """A near miss of a legal action: same type and seat, another card or row."""
    a = rng.choice(legal)
    cards = [*s.display, *s.pirate_table, *CARDS]
    seen = {c for p in s.players for r in p.rows.values() for c in r}
    card = rng.choice([*cards, *seen])
    if isinstance(a, ac.SellJewel | ac.Pass):
        return type(a)(rng.choice([a.seat, (a.seat + 1) % len(s.players)]))
    if isinstance(a, ac.SellCard | ac.Place):
        return type(a)(a.seat, card)
    return type(a)(a.seat, card, rng.choice([None, *COLORS, "alone"]))


def play_checked(params: dict[str, Any], deep: bool) -> None:
    n, rng = params["n"], random.Random(params["rng"])
    players = [f"p{i}" for i in range(n)]
    options = {"end_rule": params["end_rule"], "color_bonus": params["color_bonus"]}
    events = EINAUGE.start(players, options, params["seed"])
    state = EINAUGE.replay(events)
    folded = EINAUGE.initial_state()
    for e in events:
        folded = EINAUGE.evolve(folded, e)
    sold: list[str] = []
    for _ in range(2000):
        undealt = set(state.deck[state.deck_pos:]) if state.phase != "ended" else set()
        # views and projections: no deck, no undealt card, same for every viewer
        views = [EINAUGE.view(state, v) for v in (None, *range(n))]
        assert all(v == views[0] for v in views)
        assert "deck" not in keys(views[0]) and not strings(views[0]) & undealt
        assert EINAUGE.public_view(folded) == EINAUGE.public_view(state)
        assert EINAUGE.view(folded, None) == views[0]
        check_cards(state, sold)
        check_players(state)
        if EINAUGE.is_over(state):
            break
        (seat,) = EINAUGE.to_move(state)
        assert state.step in ("buy", "fight", "place")
        legal = EINAUGE.legal_actions(state, seat)
        assert legal, "the seat to move always has a legal action"
        assert len(set(legal)) == len(legal)
        for other in range(n):
            if other != seat:
                assert EINAUGE.legal_actions(state, other) == []
        before = snapshot(state)
        if hasattr(EINAUGE, "legal_count"):  # the fast paths agree with the list
            assert EINAUGE.legal_count(state, seat) == len(legal)
            i = rng.randrange(len(legal))
            assert EINAUGE.legal_action(state, seat, i) == legal[i]
        if deep:
            for a in legal:  # every listed action is accepted
                EINAUGE.decide(state, a)
            legal_set = {normalize(a) for a in legal}
            tries = [random_action(rng, n) for _ in range(6)]
            tries += [shaped_like(rng, legal, state) for _ in range(6)]
            for a in tries:
                if normalize(a) in legal_set:
                    EINAUGE.decide(state, a)
                    continue
                try:
                    EINAUGE.decide(state, a)
                except IllegalAction as e:
                    assert e.code and e.message
                else:
                    raise AssertionError(f"decide accepted a non-listed action {a}")
            # a permuted undealt deck changes no view
            if state.deck_count > 1:
                other = state.copy()
                rest = other.deck[other.deck_pos:]
                rng.shuffle(rest)
                other.deck = other.deck[:other.deck_pos] + rest
                for v in (None, seat):
                    assert EINAUGE.view(other, v) == EINAUGE.view(state, v)
                assert EINAUGE.legal_actions(other, seat) == legal
        assert snapshot(state) == before, "decide and views never change the state"
        action = rng.choice(legal)
        decided = EINAUGE.decide(state, action)
        new = EINAUGE.play(state, action)
        assert [e.to_dict() for e in decided] == [e.to_dict() for e in new]
        undealt_after = set(state.deck[state.deck_pos:]) if state.phase != "ended" else set()
        for e in new:
            wire = json.loads(json.dumps(e.to_dict()))
            assert EVENTS.decode(wire) == e
            d = EINAUGE.project(e, None)
            assert "deck" not in keys(d) and not strings(d) & undealt_after
            folded = EINAUGE.evolve(folded, e)
            if isinstance(e, ev.CardSold):
                sold.append(e.card)
        events.extend(new)
    else:
        raise AssertionError("game did not end")
    assert state.phase == "ended" and state.result["winners"]
    assert EINAUGE.public_view(EINAUGE.replay(events)) == EINAUGE.public_view(state)
    # a full fold from the wire form too
    wire = [EVENTS.decode(json.loads(json.dumps(e.to_dict()))) for e in events]
    assert EINAUGE.public_view(EINAUGE.replay(wire)) == EINAUGE.public_view(state)
    # step "refill"/None only between events: replay every prefix
    steps = set()
    s = EINAUGE.initial_state()
    for e in events:
        s = EINAUGE.evolve(s, e)
        steps.add(s.step)
    assert steps <= {"buy", "fight", "place", "refill", None}


@SETTINGS
@given(games)
def test_random_games_keep_invariants(params: dict[str, Any]) -> None:
    play_checked(params, deep=True)


@settings(max_examples=50, deadline=None)
@given(games)
def test_random_games_shallow(params: dict[str, Any]) -> None:
    play_checked(params, deep=False)


@SETTINGS
@given(games, st.data())
def test_illegal_actions_leave_state_untouched(params: dict[str, Any], data: st.DataObject) -> None:
    n = params["n"]
    state = EINAUGE.replay(EINAUGE.start([f"p{i}" for i in range(n)], {}, params["seed"]))
    rng = random.Random(params["rng"])
    for _ in range(data.draw(st.integers(0, 60))):
        if EINAUGE.is_over(state):
            break
        EINAUGE.play(state, rng.choice(EINAUGE.legal_actions(state, state.current_seat)))
    before = snapshot(state)
    view = EINAUGE.public_view(state)
    for _ in range(30):
        wire = data.draw(st.dictionaries(
            st.sampled_from(["type", "seat", "card", "row", "x"]),
            st.one_of(st.sampled_from(["buy", "pass", "fight", "place", "sell_jewel",
                                       "sell_card", "blue-5", "ship-1", "alone"]),
                      st.integers(-1, 6), st.none(), st.text(max_size=4)),
            max_size=4))
        try:
            action = ac.ACTIONS.decode(wire)
        except IllegalAction as e:
            assert e.code == "bad_message"
            continue
        legal = {normalize(a) for a in EINAUGE.legal_actions(state, state.current_seat)} \
            if not EINAUGE.is_over(state) else set()
        try:
            EINAUGE.decide(state, action)
        except IllegalAction:
            assert normalize(action) not in legal
        except Exception as e:
            raise AssertionError(f"{action!r} raised {e!r}") from e
        else:
            assert normalize(action) in legal
        assert snapshot(state) == before and EINAUGE.public_view(state) == view
