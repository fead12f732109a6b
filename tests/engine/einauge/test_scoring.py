"""Final scoring (RULES "Final scoring"): chests with competition ranking, color bonus,
ducats and sabres into jewels, shared wins."""

from __future__ import annotations

import pytest

from engine.einauge import EINAUGE
from engine.einauge.evolve import add_to_row
from engine.einauge.scoring import chest_awards, color_bonus, final_scores
from engine.einauge.state import Player
from tests.engine.einauge.helpers import Table, filler, simple


@pytest.mark.parametrize(("counts", "awards"), [
    ([5, 3, 0], [7, 4, 0]),        # RULES example, red
    ([3, 3, 1], [7, 7, 1]),        # RULES example, green
    ([2, 2, 2], [7, 7, 7]),
    ([5, 5, 3], [7, 7, 1]),
    ([4, 3, 3, 1], [7, 4, 4, 0]),  # ties at 2nd: rank 4 gets nothing
    ([3, 2, 2, 2, 1], [7, 4, 4, 4, 0]),
    ([4, 3, 2, 1, 1], [7, 4, 1, 0, 0]),
    ([1, 1, 1, 1, 1], [7, 7, 7, 7, 7]),
    ([0, 0, 0], [0, 0, 0]),
    ([0, 1], [0, 7]),
    ([2, 0, 1], [7, 0, 4]),
    ([6, 6, 6, 6, 0], [7, 7, 7, 7, 0]),
])
def test_chest_awards_competition_ranking(counts: list[int], awards: list[int]) -> None:
    assert chest_awards(counts) == awards


@pytest.mark.parametrize(("rows", "bonus"), [
    (0, 0), (1, 0), (2, 0), (3, 3), (4, 6), (5, 10), (6, 15), (7, 21), (8, 28)])
def test_color_bonus_table(rows: int, bonus: int) -> None:
    assert color_bonus(rows) == bonus


def _player(name: str, rows: dict[str, list[str]], lone: list[str] = (), **tokens: int) -> Player:
    p = Player(name)
    for color, cards in rows.items():
        for c in cards:
            add_to_row(p, c, color)
    p.lone_ships = list(lone)
    for k, v in tokens.items():
        setattr(p, k, v)
    return p


def test_final_scores_breakdown_and_color_bonus() -> None:
    # red chests: red-2 2, red-4 1, red-5 2, red-8 3 (reference card set)
    a = _player("a", {"red": ["red-2", "red-5", "red-8"], "blue": ["blue-2"],
                      "green": ["green-2"]}, sabres=3, ducats=17, jewels=9)   # red 7 chests
    b = _player("b", {"red": ["red-4", "red-3"], "gray": ["gray-3"]},
                lone=["ship-1", "ship-2"], sabres=0, ducats=4, jewels=2)      # 2 rows + ships
    c = _player("c", {"blue": ["blue-3"]}, sabres=1, ducats=2, jewels=0)    # blue-3: 0 chests
    r = final_scores([a, b, c], with_color_bonus=True)
    sa, sb, sc = r["scores"]
    assert sa["chest_awards"] == {"blue": 7, "red": 7}
    assert sb["chest_awards"] == {"red": 4}
    assert sc["chest_awards"] == {}
    assert (sa["ducats_from_sabres"], sa["jewels_from_ducats"]) == (9, 5)
    assert sa["color_bonus"] == 3 and sb["color_bonus"] == 0  # lone ships are no row
    assert sa["total"] == 9 + 5 + 14 + 3
    assert sb["total"] == 2 + 0 + 4 + 0
    assert sc["total"] == 0 + 1 + 0
    assert r["winners"] == [0]
    assert [s["seat"] for s in r["scores"]] == [0, 1, 2]
    assert list(sa["chest_awards"]) == ["blue", "red"]  # canonical color order
    assert final_scores([a, b, c], with_color_bonus=False)["scores"][0]["color_bonus"] == 0


def test_remainder_ducats_are_lost_and_ties_share_the_win() -> None:
    a = _player("a", {}, sabres=1, ducats=1, jewels=3)  # 3+1 = 4 ducats: 0 jewels
    b = _player("b", {}, sabres=0, ducats=4, jewels=3)
    c = _player("c", {}, sabres=0, ducats=0, jewels=1)
    r = final_scores([a, b, c], with_color_bonus=False)
    assert [s["total"] for s in r["scores"]] == [3, 3, 1]
    assert r["winners"] == [0, 1]


@pytest.mark.parametrize("bonus", [False, True])
def test_game_result_matches_the_contract_formula(bonus: bool) -> None:
    t = Table(filler(30), players=["a", "b", "c"], color_bonus=bonus)
    t.run(simple)
    result = t.state.result
    assert result == EINAUGE.public_view(t.state)["result"]
    table = {3: 3, 4: 6, 5: 10, 6: 15, 7: 21, 8: 28}
    for s, p in zip(result["scores"], t.state.players, strict=True):
        assert (s["sabres"], s["ducats"], s["jewels"]) == (p.sabres, p.ducats, p.jewels)
        assert s["color_bonus"] == (table.get(len(p.rows), 0) if bonus else 0)
        assert s["total"] == (s["jewels"] + (s["ducats"] + 3 * s["sabres"]) // 5
                              + sum(s["chest_awards"].values()) + s["color_bonus"])
    best = max(s["total"] for s in result["scores"])
    assert result["winners"] == [s["seat"] for s in result["scores"] if s["total"] == best]
