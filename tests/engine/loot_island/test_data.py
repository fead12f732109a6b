"""The data file (RULES "Components and ids", "The data file")."""

from __future__ import annotations

from collections import Counter

from engine.loot_island import data
from engine.loot_island.data import ACTION, COLOURS, LOOT, LOOT_LISTS, MAP, MAP_IDS


def test_map_cards_4_colours_22_each_with_the_designed_actions() -> None:
    assert COLOURS == ("red", "blue", "green", "yellow")
    assert len(MAP) == 88
    assert MAP_IDS[:3] == ("map-red-1a", "map-red-1b", "map-red-2a")
    assert MAP_IDS[20:23] == ("map-red-star-a", "map-red-star-b", "map-blue-1a")
    for colour in COLOURS:
        acts = Counter(ACTION[c] for c in MAP if MAP[c].colour == colour)
        assert acts == {"chest": 8, "draw": 3, "shed": 3, "plus1": 3, "one": 2, "none": 3}
    assert ACTION["map-red-2a"] == "chest" and ACTION["map-red-2b"] == "draw"
    assert ACTION["map-red-10a"] == "chest" and ACTION["map-red-10b"] == "none"
    assert MAP["map-blue-star-a"].joker and ACTION["map-blue-star-a"] == "none"


def test_loot_list_totals_and_decks() -> None:
    assert len(LOOT) == 74
    assert sum(c.gold for c in LOOT.values()) == 277
    assert sum(c.curse for c in LOOT.values()) == 156
    assert [len(LOOT_LISTS[d]) for d in ("I", "II", "III", "IV")] == [21, 16, 16, 21]
    assert LOOT_LISTS["II"][0] == "loot-22" and LOOT_LISTS["IV"][-1] == "loot-74"
    assert LOOT["loot-03"] == ("loot-03", "I", "crown", 2, 2, None, 3, 0)
    assert LOOT["loot-49"].multiplier == 3 and LOOT["loot-49"].gold == 0
    for deck in ("I", "II", "III", "IV"):
        skulls = sorted(LOOT[c].variant for c in LOOT_LISTS[deck] if LOOT[c].kind == "skull")
        assert skulls == ["F", "L", "R"]  # one of each variant per deck


def test_other_components() -> None:
    assert len(data.HEALERS) == 14 and data.HEALERS["healer-08"][1:] == (2, 5)
    assert len(data.EVENTS_A) == 6 and len(data.EVENTS_B) == 12
    assert data.ISLETS[0] == "islet-spring" and len(data.ISLETS) == 7
    assert data.MINIMUM == {2: 4, 3: 4, 4: 5, 5: 5}  # 5 players: the balance check
    assert (data.HAND_SIZE, data.START_CUBES, data.DISCS) == (7, 3, 3)
    assert (data.SPRING_SHED, data.LOOKOUT_DRAW, data.DISCARD_SHED) == (2, 3, 2)
    assert data.ELIMINATION_CUBES == 13 and data.CROWN_POINTS == (25, 18, 15, 12, 10)
    assert data.LANDINGS == ("north-1", "north-2", "east-1", "east-2", "south-1", "south-2",
                             "west-1", "west-2")
