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
