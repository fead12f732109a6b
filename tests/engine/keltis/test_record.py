"""Game records (CONTRACT-keltis §1): the contract's example actions replayed literally,
round trips through JSON, seed-only records, and every kind of bad record."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.game import RecordError
from engine.keltis import KELTIS
from engine.keltis import events as ev
from engine.keltis.cards import CANONICAL
from engine.keltis.setup import shuffled_deck
from tests.engine.keltis.helpers import Table, deck_for, discarder

make_record = KELTIS.make_record
record_view = KELTIS.record_view
replay_record = KELTIS.replay_record

CONTRACT_ACTIONS = [
    {"seat": 0, "type": "lay", "card": "green-5a", "row": "green"},
    {"seat": 0, "type": "draw", "from": "deck"},
    {"seat": 1, "type": "discard", "card": "blue-9"},
    {"seat": 1, "type": "draw", "from": "deck"},
    {"seat": 2, "type": "stone", "cards": ["red-4a", "point-4"]},
    {"seat": 2, "type": "draw", "from": "blue"},
    {"seat": 2, "type": "draw", "from": "deck"},
]
SEED = "9f2c" + "0" * 60


def contract_record(**changes: Any) -> dict[str, Any]:
    """CONTRACT §1's example record, on a deck that deals its cards to its seats."""
    deck = deck_for(3, hands={0: ["green-5a"], 1: ["blue-9"], 2: ["red-4a", "point-4"]})
    record = {"game": "keltis", "players": ["Anna", "Ben", "Cem"], "options": {},
              "seed": SEED, "deck": deck, "actions": CONTRACT_ACTIONS}
    record.update(changes)
    return record


def test_contract_example_replays() -> None:
    record = contract_record()
    state, events = replay_record(record)
    assert state.deck == record["deck"]
    assert ev.StoneTaken(2, ("red-4a", "point-4"), "stone-4") in events
    assert ev.CardDrawn(2, "blue", "blue-9") in events
    v = KELTIS.public_view(state, 2)
    assert (v["current_seat"], v["step"], v["seq"]) == (0, "play", len(events))
    assert v["discards"]["red"] == ["red-4a"] and v["discards"]["point"] == ["point-4"]
    assert v["discards"]["blue"] == []  # Cem drew Ben's blue-9 back
    assert "blue-9" in v["players"][2]["hand"] and v["players"][2]["stones"] == ["stone-4"]
    assert v["deck_count"] == 77 - 3  # three of the four draws from the deck


def test_round_trip_through_json() -> None:
    t = Table(3, seed="rt")
    t.run(discarder)
    record = make_record(t.players, {}, "rt", t.deck, t.actions, result=t.state.result)
    loaded = json.loads(json.dumps(record))
    assert loaded["actions"][1] == {"type": "draw", "seat": 0, "from": "deck"}
    state, events = replay_record(loaded)
    assert [e.to_dict() for e in events] == [e.to_dict() for e in t.events]
    assert state.result == t.state.result == loaded["result"]


def test_make_record_refuses_options() -> None:
    with pytest.raises(ValueError):
        make_record(["a", "b"], {"x": 1}, "s", list(CANONICAL), [])


def test_seed_only_record_uses_the_shuffle() -> None:
    state, events = replay_record({"game": "keltis", "players": ["a", "b"], "seed": SEED,
                                   "actions": []})
    assert events[0].deck == shuffled_deck(SEED)
    assert state.removed == shuffled_deck(SEED)[:30]


def test_unknown_top_level_field_is_ignored() -> None:
    replay_record(contract_record(comment="hello", head="x"))


@pytest.mark.parametrize("record", [
    [],
    {"players": ["a", "b"], "seed": "s"},                       # no game
    {"game": "einauge", "players": ["a", "b"], "seed": "s"},
    {"game": "keltis", "players": ["a"], "seed": "s"},
    {"game": "keltis", "players": ["a", "b"], "seed": "s", "options": {"x": 1}},
    {"game": "keltis", "players": ["a", "b"]},                  # neither seed nor deck
    {"game": "keltis", "players": ["a", "b"], "seed": 5},
    {"game": "keltis", "players": ["a", "b"], "deck": list(CANONICAL[:-1])},
    {"game": "keltis", "players": ["a", "b"], "seed": "s", "actions": "lay"},
])
def test_malformed_record(record: Any) -> None:
    with pytest.raises(RecordError) as err:
        replay_record(record)
    assert err.value.index is None


@pytest.mark.parametrize(("index", "action", "code"), [
    (2, {"seat": 1, "type": "discard", "card": "blue-9", "extra": 1}, "bad_message"),
    (2, {"seat": 1, "type": "discard"}, "bad_message"),
    (2, {"seat": 1, "type": "shuffle"}, "bad_message"),
    (2, {"seat": "1", "type": "discard", "card": "blue-9"}, "bad_action"),
    (2, {"seat": 1, "type": "discard", "card": ["blue-9"]}, "bad_action"),
    (2, {"seat": 0, "type": "discard", "card": "blue-9"}, "not_your_turn"),
    (5, {"seat": 2, "type": "draw", "from": "red"}, "pile_blocked"),
    (6, {"seat": 2, "type": "finish"}, "wrong_step"),
])
def test_bad_action_names_its_index(index: int, action: dict[str, Any], code: str) -> None:
    actions = list(CONTRACT_ACTIONS)
    actions[index] = action
    with pytest.raises(RecordError) as err:
        replay_record(contract_record(actions=actions))
    assert err.value.index == index and err.value.reason.startswith(code)


def test_record_view_is_the_contract_view_of_a_seat_or_a_spectator() -> None:
    record = contract_record()
    state, _ = replay_record(record)
    assert record_view(record) == KELTIS.public_view(state, None)
    assert record_view(record, 2) == KELTIS.public_view(state, 2)
    assert record_view(record, 2)["players"][2]["hand"] is not None
    assert record_view(record)["players"][2]["hand"] is None
    for bad in (3, -1, True):
        with pytest.raises(RecordError):
            record_view(record, bad)  # type: ignore[arg-type]
