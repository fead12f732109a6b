"""The catalogue a client reads (``LootIsland.catalogue``, GET /api/games/loot-island/cards):
every component fact the board shows, straight from the data file (RULES "Components")."""

from __future__ import annotations

import json

from engine.loot_island import LOOT_ISLAND


def test_catalogue_names_what_each_event_changes() -> None:
    events = LOOT_ISLAND.catalogue()["events"]
    assert len(events) == 18
    # RULES' event table, as modifiers while in force.
    assert events["event-a01"] == {}
    assert events["event-a02"] == {"start_draw": 1}
    assert events["event-a05"] == {"minimum": -1}
    assert events["event-a06"] == {"islet_any_cards": True}
    assert events["event-b01"] == {"minimum": 1}
    assert events["event-b03"] == {"start_take": 1}
    assert events["event-b05"] == {"big": -1}
    assert events["event-b07"] == {"no_islets": True}
    assert events["event-b08"] == {"no_jokers": True}
    assert events["event-b09"] == {"keep_cubes": 1}
    assert events["event-b10"] == {"discard_shed": 1}
    assert events["event-b11"] == {"refill": 8}
    assert events["event-b12"] == {"refill": 6}


def test_catalogue_lists_islets_landings_and_their_numbers() -> None:
    cat = LOOT_ISLAND.catalogue()
    assert cat["islets"] == ["islet-spring", "islet-lookout", "islet-winds", "islet-wreck",
                             "islet-shortcut", "islet-camp", "islet-portage"]
    assert cat["islet_numbers"] == {"cost": 2, "spring_shed": 2, "lookout_draw": 3}
    assert cat["landings"] == ["north-1", "north-2", "east-1", "east-2",
                               "south-1", "south-2", "west-1", "west-2"]
    assert cat["healers"]["healer-08"] == {"id": "healer-08", "multiplier": 2, "fixed": 5}
    assert cat["map"]["map-blue-star-a"]["value"] == 0
    # The catalogue is the same for every caller and game: a copy, never shared state.
    cat["events"]["event-b01"]["minimum"] = 99
    assert LOOT_ISLAND.catalogue()["events"]["event-b01"] == {"minimum": 1}
    json.dumps(LOOT_ISLAND.catalogue())


def test_catalogue_carries_the_numbers_the_rules_page_shows_as_the_data_file_has_them() -> None:
    import tomllib
    from importlib.resources import files
    raw = tomllib.loads(files("engine.loot_island").joinpath("data.toml").read_text("utf-8"))
    n = LOOT_ISLAND.catalogue()["numbers"]
    # The data file, not RULES' table: 5 players play to a minimum of 5 there (RULES says 6,
    # docs/rules-loot-island.md gives the balance check), and the page must show the 5.
    assert n["minimum"] == {"2": 4, "3": 4, "4": 5, "5": 5} == raw["setup"]["minimum"]
    assert (n["hand_size"], n["start_cubes"], n["discs"]) == (7, 3, 3)
    assert (n["discard_shed"], n["elimination_cubes"]) == (2, 13)
    assert n["crowns"] == [25, 18, 15, 12, 10] == raw["scoring"]["crowns"]
    assert n["skulls"] == [0, 1, 3, 6]
    assert (n["jewels_pair"], n["jewels_triple"]) == (8, 20)
    assert (n["amulet_set"], n["start_marker"]) == (10, 5)
