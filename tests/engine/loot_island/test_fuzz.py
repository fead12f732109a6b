"""Bad input: any action dict, however malformed, gets an ``IllegalAction`` (never another
exception) or is legal, and a refused one changes nothing."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.game import IllegalAction
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island.actions import ACTIONS
from engine.loot_island.data import HEALER_IDS, ISLETS, LANDINGS, LOOT, MAP_IDS
from engine.loot_island.state import State

IDS = [*MAP_IDS[:30], *ISLETS, *LANDINGS, *list(LOOT)[:10], *HEALER_IDS[:4], "", "x"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2, 12), st.sampled_from(IDS),
                    st.floats(allow_nan=True))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from([*IDS[:8], "a"]), inner,
                                                 max_size=3)), max_leaves=6)
KEYS = ["seat", "type", "cards", "landing", "values", "copy", "islet", "skip", "from", "to",
        "card", "healer", "from_", "extra"]
TYPES = ["discard", "play", "islet", "pass", "take_loot", "discard_loot", "choose_healer",
         "nope", 3]


def _states() -> list[State]:
    rng = random.Random(5)
    events = G.start(["a", "b", "c"], {}, "fuzz")
    state = G.replay(events)
    out, phases = [], set()
    while not G.is_over(state):
        key = (state.phase, state.round < 2)
        if key not in phases:
            phases.add(key)
            out.append(state.copy())
        legal = G.legal_actions(state, G.to_move(state)[0])
        G.play(state, legal[rng.randrange(len(legal))])
    out.append(state)
    return out


STATES = _states()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(STATES) - 1), kind=st.sampled_from(TYPES),
       fields=st.dictionaries(st.sampled_from(KEYS), values, max_size=5),
       seat_from_state=st.booleans())
def test_any_action_is_refused_cleanly_or_legal(which: int, kind: object, fields: dict,
                                                seat_from_state: bool) -> None:
    s = STATES[which]
    data = {**fields, "type": kind}
    if seat_from_state and s.current_seat is not None:
        data["seat"] = s.current_seat
    before = [json.dumps(G.view(s, v)) for v in (None, 0, 1, 2)]
    try:
        action = ACTIONS.decode(data)
        G.decide(s, action)
    except IllegalAction as e:
        assert e.code and e.message
    assert [json.dumps(G.view(s, v)) for v in (None, 0, 1, 2)] == before
