"""The move clock's arithmetic (server/play/clock.py), without sockets."""

from __future__ import annotations

import pytest

from server.play import clock as c

S = c.SECOND


def test_presets_and_parse():
    assert c.parse(None) == c.TimeControl()
    assert not c.parse({"kind": "none"}).clocked
    fast = c.parse({"kind": "live", "preset": "fast"})
    assert (fast.per_move, fast.reserve, fast.claim_after) == (15 * S, 60 * S, 20 * S)
    assert c.parse({"kind": "live"}).preset == "normal"
    two = c.parse({"kind": "async", "days": 2})
    assert (two.per_move, two.reserve, two.claim_after) == (2 * c.DAY, 0, c.DAY)
    assert two.to_dict() == {"kind": "async", "days": 2, "per_move": 2 * c.DAY, "reserve": 0,
                             "claim_after": c.DAY}
    for bad in ({"kind": "blitz"}, {"kind": "live", "preset": "bullet"},
                {"kind": "async", "days": 4}, {"kind": "async", "days": True},
                {"kind": "live", "extra": 1}):
        with pytest.raises(ValueError):
            c.parse(bad)


def test_time_beyond_the_move_time_drains_the_reserve():
    tc = c.parse({"kind": "live", "preset": "fast"})
    clock = c.start(tc, 2, now=1_000)
    assert c.deadline(tc, clock, 0) == 1_000 + 75 * S
    assert c.left(tc, clock, 0, 1_000 + 5 * S) == (10 * S, 60 * S)
    assert c.left(tc, clock, 0, 1_000 + 25 * S) == (0, 50 * S)
    # 10 s: within the move time, the reserve is untouched; the count resets.
    clock.timeouts[0] = 2
    after = c.moved(tc, clock, 0, 1_000 + 10 * S)
    assert (after.turn_at, after.reserve, after.timeouts) == (11 * S, [60 * S, 60 * S], [0, 0])
    # 40 s: 25 s over the move time come off the reserve.
    after = c.moved(tc, after, 1, after.turn_at + 40 * S)
    assert after.reserve == [60 * S, 35 * S]
    assert c.deadline(tc, after, 1) == after.turn_at + 15 * S + 35 * S
    # Far over: the reserve stops at 0; a timeout counts in a row and empties it.
    after = c.moved(tc, after, 1, after.turn_at + 500 * S)
    assert after.reserve[1] == 0
    out = c.moved(tc, after, 0, after.turn_at + 75 * S, timed_out=True)
    out = c.moved(tc, out, 0, out.turn_at + 15 * S, timed_out=True)
    assert out.timeouts == [2, 0] and out.reserve[0] == 0
    # A bot's move for a seat its bot plays neither drains nor counts.
    bot = c.moved(tc, out, 0, out.turn_at + 900 * S, by_bot=True)
    assert bot.reserve == out.reserve and bot.timeouts == out.timeouts


def test_next_deadline_and_no_clock():
    tc = c.parse({"kind": "live", "preset": "slow"})
    clock = c.Clock(0, [10 * S, 0, 5 * S], [0, 0, 0])
    assert c.next_deadline(tc, clock, [0, 2]) == (65 * S, 2)
    assert c.next_deadline(tc, clock, []) is None
    assert c.next_deadline(c.TimeControl(), clock, [0]) is None
    assert c.next_deadline(tc, None, [0]) is None
    assert c.Clock.from_dict(clock.to_dict()) == clock
