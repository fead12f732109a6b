"""The presence state machine (server/play/presence.py), without sockets."""

from __future__ import annotations

from server.play import presence as p

GRACE, CLAIM = 2_000, 30_000


def states(fields, now, started=0):
    return [(x.state, x.since) for x in p.seats(fields, 3, now, started, GRACE, CLAIM)]


def test_online_while_any_process_vouches():
    fields = {p.on_field(0, "A"): "10000", p.on_field(0, "B"): "5000",
              p.on_field(1, "A"): "4000", p.seen_field(1): "3500"}
    # Seat 0: A's claim is live. Seat 1: A's lapsed at 4000, seen 3500. Seat 2: never.
    assert states(fields, 4_500, started=1_000) == [("online", None), ("online", None),
                                                     ("away", 1_000)]
    assert states(fields, 6_000, started=1_000)[1] == ("away", 3_500)
    # Seat 0 was never marked seen: its latest lapsed claim (10 000) tells.
    assert states(fields, 33_500, started=1_000) == [("away", 10_000), ("gone", 3_500),
                                                      ("gone", 1_000)]
    assert states(fields, 40_000, started=1_000)[0] == ("gone", 10_000)
    assert p.away_for(p.SeatPresence(1, "away", 3_500), 6_000) == 2_500


def test_a_reload_within_the_grace_is_no_absence():
    fields = {p.seen_field(0): "10000"}
    assert states(fields, 11_999)[0] == ("online", None)
    assert states(fields, 12_000)[0] == ("away", 10_000)


def test_bad_fields_are_ignored_and_spectators_summed():
    fields = {"on:x:A": "99999", "on:0": "99999", p.on_field(1, "A"): "soon",
              p.spec_field("A"): "3 9000", p.spec_field("B"): "2 5000",
              p.spec_field("C"): "junk"}
    assert [s for s, _ in states(fields, 6_000, started=6_000)] == ["online"] * 3  # grace
    assert [s for s, _ in states(fields, 9_000, started=6_000)] == ["away"] * 3
    assert p.spectators(fields, 4_000) == 5
    assert p.spectators(fields, 6_000) == 3
    assert p.spectators(fields, 9_000) == 0


def changes(fields, now, people=(0, 1, 2), started=0):
    return p.next_changes(fields, people, now, started, GRACE, CLAIM, "A")


def test_next_changes_lapse_is_another_processes_claim_or_count():
    # A's own claim (10 000) is renewed by A itself: only B's claim and count lapse.
    fields = {p.on_field(0, "A"): "10000", p.on_field(1, "B"): "8000",
              p.spec_field("B"): "2 7000", p.spec_field("A"): "1 6000",
              p.seen_field(2): "4000"}
    assert changes(fields, 5_000, started=1_000) == (7_000, 6_000)  # seat 2: 4000 + grace
    assert changes(fields, 7_000, started=1_000) == (8_000, 34_000)  # then + claim_after
    # Lapsed claims are no longer awaited; a seat lapsed long ago turns no more.
    assert changes(fields, 39_000, started=1_000) == (None, 10_000 + CLAIM)
    assert changes(fields, 40_000, started=1_000) == (None, None)  # every seat gone


def test_next_changes_turn_only_for_the_seats_of_people():
    fields = {p.seen_field(0): "1000", p.seen_field(1): "500"}
    assert changes(fields, 1_500) == (None, 2_000)  # seat 2, never seen: from the start
    assert changes(fields, 1_500, people=(0, 1)) == (None, 2_500)  # seat 1: 500 + 2000
    assert changes(fields, 1_500, people=(0,)) == (None, 3_000)
    assert changes(fields, 1_500, people=()) == (None, None)
    # The turn agrees with seats(): at it the state changes, a moment before it does not.
    for now in (1_500, 1_999, 2_000, 2_500, 3_000, 30_000, 30_499, 30_500, 30_999):
        _, turn = changes(fields, now)
        assert turn is not None and turn > now
        assert states(fields, turn - 1) == states(fields, now)
        assert states(fields, turn) != states(fields, now)
    assert changes(fields, 31_000) == (None, None)  # every seat gone: no more turns


def test_claims_are_the_fields_the_core_reads():
    put, drop = p.claims(frozenset({0, 2}), frozenset({1, 2}), 3, False, "A", 9_000, 4_000)
    assert put == {p.on_field(0, "A"): "9000", p.on_field(2, "A"): "9000",
                   p.seen_field(0): "4000", p.seen_field(1): "4000", p.seen_field(2): "4000",
                   p.spec_field("A"): "3 9000"}
    assert drop == [p.on_field(1, "A")]
    assert [x.state for x in p.seats(put, 3, 8_999, 0, GRACE, CLAIM)] == ["online", "away",
                                                                   "online"]
    assert p.spectators(put, 8_999) == 3
    put, drop = p.claims(frozenset(), frozenset({0}), 0, True, "A", 9_000, 4_000)
    assert put == {p.seen_field(0): "4000"}
    assert drop == [p.on_field(0, "A"), p.spec_field("A")]
