"""Seat-control events (engine/seat_control.py) in the stream and in records."""

from __future__ import annotations

import pytest

from engine import seat_control as sc
from engine.einauge import EINAUGE
from engine.game import IllegalAction, RecordError

replay_record = EINAUGE.replay_record


def test_fold_and_decode():
    ctl = sc.Control()
    assert ctl.by(0, "human") == "player" and ctl.by(1, "bot") == "bot"
    ctl.apply(sc.SeatTimedOut(0, 1))
    assert ctl.by(0, "human") == "player"
    ctl.apply(sc.SeatControllerChanged(0, "bot", "timeout", "greedy"))
    assert (ctl.by(0, "human"), ctl.seats[0].bot) == ("bot", "greedy")
    ctl.apply(sc.SeatControllerChanged(0, "player", "returned"))
    assert ctl.by(0, "human") == "player" and not ctl.resigned(0)
    ctl.apply(sc.SeatControllerChanged(0, "bot", "resigned", "greedy"))
    ctl.apply(sc.SeatControllerChanged(0, "player", "returned"))
    assert ctl.resigned(0)  # once resigned, always resigned
    with pytest.raises(IllegalAction):
        sc.CODEC.decode({"type": "seat_timed_out", "seat": 0})


def test_record_changes_are_placed_before_their_action():
    entries = [{"e": {"type": "game_started"}}, {"e": {"type": "x"}, "a": {}},
               {"e": {"type": "seat_timed_out", "seat": 1, "count": 1}},
               {"e": {"type": "y"}, "a": {}}, {"e": {"type": "z"}},
               {"e": {"type": "seat_controller_changed", "seat": 1, "by": "player",
                      "reason": "returned"}}]
    assert sc.record_changes(entries) == [
        {"before_action": 1, "type": "seat_timed_out", "seat": 1, "count": 1},
        {"before_action": 2, "type": "seat_controller_changed", "seat": 1, "by": "player",
         "reason": "returned"}]
    changes = sc.parse_changes(sc.record_changes(entries), 2, 2)
    out = sc.interleave(changes, 2, lambda i: [f"a{i}"])  # type: ignore[list-item]
    assert [getattr(e, "type", e) for e in out] == ["a0", "seat_timed_out", "a1",
                                                    "seat_controller_changed"]


@pytest.mark.parametrize("bad", [
    "x", [1], [{"before_action": 3, "type": "seat_timed_out", "seat": 0, "count": 1}],
    [{"before_action": 1, "type": "seat_timed_out", "seat": 0, "count": 1},
     {"before_action": 0, "type": "seat_timed_out", "seat": 0, "count": 1}],
    [{"before_action": 0, "type": "seat_timed_out", "seat": 5, "count": 1}],
    [{"before_action": 0, "type": "seat_controller_changed", "seat": 0, "by": "ghost",
      "reason": "timeout"}],
    [{"before_action": 0, "type": "game_started", "players": [], "options": {}, "deck": []}],
    [{"before_action": True, "type": "seat_timed_out", "seat": 0, "count": 1}],
])
def test_malformed_seat_changes_are_refused(bad):
    record = {"game": "einauge", "players": ["A", "B"], "seed": "s", "actions": [],
              "seat_changes": bad}
    with pytest.raises(RecordError) as e:
        replay_record(record)
    assert e.value.index is None


def test_a_voided_game_folds_its_reason_and_the_void_comes_last_in_a_record():
    ctl = sc.Control()
    assert ctl.voided is None
    ctl.apply(sc.GameVoided("restored from an older backup"))
    assert ctl.voided == "restored from an older backup"
    assert sc.is_control({"type": "game_voided", "reason": "x"})
    void = {"before_action": 2, "type": "game_voided", "reason": "x"}
    [(at, event)] = sc.parse_changes([void], 2, 2)
    assert (at, event) == (2, sc.GameVoided("x"))
    assert sc.voided([event]) == "x"
    timed_out = {"before_action": 2, "type": "seat_timed_out", "seat": 0, "count": 1}
    for bad in ([{**void, "before_action": 1}], [void, timed_out],
                [{**void, "reason": ""}]):
        with pytest.raises(ValueError, match="game_voided"):
            sc.parse_changes(bad, 2, 2)
