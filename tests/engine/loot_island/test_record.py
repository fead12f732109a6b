"""Game records (CONTRACT §1): write, read, replay, errors."""

from __future__ import annotations

import json
import random

import pytest

from engine.game import RecordError
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import actions as ac
from engine.loot_island import events as ev
from engine.selfplay import random_playout

make_record = G.make_record
replay_record = G.replay_record
record_view = G.record_view

CONTRACT_ACTIONS = [
    {"seat": 0, "type": "play", "landing": "north-1", "cards": ["map-red-2a", "map-red-3b"]},
    {"seat": 1, "type": "play", "landing": "north-2",
     "cards": ["map-blue-4a", "map-blue-star-a"], "values": {"map-blue-star-a": 6}},
    {"seat": 2, "type": "play", "landing": "north-1", "cards": ["map-red-5a"]},
    {"seat": 3, "type": "islet", "islet": "islet-winds",
     "cards": ["map-yellow-5a", "map-yellow-5b"], "skip": True},
    {"seat": 0, "type": "pass"},
    {"seat": 1, "type": "pass"},
    {"seat": 2, "type": "islet", "islet": "islet-shortcut",
     "cards": ["map-green-2b", "map-green-9a"], "landing": "north-1"},
    {"seat": 3, "type": "play", "landing": "east-1", "cards": ["map-green-1a"]},
    {"seat": 2, "type": "pass"},
    {"seat": 3, "type": "pass"},
    {"seat": 2, "type": "take_loot", "card": "loot-19"},
    {"seat": 0, "type": "discard_loot", "card": "loot-01"},
    {"seat": 0, "type": "discard", "cards": ["map-yellow-10b"]},
    {"seat": 1, "type": "discard", "cards": []},
    {"seat": 0, "type": "islet", "islet": "islet-portage", "cards": ["map-red-1a", "map-red-1b"],
     "from": "north-1", "to": "east-2"},
    {"seat": 0, "type": "choose_healer", "healer": "healer-08"},
]


def played(seed: str, n: int = 4, options: dict | None = None) -> tuple[dict, list]:
    events = G.start([f"P{i}" for i in range(n)], options or {}, seed)
    state = G.replay(events)
    actions: list = []
    random_playout(G, state, random.Random(seed), actions, events)
    record = make_record([f"P{i}" for i in range(n)], options or {}, seed,
                         G.setup_orders(events), actions)
    return json.loads(json.dumps(record)), events


def test_contract_action_shapes_decode_and_round_trip() -> None:
    for data in CONTRACT_ACTIONS:
        action = ac.ACTIONS.decode(data)
        assert action.to_dict() == data
    portage = ac.ACTIONS.decode(CONTRACT_ACTIONS[-2])
    assert portage.from_ == "north-1" and portage.to == "east-2"  # type: ignore[attr-defined]


def test_record_round_trip_replays_every_event() -> None:
    record, events = played("record-1", 4)
    assert list(record)[:6] == ["game", "players", "options", "seed", "orders", "actions"]
    assert record["options"] == {"events": True, "min_cards": None}
    assert len(record["orders"]["map_reshuffles"]) >= 1
    state, replayed = replay_record(record)
    # game_started also carries the record's reshuffle entries; everything else is equal
    assert replayed[0].orders == events[0].orders  # type: ignore[attr-defined]
    assert replayed[0].map_reshuffles == record["orders"]["map_reshuffles"]  # type: ignore[attr-defined]
    assert [e.to_dict() for e in replayed[1:]] == [e.to_dict() for e in events[1:]]
    assert G.is_over(state) and state.result == events[-1].result


def test_a_seedless_record_with_all_orders_replays_the_same() -> None:
    record, events = played("record-2", 3)
    record["seed"] = None
    _, replayed = replay_record(record)
    assert replayed[0].seed is None  # type: ignore[attr-defined]
    assert [e.to_dict() for e in replayed[1:]] == [e.to_dict() for e in events[1:]]
    # without the reshuffle entries, the action whose steps needed the first one fails
    k = _first_reshuffling_action(record)
    record["orders"]["map_reshuffles"] = []
    with pytest.raises(RecordError) as err:
        replay_record(record)
    assert err.value.index == k and "reshuffle_unknown" in err.value.reason


