"""When a table's presence is renewed, read again or recomputed
(server/play/presence_schedule.py), without sockets or clocks: times are given."""

from __future__ import annotations

import itertools

from server.play.presence_schedule import READ_AFTER, Need, TableSchedule, renew_period, slot

TICK, TTL = 1_000, 5_000
RENEW = renew_period(TTL, TICK)


def test_renewals_come_in_the_tables_slot_before_the_claims_lapse():
    assert RENEW == 3_000
    assert renew_period(3_000, 1_000) == 1_000  # the former defaults: every tick
    assert renew_period(1_200_000, 600_000) == 600_000  # at least a tick
    for table_slot in range(3):
        s = TableSchedule(slot=table_slot)
        assert s.need(0, True, TICK, RENEW) is Need.REFRESH  # never read
        s.read({}, 500, True, None, None)
        writes, reads = [], []
        for now in range(1_500, 30_500, TICK):  # one tick a second, at mid-second
            need = s.need(now, True, TICK, RENEW)
            if need is Need.REFRESH:
                writes.append(now)
                reads.append(now)
                s.read({}, now, True, None, None)
            elif need is Need.RENEW:
                writes.append(now)
                s.renewed(now, {"on:0:A": str(now + TTL)})
            else:
                assert need is None
        assert all(b - a == RENEW for a, b in itertools.pairwise(writes))
        assert {(w // TICK) % 3 for w in writes} == {table_slot}
        assert writes[0] - 500 <= RENEW
        # The first renewal past READ_AFTER since the last read reads the hash back.
        assert reads and all(READ_AFTER <= b - a < READ_AFTER + RENEW
                             for a, b in itertools.pairwise([500, *reads]))
        # A renewal brings the last read hash up to date with what it wrote.
        assert s.fields == ({} if reads[-1] == writes[-1]
                            else {"on:0:A": str(writes[-1] + TTL)})
    # A missed slot (a late tick) renews at the next tick, still before the claims lapse.
    s = TableSchedule(slot=0)
    s.read({}, 3_500, True, None, None)
    assert s.need(5_999, True, TICK, RENEW) is None  # tick 5: not its slot, not overdue
    # Tick 6 (its slot) came too late, at 7.001 s: tick 7 is not its slot but overdue.
    assert s.need(7_001, True, TICK, RENEW) is Need.RENEW
    assert TTL > 7_001 - 3_500


def test_a_write_between_ticks_and_the_slots_spread():
    s = TableSchedule(slot=2)
    s.read({}, 1_900, True, None, None)  # a socket came at 1.9 s: written then
    assert s.need(2_100, True, TICK, RENEW) is None  # tick 2 is its slot, but just written
    assert s.need(5_500, True, TICK, RENEW) is Need.RENEW  # tick 5, its slot again
    assert s.need(5_500, False, TICK, RENEW) is None  # a wake-up renews nothing
    counts = [0, 0, 0]
    for n in range(3_000):
        counts[slot(f"table-{n}") % 3] += 1
    assert min(counts) > 900  # about a third of the tables in each tick


def test_lapse_reads_again_and_turn_recomputes_at_once():
    s = TableSchedule(slot=0)
    s.read({"seen:0": "1"}, 1_000, True, 4_000, 3_000)
    assert s.wake_at(1_000) == 3_000
    assert s.need(2_999, False, TICK, RENEW) is None
    assert s.need(3_000, False, TICK, RENEW) is Need.SHOW
    assert s.wake_at(3_000) == 4_000
    assert s.need(4_000, False, TICK, RENEW) is Need.REFRESH
    # Past times wake nobody between ticks (a failed read waits for the next tick).
    assert s.wake_at(4_000) is None
    s.read({}, 4_100, False, None, None)
    assert s.written == 1_000  # a read without a write leaves the renewal where it was
    # A spectator count read after a notice is shown at the next tick only.
    s = TableSchedule(slot=1)
    s.read({}, 4_100, True, None, None)
    s.count_stale = True
    assert s.need(4_200, False, TICK, RENEW) is None
    assert s.need(5_500, True, TICK, RENEW) is Need.SHOW
