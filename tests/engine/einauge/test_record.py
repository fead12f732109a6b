"""Game records (CONTRACT section 1): replay, errors with the action index, write."""

from __future__ import annotations

import json

import pytest

from engine.bots import RandomBot
from engine.einauge import EINAUGE
from engine.einauge.view import public_view
from engine.game import RecordError
from engine.selfplay import play_game
from tests.engine.einauge.helpers import Table, filler, simple

make_record, replay_record = EINAUGE.make_record, EINAUGE.replay_record


def _played(n: int = 3, seed: str = "rec", **options: object):
    bots = [RandomBot(f"{seed}/{i}") for i in range(n)]
    return play_game(EINAUGE, [f"p{i}" for i in range(n)], options, seed, bots)


@pytest.mark.parametrize("options", [{}, {"end_rule": "one_more_turn", "color_bonus": True}])
def test_record_replays_with_and_without_deck(options: dict) -> None:
    g = _played(4, **options)
    record = make_record(g.players, g.options, g.seed, EINAUGE.setup_deck(g.events), g.actions)
    record = json.loads(json.dumps(record))  # as a file would give it
    assert record["game"] == "einauge" and record["seed"] == g.seed
    state, events = replay_record(record)
    assert public_view(state) == public_view(g.state)
    assert [e.to_dict() for e in events] == [e.to_dict() for e in g.events]
    del record["deck"]
    state, _ = replay_record(record)
    assert public_view(state) == public_view(g.state)
    assert state.phase == "ended"


def test_given_deck_wins_over_seed() -> None:
    t = Table(filler(9), players=["a", "b"])
    t.run(simple)
    record = make_record(["a", "b"], {}, "some seed", filler(9), t.actions)
    state, _ = replay_record(record)
    assert public_view(state) == t.view()


def test_unfinished_record_replays() -> None:
    g = _played()
    record = make_record(g.players, g.options, g.seed, EINAUGE.setup_deck(g.events),
                         g.actions[:10])
    state, events = replay_record(record)
    assert state.phase == "turns" and len(events) > 10


def test_illegal_action_names_its_index() -> None:
    g = _played()
    actions = [a.to_dict() for a in g.actions[:12]]
    bad = dict(actions[7])
    bad["seat"] = (bad["seat"] + 1) % 3
    record = make_record(g.players, g.options, g.seed, EINAUGE.setup_deck(g.events),
                         [*actions[:7], bad, *actions[8:]])
    with pytest.raises(RecordError) as e:
        replay_record(record)
    assert e.value.index == 7 and "not_your_turn" in e.value.reason
    assert "action 7" in str(e.value)


@pytest.mark.parametrize(("action", "code"), [
    ({"seat": 0, "type": "fly"}, "bad_message"),
    ({"seat": 0, "type": "buy"}, "bad_message"),
    ({"seat": 0, "type": "buy", "card": 3}, "bad_action"),
    ({"seat": 0, "type": "buy", "card": "blue-9"}, "unknown_card"),
    ("pass", "bad_message"),
])
def test_malformed_action_names_its_index(action: object, code: str) -> None:
    record = {"game": "einauge", "players": ["a", "b"], "seed": "x", "actions": [action]}
    with pytest.raises(RecordError) as e:
        replay_record(record)
    assert e.value.index == 0 and e.value.reason.startswith(code)


@pytest.mark.parametrize("record", [
    [], {"game": "chess", "players": ["a", "b"], "seed": "x"},
    {"players": ["a"], "seed": "x"}, {"players": ["a", "b"]},
    {"players": ["a", "b"], "seed": 5}, {"players": ["a", "b"], "seed": "x", "actions": "p"},
    {"players": ["a", "b"], "seed": "x", "options": {"end_rule": "never"}},
    {"players": ["a", "b"], "deck": ["blue-2"]},
])
def test_malformed_record(record: object) -> None:
    with pytest.raises(RecordError) as e:
        replay_record(record)  # type: ignore[arg-type]
    assert e.value.index is None


def test_contract_example_shape_replays() -> None:
    # The CONTRACT example's first actions, on a deck that makes them legal.
    deck = ["blue-3", "red-3", "gray-5", "green-8", "yellow-2", "orange-6", "purple-2",
            *filler(10, avoid=["red-3", "yellow-2", "purple-2"])]
    record = {"game": "einauge", "players": ["Anna", "Ben", "Cem"],
              "options": {"end_rule": "round", "color_bonus": False},
              "seed": "9f2c" + "0" * 60, "deck": deck,
              "actions": [{"seat": 0, "type": "sell_jewel"},
                          {"seat": 0, "type": "buy", "card": "blue-3"},
                          {"seat": 0, "type": "place", "card": "red-3"},
                          {"seat": 1, "type": "buy", "card": "gray-5"},
                          {"seat": 1, "type": "place", "card": "green-8"},
                          {"seat": 2, "type": "buy", "card": "yellow-2"},
                          {"seat": 2, "type": "place", "card": "orange-6"}]}
    state, _ = replay_record(record)
    v = public_view(state)
    assert v["current_seat"] == 0 and v["step"] == "buy"
    assert v["pirate_table"] == ["purple-2", "red-3", "green-8", "orange-6"]
    assert v["players"][0]["jewels"] == 0 and v["players"][0]["ducats"] == 23 - 3 + 2
