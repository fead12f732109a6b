"""Final scoring (RULES-keltis "Final scoring" and "Worked examples"): the row and stone
tables, the point row, the own worked example on rows built by real play, and ties."""

from __future__ import annotations

import pytest

from engine.keltis import events as ev
from engine.keltis.scoring import final_scores, row_points, score, stone_points
from engine.keltis.state import Player
from tests.engine.keltis.helpers import Table, discarder, draws

PINK = ["pink-0", "pink-1", "pink-2", "pink-3a", "pink-3b", "pink-4a", "pink-4b", "pink-5a"]


@pytest.mark.parametrize(("cards", "points"), [
    (0, 0), (1, -4), (2, -3), (3, -2), (4, 1), (5, 2), (6, 3), (7, 6), (8, 7), (9, 10),
    (10, 10), (14, 10)])
def test_row_table(cards: int, points: int) -> None:
    assert row_points(cards) == points


@pytest.mark.parametrize(("stones", "points"), [
    (0, -4), (1, -1), (2, 0), (3, 4), (4, 6), (5, 10), (9, 10)])
def test_stone_table(stones: int, points: int) -> None:
    assert stone_points(stones) == points


def _seat0_lays(t: Table, plays: list[tuple[str, str]]) -> None:
    for card, row in plays:
        assert t.seat == 0
        t.act("lay", card=card, row=row)
        t.draw()
        t.discard(t.hand(1)[0])
        t.draw()


def test_own_worked_example_total_1() -> None:
    """green 2-3-5-grey 5-8-end (6 cards → 3), red 9-7 (2 → −3), point row 0, 10 (→ 2),
    one stone (→ −1): 1. End cards and point cards count for the row; the hand scores
    nothing."""
    hand = ["green-2", "green-3a", "green-5a", "point-5", "green-8", "end-green-1", "red-9",
            "red-7a"]
    t = Table(2, hands={0: hand, 1: PINK},
              top=draws(2, {0: ["point-0", "point-10", "yellow-4a", "blue-4a"]}))
    _seat0_lays(t, [("green-2", "green"), ("green-3a", "green"), ("green-5a", "green"),
                    ("point-5", "green"), ("green-8", "green"), ("end-green-1", "green"),
                    ("red-9", "red"), ("red-7a", "red"), ("point-0", "point"),
                    ("point-10", "point")])
    t.act("stone", cards=["yellow-4a", "blue-4a"])
    p = t.state.players[0]
    assert p.rows["green"] == ["green-2", "green-3a", "green-5a", "point-5", "green-8",
                               "end-green-1"]
    assert len(p.hand) == 6  # cards in hand: no points
    assert score(0, p) == {"seat": 0, "rows": {"green": 3, "red": -3}, "point_row": 2,
                           "stones": -1, "total": 1}


def test_hm_rows_score_7_and_3() -> None:
    rising = ["green-0", "green-5a", "green-5b", "point-5", "green-6a", "green-7a", "green-9",
              "green-10"]
    falling = ["red-7a", "red-7b", "red-4a", "red-4b", "red-3a", "red-1"]
    t = Table(2, hands={0: rising, 1: PINK}, top=draws(2, {0: falling}))
    _seat0_lays(t, [(c, "green") for c in rising] + [(c, "red") for c in falling])
    assert score(0, t.state.players[0])["rows"] == {"green": 7, "red": 3}


def test_point_row_never_negative_and_ties_share_the_win() -> None:
    a, b, c = Player("a"), Player("b"), Player("c")
    c.stones = [1, 2]
    result = final_scores([a, b, c])
    assert [s["total"] for s in result["scores"]] == [-4, -4, 0]
    assert result["winners"] == [2]
    c.stones = []
    assert final_scores([a, b, c])["winners"] == [0, 1, 2]  # all tied: all win
    assert score(0, a)["point_row"] == 0


def test_game_ended_carries_result_and_hands() -> None:
    t = Table(3, seed="end")
    t.run(discarder)
    (ended,) = t.of(ev.GameEnded)
    assert ended.result == t.state.result
    assert ended.hands == [p.hand for p in t.state.players]
    assert [s["seat"] for s in ended.result["scores"]] == [0, 1, 2]
