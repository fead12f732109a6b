"""``view_sync.sync_view``: the client view kept in step with the state, and its patch.

Every append of seeded games of every table size and option: the kept view equals a fresh
``client_view``, the patch turns the view before into it (as a JSON Patch library applies
it), and no op value is an object of the kept view or of the state (the ops outlive both).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
import pytest

from engine.einauge import EINAUGE
from engine.einauge.view import client_view
from engine.einauge.view_sync import sync_view


def _objects(value: Any, out: set[int]) -> set[int]:
    # The ids of every list and dict in ``value`` (scalars are immutable: sharing is fine).
    if isinstance(value, dict):
        out.add(id(value))
        for v in value.values():
            _objects(v, out)
    elif isinstance(value, list):
        out.add(id(value))
        for v in value:
            _objects(v, out)
    return out


def _state_objects(s: Any) -> set[int]:
    out = {id(s.display), id(s.pirate_table), id(s.deck), id(s.options), id(s.result)}
    for p in s.players:
        out |= {id(p.rows), id(p.lone_ships), *(id(r) for r in p.rows.values())}
    return out


def _play(game: int, players: int, options: dict[str, Any]) -> int:
    rng = random.Random(game)
    g = EINAUGE
    state = g.initial_state()
    kept = g.view(state, None)
    append = g.start([f"p{i}" for i in range(players)], options, f"seed-{game}")
    appends = 0
    while True:
        for e in append:
            state = g.evolve(state, e)
        before = copy.deepcopy(kept)
        ops = sync_view(kept, state)
        fresh = client_view(state, None)
        assert kept == fresh
        assert jsonpatch.apply_patch(before, ops) == fresh
        shared = _objects(kept, set()) | _state_objects(state)
        assert not any(id(v) in shared for op in ops if "value" in op
                       for v in [op["value"]] if isinstance(v, dict | list))
        appends += 1
        if g.is_over(state):
            return appends
        seat = g.to_move(state)[0]
        append = g.decide(state, rng.choice(g.legal_actions(state, seat)))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("options", [{}, {"end_rule": "one_more_turn", "color_bonus": True}])
def test_patches_fold_to_the_fresh_view(players: int, options: dict[str, Any]) -> None:
    appends = sum(_play(game, players, options) for game in range(12))
    assert appends > 12 * 20  # whole games were played


def test_a_view_of_the_start_is_replaced_by_fields() -> None:
    g = EINAUGE
    kept = g.view(g.initial_state(), None)
    state = g.replay(g.start(["a", "b", "c"], {}, "seed"))
    ops = sync_view(kept, state)
    assert kept == client_view(state, None)
    assert {op["op"] for op in ops} == {"replace"}
    assert "/players" in {op["path"] for op in ops}


def test_an_unchanged_state_gives_no_ops() -> None:
    g = EINAUGE
    state = g.replay(g.start(["a", "b"], {}, "seed"))
    kept = client_view(state, None)
    assert sync_view(kept, state) == []
