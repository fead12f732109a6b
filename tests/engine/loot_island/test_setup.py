"""Setup and the shuffles (RULES "Setup", CONTRACT §1-2), with a committed test vector."""

from __future__ import annotations

import hashlib

import pytest

from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import events as ev
from engine.loot_island.setup import CANONICAL, reshuffled, shuffled_orders
from tests.engine.loot_island.helpers import Table

SEED = "loot-island-vector"


def _independent_shuffle(seed: str, lists: list[list[str]]) -> list[list[str]]:
    """CONTRACT-einauge §2 written out again from the text: SHA-256 blocks, 4 words each,
    rejection sampling, Fisher-Yates from the last index down."""
    words: list[int] = []
    k = 0

    def word() -> int:
        nonlocal k
        if not words:
            digest = hashlib.sha256(seed.encode() + k.to_bytes(8, "big")).digest()
            words.extend(int.from_bytes(digest[i:i + 8], "big") for i in range(24, -8, -8))
            k += 1
        return words.pop()

    def below(n: int) -> int:
        limit = 2**64 - 2**64 % n
        while (u := word()) >= limit:
            pass
        return u % n

    out = []
    for items in lists:
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = below(i + 1)
            items[i], items[j] = items[j], items[i]
        out.append(items)
    return out


def test_setup_test_vector() -> None:
    o = shuffled_orders(SEED, {})
    assert list(o) == ["map", "loot_1", "loot_2", "loot_3", "loot_4", "healers", "events_a",
                       "events_b"]
    assert o["map"][:5] == ["map-red-1a", "map-yellow-9a", "map-red-5a", "map-yellow-2b",
                            "map-green-4a"]
    assert o["map"][-1] == "map-blue-6b"
    assert o["loot_1"][:5] == ["loot-03", "loot-06", "loot-17", "loot-21", "loot-12"]
    assert o["loot_2"][:5] == ["loot-22", "loot-31", "loot-23", "loot-30", "loot-33"]
    assert o["loot_3"][:5] == ["loot-50", "loot-47", "loot-39", "loot-49", "loot-45"]
    assert o["loot_4"][:5] == ["loot-61", "loot-63", "loot-74", "loot-70", "loot-69"]
    assert o["healers"][:5] == ["healer-10", "healer-03", "healer-13", "healer-09",
                                "healer-01"]
    assert o["events_a"] == ["event-a04", "event-a03", "event-a01", "event-a02", "event-a06",
                             "event-a05"]
    assert o["events_b"][:5] == ["event-b06", "event-b01", "event-b04", "event-b08",
                                 "event-b11"]
    assert o["events_b"][-1] == "event-b05"
    # The whole of every list agrees with an independent implementation of the stream.
    assert list(o.values()) == _independent_shuffle(SEED, [list(v) for v in CANONICAL.values()])


def test_reshuffle_test_vector() -> None:
    pile = ["map-red-1a", "map-blue-2b", "map-green-star-a", "map-yellow-10b", "map-red-7a"]
    assert reshuffled(SEED, 1, pile) == ["map-blue-2b", "map-red-1a", "map-red-7a",
                                         "map-yellow-10b", "map-green-star-a"]
    assert reshuffled(SEED, 2, pile) == ["map-red-7a", "map-yellow-10b", "map-green-star-a",
                                         "map-blue-2b", "map-red-1a"]
    # The pile's order does not matter (canonical order first); the stream is seed/reshuffle/r.
    assert reshuffled(SEED, 1, pile[::-1]) == reshuffled(SEED, 1, pile)
    canonical = ["map-red-1a", "map-red-7a", "map-blue-2b", "map-green-star-a", "map-yellow-10b"]
    assert reshuffled(SEED, 2, pile) == _independent_shuffle(f"{SEED}/reshuffle/2",
                                                             [canonical])[0]


def test_a_given_list_replaces_its_shuffle_only() -> None:
    given = list(reversed(CANONICAL["loot_2"]))
    o = shuffled_orders(SEED, {"loot_2": given})
    full = shuffled_orders(SEED, {})
    assert o["loot_2"] == given
    assert all(o[k] == full[k] for k in o if k != "loot_2")


def test_all_eight_given_need_no_seed_and_one_missing_does() -> None:
    lists = {k: list(v) for k, v in CANONICAL.items()}
    assert shuffled_orders(None, lists) == lists
    del lists["healers"]
    with pytest.raises(ValueError, match="seed"):
        shuffled_orders(None, lists)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_from_the_lists(n: int) -> None:
    t = Table(n, seed=SEED)
    s, o = t.state, shuffled_orders(SEED, {})
    for i, p in enumerate(s.players):
        assert p.hand == o["map"][7 * i:7 * i + 7]  # block deal
        assert p.cubes == 3 and s.discs_free(i) == 3
    assert s.map_deck[::-1] == o["map"][7 * n:]
    assert s.loot_deck[::-1] == o["loot_1"] + o["loot_2"] + o["loot_3"] + o["loot_4"]
    assert s.aside == o["healers"][:n]
    v = t.view()
    assert v["ship"] == "north" and v["start_seat"] == 0 and v["round"] == 1
    assert v["event"] == "event-a04" and v["events_seen"] == ["event-a04"]
    assert v["event_deck_count"] == 4 and v["islets"]["islet-portage"] == "open"
    assert v["min_cards"] == {2: 4, 3: 4, 4: 5, 5: 5}[n]  # 5: docs/balance-loot-island.md
    assert s.events == ["event-a04", *o["events_b"][:4]]
    assert v["loot_deck_counts"] == {"I": 21, "II": 16, "III": 16, "IV": 21}


def test_events_off_uses_no_event_but_still_makes_all_eight_shuffles() -> None:
    t = Table(3, seed=SEED, options={"events": False})
    v = t.view()
    assert v["event"] is None and v["events_seen"] == [] and v["event_deck_count"] == 0
    start = t.events[0]
    assert isinstance(start, ev.GameStarted)
    assert start.orders == shuffled_orders(SEED, {})


def test_min_cards_option_replaces_the_row_and_events_still_change_it() -> None:
    lists = {"events_a": ["event-a05", "event-a01", "event-a02", "event-a03", "event-a04",
                          "event-a06"]}
    t = Table(4, seed=SEED, options={"min_cards": 9}, orders=lists)
    assert t.view()["min_cards"] == 8  # 9, event-a05 "minimum 1 lower"


@pytest.mark.parametrize(("options", "field"), [
    ({"events": 1}, "events"), ({"min_cards": 0}, "min_cards"), ({"min_cards": 13}, "min_cards"),
    ({"min_cards": True}, "min_cards"), ({"colour": 1}, "unknown"), ([], "options")])
def test_bad_options(options: object, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        G.start(["a", "b"], options, "s")  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [["a"], ["a"] * 6, ["a", ""], "ab", ["a", 3]])
def test_bad_players(players: object) -> None:
    with pytest.raises(ValueError, match=r"players|name|Loot Island needs"):
        G.start(players, {}, "s")  # type: ignore[arg-type]


@pytest.mark.parametrize("orders", [
    {"map": ["map-red-1a"]}, {"healers": ["healer-01"] * 14}, {"shoes": []},
    {"map_reshuffles": [["map-red-1a", "map-red-1a"]]}, {"map_reshuffles": [["x"]]},
    {"map_reshuffles": "no"}, []])
def test_bad_orders(orders: object) -> None:
    with pytest.raises(ValueError, match="orders"):
        G.start(["a", "b"], {}, "s", orders)  # type: ignore[arg-type]
