"""Who may claim, hand over, resign and take back a seat (server/play/seat_rules.py)."""

from __future__ import annotations

import pytest

from engine.seat_control import SeatControllerChanged
from server.play import seat_rules as r
from server.play.presence import SeatPresence

GONE = SeatPresence(1, "gone", 0)
AWAY = SeatPresence(1, "away", 10_000)


def refused(code, fn, *args):
    with pytest.raises(r.Refusal) as e:
        fn(*args)
    assert e.value.code == code


def test_claim():
    ok = r.claim(0, "player", False, GONE, "player", 30_000, 40_000, False, "greedy", None)
    assert ok == SeatControllerChanged(1, "bot", "abandoned", "greedy", None)
    refused("not_away", r.claim, 0, "player", False, AWAY, "player", 30_000, 20_000, False,
            "greedy", None)
    refused("own_seat", r.claim, 1, "player", False, GONE, "player", 1, 2, False, "greedy", None)
    refused("not_playing", r.claim, 0, "bot", False, GONE, "player", 1, 2, False, "greedy", None)
    refused("not_playing", r.claim, 0, "player", True, GONE, "player", 1, 2, False, "greedy",
            None)
    refused("not_a_player", r.claim, 0, "player", False, GONE, "bot", 1, 2, False, "greedy",
            None)
    refused("ended", r.claim, 0, "player", False, GONE, "player", 1, 2, True, "greedy", None)


def test_resign_handover_and_return():
    assert r.resign(2, False, False, "mcts", 3).reason == "resigned"
    refused("resigned", r.resign, 2, True, False, "mcts", 3)
    refused("ended", r.resign, 2, False, True, "mcts", 3)
    assert r.handover(0, GONE, "player", 30_000, 40_000, False, "random", None).reason \
        == "handover"
    assert r.handover(None, GONE, "player", 1, 2, False, "random", None).seat == 1
    refused("not_away", r.handover, 0, AWAY, "player", 30_000, 20_000, False, "random", None)
    refused("own_seat", r.handover, 1, GONE, "player", 1, 2, False, "random", None)
    refused("seat_taken", r.handover, 0, GONE, "bot", 1, 2, False, "random", None)
    refused("ended", r.handover, 0, GONE, "player", 1, 2, True, "random", None)
    assert r.take_back(1, "bot", False, False) == SeatControllerChanged(1, "player", "returned")
    refused("playing", r.take_back, 1, "player", False, False)
    refused("resigned", r.take_back, 1, "bot", True, False)
    refused("ended", r.take_back, 1, "bot", False, True)
