"""Branch from here (engine/branch.py): every game's branch keeps the public part and
the branching seat's hand of the position, re-deals the rest from the seed, and
refuses bad points."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from engine import GAMES, get_game
from engine.bots import make_bot
from engine.branch import BranchError, branch_point, deal
from engine.selfplay import play_game
from engine.verify import verify_record

SEATS = {"einauge": 3, "keltis": 2, "loot-island": 3}


def _record(name: str, seed: str) -> dict[str, Any]:
    game = get_game(name)
    n = SEATS[name]
    players = [f"p{i}" for i in range(n)]
    bots = [make_bot("random", f"{seed}/{i}", game=name) for i in range(n)]
    played = play_game(game, players, {}, seed, bots)
    return game.make_record(players, {}, seed, game.setup_deck(played.events),
                            played.actions)


def _cards(dealt: Any) -> Counter[str]:
    if isinstance(dealt, dict):
        return Counter(c for k, v in dealt.items() if k != "map_reshuffles"
                       for c in v)
    return Counter(dealt)


def test_every_game_is_covered() -> None:
    assert set(SEATS) == set(GAMES)


@pytest.mark.parametrize("name", sorted(SEATS))
def test_branch_keeps_the_position_and_redeals_the_rest(name: str) -> None:
    game = get_game(name)
    record = _record(name, "branch-1")
    n = len(record["players"])
    last = len(record["actions"])
    names = [f"b{i}" for i in range(n)]
    changed = 0
    for index, seat in itertools.product(range(0, last, max(1, last // 6)), range(n)):
        point = branch_point(record, index, seat)
        branch = deal(point, names, f"seed-{index}")
        source = {**record, "players": names, "actions": record["actions"][:index]}
        want, _ = game.replay_record(source)
        events = [e for _, evs in branch.steps for e in evs]
        got = game.replay(events)
        # The public part and the seat's own hand are as they were ...
        assert game.view(got, None) == game.view(want, None)
        assert game.view(got, seat) == game.view(want, seat)
        assert game.observation(got, seat) == game.observation(want, seat)
        # ... from the same cards, the same actions, dealt by the seed alone.
        assert _cards(branch.dealt) == _cards(point.dealt)
        assert [a for a, _ in branch.steps[1:]] == [game.actions.decode(a)
                                                    for a in record["actions"][:index]]
        assert deal(point, names, f"seed-{index}").dealt == branch.dealt
        assert game.setup_deck(events) == branch.dealt
        changed += branch.dealt != game.record_deck(point.dealt)
    assert changed > 0  # not the real deal: the hidden part was dealt anew


@pytest.mark.parametrize("name", sorted(SEATS))
def test_the_hidden_part_differs_at_the_start(name: str) -> None:
    record = _record(name, "branch-2")
    point = branch_point(record, 0, 0)
    deals = {repr(deal(point, record["players"], f"s{k}").dealt) for k in range(3)}
    assert repr(get_game(name).record_deck(point.dealt)) not in deals
    assert len(deals) == 3


@pytest.mark.parametrize("name", sorted(SEATS))
def test_bad_points_are_refused(name: str) -> None:
    record = _record(name, "branch-3")
    last = len(record["actions"])
    for index, seat, code in [(-1, 0, "bad_index"), (last + 1, 0, "bad_index"),
                              ("1", 0, "bad_index"), (0, SEATS[name], "bad_seat"),
                              (0, -1, "bad_seat"), (0, True, "bad_seat"),
                              (last, 0, "game_over")]:
        with pytest.raises(BranchError) as e:
            branch_point(record, index, seat)
        assert e.value.code == code
    with pytest.raises(BranchError) as e:
        branch_point({**record, "actions": [{"type": "nonsense"}]}, 0, 0)
    assert e.value.code == "bad_record"
    with pytest.raises(BranchError) as e:
        deal(branch_point(record, 0, 0), ["a"], "s")
    assert e.value.code == "bad_seat"


def test_a_branch_error_crosses_a_process_boundary() -> None:
    import pickle

    e = pickle.loads(pickle.dumps(BranchError("bad_index", "no such action")))
    assert (e.code, e.message) == ("bad_index", "no such action")


@pytest.mark.parametrize("name", sorted(SEATS))
def test_a_branch_record_verifies_its_deal(name: str) -> None:
    """A branched game played to its end: ``verify`` recomputes its deal from ``branch``
    and the seed (the deck check passes); another index or seed fails it."""
    game = get_game(name)
    record = _record(name, "branch-4")
    index = len(record["actions"]) // 2
    point = branch_point(record, index, 1)
    players = [f"b{i}" for i in range(point.seats)]
    seed = "branch-seed"
    branch = deal(point, players, seed)
    events = [e for _, evs in branch.steps for e in evs]
    state = game.replay(events)
    actions = [a for a, _ in branch.steps[1:]]
    bot = make_bot("random", "on", game=name)
    while not game.is_over(state):
        action = bot.choose(game, state, game.to_move(state)[0])
        actions.append(action)
        events += game.play(state, action)
    branched = game.make_record(players, point.options, seed, game.setup_deck(events),
                                actions, branch={"table": "src", **point.to_dict()})
    report = verify_record(branched)
    checks = {c.name: c.status for c in report.checks}
    assert checks["deck"] == "pass" and checks["replay"] == "pass", report.to_dict()
    moved = {**branched, "branch": {**branched["branch"], "index": 0}}  # more unseen
    assert {c.name: c.status for c in verify_record(moved).checks}["deck"] == "fail"
    reseeded = {**branched, "seed": "another"}
    assert {c.name: c.status for c in verify_record(reseeded).checks}["deck"] == "fail"