def _first_reshuffling_action(record: dict) -> int:
    for k in range(len(record["actions"])):
        _, events = replay_record({**record, "actions": record["actions"][:k + 1]})
        if any(isinstance(e, ev.MapDeckReshuffled) for e in events):
            return k
    raise AssertionError("no reshuffle in this game")


def test_a_reshuffle_entry_replaces_the_seeded_one_and_must_match_the_pile() -> None:
    record, events = played("record-3", 3)
    first = next(e for e in events if isinstance(e, ev.MapDeckReshuffled))
    k = _first_reshuffling_action(record)
    given = list(reversed(first.cards))
    cut = {**record, "actions": record["actions"][:k + 1]}
    cut["orders"] = {**record["orders"], "map_reshuffles": [given]}
    _, replayed = replay_record(cut)
    r = next(e for e in replayed if isinstance(e, ev.MapDeckReshuffled))
    assert r.cards == given != first.cards
    cut["orders"] = {**record["orders"], "map_reshuffles": [given[1:]]}
    with pytest.raises(RecordError) as err:
        replay_record(cut)
    assert err.value.index == k and "bad_reshuffle" in err.value.reason


def test_setup_lists_from_orders_win_over_the_seed() -> None:
    record, _ = played("record-4", 2)
    lists = record["orders"]
    other = G.start(["a", "b"], {}, "another-seed", {"map": lists["map"]})
    assert other[0].orders["map"] == lists["map"]  # type: ignore[attr-defined]
    assert other[0].orders["loot_1"] != lists["loot_1"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("patch", "field"), [
    ({"game": "einauge"}, "game"), ({"players": ["solo"]}, "Loot Island needs"),
    ({"options": {"events": True, "speed": 1}}, "options"), ({"seed": 7}, "seed"),
    ({"orders": {"map": []}}, "orders"), ({"actions": {}}, "actions"),
    ({"seed": None, "orders": {}}, "seed")])
def test_malformed_records_name_the_field(patch: dict, field: str) -> None:
    record, _ = played("record-5", 2)
    with pytest.raises(RecordError) as err:
        replay_record({**record, **patch})
    assert err.value.index is None and field in err.value.reason


def test_illegal_actions_name_their_index() -> None:
    record, _ = played("record-6", 2)
    acts = record["actions"]
    for bad, code in [({**acts[0], "colour": "red"}, "bad_message"),
                      ({**acts[0], "seat": 1 - acts[0]["seat"]}, "not_your_turn"),
                      ({"seat": 0, "type": "fly"}, "bad_message"),
                      ({"seat": 0, "type": "play", "landing": "north-1", "cards": "x"},
                       "bad_action"),
                      ({"seat": 0, "type": "islet", "islet": "islet-spring", "cards": [],
                        "from_": "north-1"}, "bad_message")]:
        broken = {**record, "actions": [bad]}
        with pytest.raises(RecordError) as err:
            replay_record(broken)
        assert err.value.index == 0 and code in err.value.reason


def test_a_record_may_stop_at_any_decision_and_ignores_unknown_top_level_fields() -> None:
    record, _ = played("record-7", 3)
    half = len(record["actions"]) // 2
    state, _ = replay_record({**record, "actions": record["actions"][:half], "note": "hi"})
    assert not G.is_over(state) and G.to_move(state)


def test_record_view_is_what_record_play_prints() -> None:
    record, _ = played("record-8", 3)
    state, _ = replay_record(record)
    assert record_view(record) == G.view(state, None)
    assert record_view(record, 2) == G.view(state, 2)
    half = {**record, "actions": record["actions"][:10]}
    mid, _ = replay_record(half)
    assert record_view(half, 1)["players"][1]["hand"] is not None
    assert record_view(half, 1)["players"][0]["hand"] is None
    assert record_view(half, 1) == G.view(mid, 1)
    for bad in (3, -1, "0", True):
        with pytest.raises(RecordError) as err:
            record_view(record, bad)
        assert err.value.index is None and "seat" in err.value.reason
