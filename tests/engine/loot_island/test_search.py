"""The search's moves (engine/loot_island/search.py): every one is legal, there are few of
them, they keep the decisions that matter (a discard of one card or a colour, every pick
and healer), and ``action_key`` tells apart exactly the actions that differ."""

from __future__ import annotations

import random

import pytest

from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import actions as ac
from engine.loot_island import greedy
from engine.loot_island.search import TOP, action_key, search_actions


def _positions(n: int, seed: str, games: int = 3):
    """Every decision of ``games`` random games with ``n`` players (half the moves greedy,
    so that the board fills as in real play), with the seat to move."""
    from engine.bots import make_bot

    for g in range(games):
        rng = random.Random(f"{seed}-{g}")
        greedy = make_bot("greedy", f"{seed}-{g}", game="loot-island")
        state = G.replay(G.start([f"p{i}" for i in range(n)], {"events": g % 2 == 0},
                                 f"{seed}-{g}"))
        while not G.is_over(state):
            seat = G.to_move(state)[0]
            yield state, seat
            if rng.random() < 0.5:
                action = greedy.choose(G, state, seat)
            else:
                legal = G.legal_actions(state, seat)
                action = legal[rng.randrange(len(legal))]
            G.play(state, action)


@pytest.mark.parametrize("n", [2, 4, 5])
def test_every_search_move_is_legal_and_there_are_few(n: int) -> None:
    sizes = []
    for state, seat in _positions(n, f"search-{n}"):
        legal = G.legal_actions(state, seat)
        legal_keys = {action_key(a) for a in legal}
        assert len(legal_keys) == len(legal)  # the key tells every legal action apart
        moves = search_actions(state, seat)
        assert moves and len({action_key(a) for a in moves}) == len(moves)
        for a in moves:
            assert action_key(a) in legal_keys, a
            G.decide(state, a)  # raises if the rules refuse it
        other = (seat + 1) % n
        assert search_actions(state, other) == []
        if state.phase == "actions":
            assert len(moves) <= TOP + 1 and isinstance(moves[-1], ac.Pass)
        elif state.phase == "preparation":
            hand = state.players[seat].hand
            assert ac.Discard(seat, []) in moves
            assert all(ac.Discard(seat, [c]) in moves for c in hand)
            assert len(moves) <= len(hand) + 5
        else:  # picks and healers: all of them, the greedy policy's choice first
            assert sorted(map(repr, moves)) == sorted(map(repr, legal))
            g = greedy._pick(state, seat, legal) if state.offer else greedy._healer(state, seat)
            assert moves[0] == g
        sizes.append((len(moves), len(legal)))
    assert max(m for m, _ in sizes) <= 40 < max(k for _, k in sizes)  # it does prune


def test_jokers_are_named_the_lowest_value() -> None:
    s = G.replay(G.start(["a", "b"], {"events": False}, "joker"))
    s.players[0].hand = ["map-red-star-a", "map-red-5a", "map-red-7a", "map-blue-2a"]
    moves = [a for a in search_actions(s, 0) if isinstance(a, ac.Play)]
    with_joker = [a for a in moves if "map-red-star-a" in a.cards]
    assert with_joker and all(a.cards[0] == "map-red-star-a"
                              and a.values == {"map-red-star-a": 1} for a in with_joker)
    # On a row topped by a 5 the joker is a 5, laid after a printed 5 (canonical order).
    s.landings[0].cards, s.landings[0].values, s.landings[0].discs = (
        ["map-red-2b", "map-red-5b"], [2, 5], [0])
    s.players[0].hand = ["map-red-star-a", "map-red-5a", "map-red-7a"]
    on_row = [a.cards for a in search_actions(s, 0)
              if isinstance(a, ac.Play) and a.landing == "north-1"]
    assert ["map-red-5a", "map-red-star-a", "map-red-7a"] in on_row
    assert all(a.values == {"map-red-star-a": 5} for a in search_actions(s, 0)
               if isinstance(a, ac.Play) and a.landing == "north-1" and a.values)


def test_action_key_is_hashable_and_ignores_nothing_but_the_seat() -> None:
    a = ac.Play(0, "north-1", ["map-red-2a", "map-red-star-a"], {"map-red-star-a": 4})
    b = ac.Play(0, "north-1", ["map-red-2a", "map-red-star-a"], {"map-red-star-a": 5})
    c = ac.Play(0, "north-2", ["map-red-2a", "map-red-star-a"], {"map-red-star-a": 4})
    assert len({action_key(x) for x in (a, b, c)}) == 3
    assert action_key(a) == action_key(ac.Play(0, "north-1", ["map-red-2a", "map-red-star-a"],
                                               {"map-red-star-a": 4}))
    i1 = ac.Islet(0, "islet-portage", ["map-red-2a", "map-red-3a"], None, None, "north-1",
                  "east-1")
    i2 = ac.Islet(0, "islet-portage", ["map-red-2a", "map-red-3a"], None, None, "north-1",
                  "east-2")
    assert action_key(i1) != action_key(i2)
    assert action_key(ac.Discard(0, [])) != action_key(ac.Discard(0, ["map-red-2a"]))
    assert action_key(ac.TakeLoot(1, "loot-01")) != action_key(ac.DiscardLoot(1, "loot-01"))
