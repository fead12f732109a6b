"""Final scoring (RULES "End of the game" 4-5, worked example 2)."""

from __future__ import annotations

import pytest

from engine.loot_island.scoring import (
    amulet_points,
    book_pairs,
    crown_points,
    final_result,
    jewel_points,
    skull_points,
)
from tests.engine.loot_island.oracle import LOOT as ORACLE_LOOT
from tests.engine.loot_island.oracle import require_rules

SEAT_1 = ["loot-05", "loot-49", "loot-11", "loot-04", "loot-10", "loot-09", "loot-29",
          "loot-03", "loot-13"]


def test_example_2() -> None:
    # crosses: seat 0 2 + 2 + 2 = 6, seat 1 3 (loot-03), seat 2 3, seat 3 0
    loots = [["loot-17", "loot-40", "loot-34"], SEAT_1, ["loot-46"], ["loot-06"]]
    result = final_result(loots, [0, 6, 0, 0], [None, "healer-08", None, None],
                          [False] * 4, start_seat=1)
    s = result["scores"][1]
    assert s == {"seat": 1, "eliminated": None, "cubes": 6, "healer": "healer-08",
                 "gold": 28, "jewels": 8, "crosses": 3, "crowns": 18, "skulls": 15,
                 "books": 21, "book_pairs": [["loot-49", "loot-04"], ["loot-05", "loot-10"]],
                 "amulets": 0, "start_marker": 5, "subtotal": 95, "healer_cost": 17,
                 "total": 78}
    crowns = [x["crowns"] for x in result["scores"]]
    assert crowns == [25, 18, 18, 0]  # seats 1 and 2 tie at 3 crosses: rank 3 drops


def test_jewels_sequence() -> None:
    assert [jewel_points(j) for j in range(8)] == [0, 0, 8, 20, 20, 28, 40, 40]


def test_crowns_competition_ranking_and_eliminated_take_no_part() -> None:
    assert crown_points([5, 4, 3, 2, 1]) == [25, 18, 15, 12, 10]
    assert crown_points([3, 3, 1, 0, None]) == [25, 25, 15, 0, 0]
    assert crown_points([None, 2, 1]) == [0, 25, 18]


def test_skulls_variants_times_kinds_and_copies_add_only_gold() -> None:
    assert skull_points(["loot-09"]) == 0  # one variant, no other kind
    assert skull_points(["loot-09", "loot-06"]) == 1
    assert skull_points(["loot-09", "loot-18", "loot-19", "loot-06", "loot-02"]) == 12
    assert skull_points(["loot-09", "loot-36", "loot-06"]) == 1  # two R: still one variant


def test_books_pairing_and_amulet_sets() -> None:
    assert book_pairs(["loot-12", "loot-08"]) == []  # amulet: curse 0, no partner
    assert book_pairs(["loot-71", "loot-49", "loot-02"]) == [("loot-49", "loot-02")]
    assert amulet_points(["loot-08", "loot-13", "loot-15"]) == 10
    assert amulet_points(["loot-08", "loot-13", "loot-15", "loot-22", "loot-25"]) == 10
    assert amulet_points(["loot-08", "loot-13", "loot-15", "loot-22", "loot-25",
                          "loot-65"]) == 20


def test_cannot_pay_is_eliminated_but_reported_and_ties_go_to_fewer_cubes() -> None:
    loots = [["loot-06"], ["loot-06"], ["loot-27"], ["loot-16"]]
    result = final_result(loots, [1, 0, 0, 14], ["healer-04", None, None, None],
                          [False, False, False, True], start_seat=2)
    s = result["scores"]
    assert s[0]["eliminated"] == "cannot_pay" and s[0]["total"] == 5 - 13
    assert s[1]["total"] == 5 and s[2]["total"] == 6 + 5
    assert s[3]["eliminated"] == "curses" and s[3]["gold"] is None
    assert result["winners"] == [2]
    tie = final_result([["loot-06"], ["loot-06"]], [2, 1], [None, None], [False, False], 5)
    assert tie["winners"] == [1]
    shared = final_result([["loot-06"], ["loot-06"]], [0, 0], [None, None], [False, False], 5)
    assert shared["winners"] == [0, 1]
    none = final_result([["loot-06"]] * 2, [13, 13], [None] * 2, [True, True], 0)
    assert none["winners"] == []


def test_the_rules_table_names_every_card_of_the_data_file() -> None:
    from engine.loot_island.data import LOOT
    require_rules()
    assert sorted(ORACLE_LOOT) == sorted(LOOT)


@pytest.mark.parametrize("card", sorted(ORACLE_LOOT) or ["none"])
def test_the_data_file_matches_the_rules_table(card: str) -> None:
    from engine.loot_island.data import LOOT
    require_rules()
    want = ORACLE_LOOT[card]
    got = LOOT[card]
    assert (got.kind, got.variant, got.gold, got.curse, got.crosses, got.multiplier) == (
        want["kind"], want["variant"], want["gold"], want["curse"], want["crosses"],
        want["mult"])


def test_crown_ranks_are_not_recomputed_after_a_player_cannot_pay() -> None:
    loots = [["loot-20", "loot-52"], ["loot-03"], ["loot-17"]]  # crosses 8, 3, 2
    result = final_result(loots, [12, 0, 0], ["healer-13", None, None], [False] * 3, 1)
    s = result["scores"]
    assert s[0]["eliminated"] == "cannot_pay" and s[0]["crowns"] == 25
    assert [s[1]["crowns"], s[2]["crowns"]] == [18, 15]
