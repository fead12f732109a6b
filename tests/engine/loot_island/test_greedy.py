"""The greedy policy (engine/loot_island/greedy.py): always legal, blind to what its seat
cannot see, deterministic for its rng, and its picks and healers follow the heuristic."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import actions as ac
from engine.loot_island.data import EVENTS_B, HEALER_IDS, HEALERS, LOOT, LOOT_DECKS
from engine.loot_island.greedy import choose
from engine.loot_island.state import State
from tests.engine.loot_island.helpers import Table, loot_first, to_round


def _greedy_game(n: int, seed: str, check: bool = True) -> tuple[State, list]:
    events = G.start([f"P{i}" for i in range(n)], {}, seed)
    state = G.replay(events)
    rng = random.Random(seed)
    actions = []
    while not G.is_over(state):
        seat = G.to_move(state)[0]
        action = choose(state, seat, rng)
        if check:
            if state.phase == "preparation":
                assert action == ac.Discard(seat, [])
            else:
                assert action in G.legal_actions(state, seat)
            G.decide(state, action)  # raises if illegal
        actions.append(action)
        events.extend(G.play(state, action))
    return state, actions


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_greedy_plays_whole_games_legally(n: int) -> None:
    state, actions = _greedy_game(n, f"greedy-legal-{n}")
    assert G.is_over(state) and state.result["winners"]
    kinds = {type(a) for a in actions}
    assert {ac.Play, ac.Pass, ac.ChooseHealer} <= kinds  # it does more than pass


def test_deterministic_for_its_rng() -> None:
    _, a1 = _greedy_game(4, "greedy-det", check=False)
    _, a2 = _greedy_game(4, "greedy-det", check=False)
    assert a1 == a2


def _scramble(s: State, rng: random.Random) -> State:
    """A copy of ``s`` that differs in everything the seat to move cannot see: the other
    hands and the map deck re-dealt from their union, each loot deck I-IV shuffled in
    place, the set-aside healers (until revealed) and the face-down events redrawn, and
    another seed (so other reshuffles)."""
    seat = s.current_seat
    t = s.copy()
    others = [i for i in range(len(t.players)) if i != seat]
    pool = [c for i in others for c in t.players[i].hand] + t.map_deck
    rng.shuffle(pool)
    for i in others:
        k = len(t.players[i].hand)
        t.players[i].hand, pool = pool[:k], pool[k:]
    t.map_deck = pool
    deck = t.loot_deck[::-1]  # top first
    out: list[str] = []
    for d in LOOT_DECKS:
        part = [c for c in deck if LOOT[c].deck == d]
        rng.shuffle(part)
        out += part
    t.loot_deck = out[::-1]
    if t.chooser_order is None:
        t.aside = rng.sample(list(HEALER_IDS), len(t.players))
    if t.events:
        seen = set(t.events_seen)
        t.events = t.events_seen + rng.sample([e for e in EVENTS_B if e not in seen],
                                              5 - len(t.events_seen))
    t.seed = f"other-{rng.random()}"
    return t


def _position(n: int, seed: int, steps: int) -> State:
    rng = random.Random(seed)
    events = G.start([f"P{i}" for i in range(n)], {}, f"pos-{seed}")
    state = G.replay(events)
    for _ in range(steps):
        if G.is_over(state):
            break
        seat = G.to_move(state)[0]
        if rng.random() < 0.5:
            action = choose(state, seat, rng)
        else:
            legal = G.legal_actions(state, seat)
            action = legal[rng.randrange(len(legal))]
        G.play(state, action)
    return state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 5), seed=st.integers(0, 10_000), steps=st.integers(0, 160),
       other=st.integers(0, 10_000), r=st.integers(0, 10_000))
def test_the_choice_ignores_what_the_seat_cannot_see(n: int, seed: int, steps: int,
                                                     other: int, r: int) -> None:
    state = _position(n, seed, steps)
    if G.is_over(state):
        return
    seat = state.current_seat
    twin = _scramble(state, random.Random(other))
    assert G.view(twin, seat) == G.view(state, seat)
    hidden = lambda s: ([p.hand for i, p in enumerate(s.players) if i != seat],  # noqa: E731
                        s.map_deck, s.loot_deck, s.seed)
    assert hidden(twin) != hidden(state)
    assert choose(twin, seat, random.Random(r)) == choose(state, seat, random.Random(r))
    # and the observation gives the same as the state it came from
    assert choose(G.observation(state, seat), seat, random.Random(r)) \
        == choose(state, seat, random.Random(r))


def test_refuses_a_seat_without_a_decision() -> None:
    state = _position(3, 1, 0)
    other = (state.current_seat + 1) % 3
    with pytest.raises(ValueError, match="no decision pending"):
        choose(state, other, random.Random(0))
    with pytest.raises(ValueError, match="observation is seat"):
        choose(G.observation(state, 0), 1, random.Random(0))


def test_picks_keep_valuable_loot_and_discard_curses() -> None:
    # Round 1, north-1 (4 chests, seat 0's disc) qualifies: the big loot is 5 cards, among
    # them loot-16 (bag, 12 gold, 4 curses) and loot-08 (amulet, 1 gold, no curse).
    offer = ("loot-16", "loot-08", "loot-02", "loot-05", "loot-06")
    t = Table(2, seed="picks", options={"events": False}, orders=loot_first(*offer))
    t.arrange(landings={"north-1": (["map-red-2a", "map-red-3a", "map-red-6a",
                                     "map-red-8a"], [0])}, cubes=[3, 3])
    t.pass_all()
    assert t.state.offer == list(offer)
    action = choose(t.state, 0, random.Random(0))
    assert action == ac.TakeLoot(0, "loot-16")  # 12 gold for 4 cubes at 3 cubes
    # with 11 cubes, keeping the bag (15) would be elimination
    t2 = Table(2, seed="picks", options={"events": False}, orders=loot_first(*offer))
    t2.arrange(landings={"north-1": (["map-red-2a", "map-red-3a", "map-red-6a",
                                      "map-red-8a"], [0])}, cubes=[11, 3])
    t2.pass_all()
    action = choose(t2.state, 0, random.Random(0))
    assert action != ac.TakeLoot(0, "loot-16")
    assert action == ac.TakeLoot(0, "loot-08") or isinstance(action, ac.DiscardLoot)


def test_healer_is_the_cheapest_for_the_cubes() -> None:
    t = Table(3, seed="healer-pick", options={"events": False},
              orders={"healers": ["healer-04", "healer-10", "healer-05",
                                  *(h for h in HEALER_IDS
                                    if h not in ("healer-04", "healer-10", "healer-05"))]})
    to_round(t, 5)
    t.arrange(cubes=[9, 1, 4])
    t.pass_all()
    while t.state.phase != "healers":
        t.play(choose(t.state, t.seat, random.Random(0)))
    seat = t.seat
    cubes = t.state.players[seat].cubes
    action = choose(t.state, seat, random.Random(0))
    left = t.state.healers_left()
    cost = {h: HEALERS[h].multiplier * cubes + HEALERS[h].fixed for h in left}
    assert isinstance(action, ac.ChooseHealer) and cost[action.healer] == min(cost.values())
