"""View patches (server/table/patch.py): RFC 6902 documents that ``jsonpatch`` (the library the
tests use, as the web client uses fast-json-patch) turns into exactly the new view."""

from __future__ import annotations

import copy
import random

import jsonpatch
from hypothesis import given
from hypothesis import strategies as st

from engine import GAMES
from server.table.patch import diff, escape, whole

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                           max_leaves=10)
views = st.dictionaries(st.sampled_from(["a", "b", "a/b", "~x", "", "players"]), json_values,
                        max_size=5)


@given(views, views)
def test_any_view_shape_patches_exactly(before: dict, after: dict) -> None:
    patch = diff(before, after)
    assert jsonpatch.apply_patch(copy.deepcopy(before), patch) == after
    assert diff(before, after) == patch  # deterministic: every process sends the same


def test_deleted_keys_and_first_patch() -> None:
    assert diff({"a": 1, "gone": 2}, {"a": 1}) == [{"op": "remove", "path": "/gone"}]
    assert diff(None, {"a": 1}) == whole({"a": 1})
    assert jsonpatch.apply_patch({"old": True}, whole({"a": 1})) == {"a": 1}
    assert diff({"a": 1}, {"a": 1}) == []
    assert escape("a/b~c") == "a~1b~0c"


def test_patches_fold_a_whole_game_of_each_game() -> None:
    for game in GAMES.values():
        seats = min(game.min_players + 1, game.max_players)
        for viewer in (None, 0, seats - 1):
            rng = random.Random(0)
            folded: dict = {}
            seen = None
            s = game.replay(game.start([f"p{i}" for i in range(seats)], {}, "p"))
            while not game.is_over(s):
                view = game.view(s, viewer)
                folded = jsonpatch.apply_patch(folded, diff(seen, view))
                assert folded == view
                seen = view
                seat = rng.choice(game.to_move(s))
                game.play(s, rng.choice(game.legal_actions(s, seat)))
            view = game.view(s, viewer)  # the final view too
            assert jsonpatch.apply_patch(folded, diff(seen, view)) == view
