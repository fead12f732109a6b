"""The pure pairing decision (server/pairing/match.py): which seeks fit, the rating window
widening with the wait, bots after the seeker's chosen wait. The clock is an argument."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.pairing.match import Seek, Window, decide, fits

LIVE = '{"kind":"live","preset":"normal"}'
FAST = '{"kind":"live","preset":"fast"}'
W = Window(base=100, growth=10, cap=500)


def seek(sid: str, created: int = 0, seats: int = 2, tc: str = LIVE, rated: bool = False,
         rating: int = 1500, bots_after: int | None = None) -> Seek:
    return Seek(sid, seats, tc, rated, created, rating, bots_after)


def test_two_casual_seeks_of_one_kind_are_paired_oldest_first():
    groups = decide([seek("b", 5), seek("a", 1)], 10, W)
    assert [(g.ids, g.bots) for g in groups] == [(("a", "b"), 0)]


@pytest.mark.parametrize("other", [
    seek("b", seats=3), seek("b", tc=FAST), seek("b", rated=True)])
def test_seeks_of_another_seat_count_clock_or_rating_mode_never_meet(other):
    assert decide([seek("a"), other], 10, W) == []
    assert not fits([seek("a"), other], 10, W)


def test_a_lone_seek_waits_without_bots_and_before_its_wait_is_over():
    assert decide([seek("a")], 10**9, W) == []
    lone = seek("a", created=1000, bots_after=30)
    assert decide([lone], 1000 + 29_999, W) == []
    groups = decide([lone], 1000 + 30_000, W)
    assert [(g.ids, g.bots) for g in groups] == [(("a",), 1)]


def test_a_multi_seat_game_waits_for_enough_seekers_or_the_bots():
    three = [seek(s, created=i, seats=4) for i, s in enumerate("abc")]
    assert decide(three, 60_000, W) == []
    full = [*three, seek("d", created=5, seats=4)]
    assert [(g.ids, g.bots) for g in decide(full, 60_000, W)] == [(("a", "b", "c", "d"), 0)]
    # One of three asked for bots after 20 s: at 20 s the three sit with one bot.
    asked = [*three[:2], seek("c", created=2, seats=4, bots_after=20)]
    assert decide(asked, 20_001, W) == []
    assert [(g.ids, g.bots) for g in decide(asked, 20_002, W)] == [(("a", "b", "c"), 1)]


def test_the_rating_window_widens_with_the_wait():
    a = seek("a", created=0, rated=True, rating=1500)
    b = seek("b", created=0, rated=True, rating=1700)  # 200 apart
    assert W.at(0) == 100 and W.at(10_000) == 200 and W.at(10**9) == 500
    assert decide([a, b], 9_999, W) == []  # both windows 199.99
    assert [g.ids for g in decide([a, b], 10_000, W)] == [("a", "b")]


def test_the_window_of_every_member_counts():
    old = seek("a", created=0, rated=True, rating=1500)
    new = seek("b", created=19_000, rated=True, rating=1750)
    # At 20 s the old seek's window is 300 but the new one's 110: no pairing yet.
    assert decide([old, new], 20_000, W) == []
    # At 33 s the new one has waited 14 s: window 240 < 250; at 34 s: 250.
    assert decide([old, new], 33_000, W) == []
    assert [g.ids for g in decide([old, new], 34_000, W)] == [("a", "b")]


def test_the_oldest_seek_gets_the_nearest_rating():
    a = seek("a", created=0, rated=True, rating=1500)
    far = seek("b", created=1, rated=True, rating=1590)
    near = seek("c", created=2, rated=True, rating=1510)
    groups = decide([a, far, near], 100, W)
    assert [g.ids for g in groups] == [("a", "c")]


def test_rated_bots_fill_seats_only_within_the_window_group():
    a = seek("a", created=0, rated=True, rating=1500, bots_after=10, seats=3)
    b = seek("b", created=0, rated=True, rating=2400, seats=3)
    groups = decide([a, b], 10_000, W)
    assert [(g.ids, g.bots) for g in groups] == [(("a",), 2)]


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(2, 4), st.booleans(),
                          st.integers(1000, 2000), st.sampled_from([None, 0, 5])),
                max_size=30),
       st.integers(0, 60_000))
def test_no_seek_is_in_two_groups_and_every_group_fits(rows, now):
    seeks = [Seek(f"s{i}", seats, LIVE if kind % 2 else FAST, rated, kind * 1000, rating,
                  bots) for i, (kind, seats, rated, rating, bots) in enumerate(rows)]
    random.Random(len(rows)).shuffle(seeks)
    groups = decide(seeks, now, W)
    ids = [i for g in groups for i in g.ids]
    assert len(ids) == len(set(ids))
    for g in groups:
        assert fits(list(g.seeks), now, W)
        assert len(g.seeks) + g.bots == g.seeks[0].seats
        assert g.bots == 0 or any(s.bots_due(now) for s in g.seeks)
    # Decided the same whatever order the pool was read in.
    assert decide(list(reversed(seeks)), now, W) == groups


def acct(sid: str, account: str | None, avoid: tuple[str, ...] = (), created: int = 0,
         seats: int = 2, bots_after: int | None = None) -> Seek:
    return Seek(sid, seats, LIVE, False, created, 1500, bots_after, account,
                frozenset(avoid))


@pytest.mark.parametrize("a,b", [
    # Anna blocked Ben: her seek avoids him, his seek avoids her (his blocked_by).
    (acct("a", "anna", ("ben",)), acct("b", "ben", ("anna",))),
    # Only one side's read saw the block (the other read came before it): still apart.
    (acct("a", "anna", ("ben",)), acct("b", "ben")),
    (acct("a", "anna"), acct("b", "ben", ("anna",)))])
def test_seekers_who_blocked_one_another_are_never_paired(a, b):
    assert not fits([a, b], 10, W)
    assert decide([a, b], 10**9, W) == []
    # With a third seeker each of them is paired, just not with the other.
    c = acct("c", "cara", created=5)
    groups = decide([a, b, c], 10, W)
    assert [g.ids for g in groups] == [("a", "c")]
    # Bots take the seat the blocked one would have had; the other keeps waiting.
    a_bots = acct("a", "anna", tuple(a.avoid), bots_after=1)
    groups = decide([a_bots, b], 1000, W)
    assert [(g.ids, g.bots) for g in groups] == [(("a",), 1)]


def test_a_block_keeps_a_multi_seat_table_from_holding_both():
    seeks = [acct("a", "anna", ("ben",), created=0, seats=3),
             acct("b", "ben", ("anna",), created=1, seats=3),
             acct("c", "cara", created=2, seats=3), acct("d", "dan", created=3, seats=3)]
    assert [g.ids for g in decide(seeks, 10, W)] == [("a", "c", "d")]
    # Guests have no account: a block never concerns them.
    guests = [acct("a", "anna", ("ben",)), acct("g", None)]
    assert [g.ids for g in decide(guests, 10, W)] == [("a", "g")]


@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.sets(st.sampled_from("abcdef"))),
                min_size=2, max_size=12),
       st.integers(min_value=2, max_value=4))
def test_no_group_ever_holds_two_accounts_that_blocked_one_another(rows, seats):
    seeks = [acct(f"s{i}", who, tuple(avoid), created=i, seats=seats, bots_after=0)
             for i, (who, avoid) in enumerate(rows)]
    for group in decide(seeks, 10**6, W):
        members = group.seeks
        for i, x in enumerate(members):
            for y in members[i + 1:]:
                assert x.account not in y.avoid and y.account not in x.avoid
