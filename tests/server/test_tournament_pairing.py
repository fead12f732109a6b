"""The pure core of tournaments: Swiss and arena pairing, points, standings and
tie-breaks, and the state's transitions (server/tournaments/pairing.py, standings.py,
model.py). No Redis, socket or clock: the time is passed in."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.errors import LobbyError
from server.tournaments import pairing
from server.tournaments.model import Tournament, board_table_id
from server.tournaments.runner import advanced
from server.tournaments.standings import Board, game_points, met, standings


def tournament(kind: str = "swiss", seats: int = 2, rounds: int = 3, minutes: int = 10,
               players: int = 4) -> Tournament:
    t = Tournament(id="T1", name="Cup", creator="u0", creator_name="p0", kind=kind,
                   game="einauge", options={}, time_control={"kind": "live"}, seats=seats,
                   starts_at=1000, rated=False, secret="s" * 32, created_at=0,
                   rounds=rounds, minutes=minutes)
    for i in range(players):
        t.join(f"u{i}", f"p{i}")
    return t


def finish_round(t: Tournament, rng: random.Random) -> None:
    """Every open board ends, places drawn by ``rng`` (ties allowed)."""
    for b in t.boards:
        if b.status != "done":
            t.mark_playing(b.table)
            assert t.record(b.table, [rng.randint(1, len(b.players)) for _ in b.players])


# ---- points and standings -----------------------------------------------------------------

def test_points_by_place() -> None:
    assert [game_points([1, 2], s, "swiss") for s in (0, 1)] == [1.0, 0.0]
    assert [game_points([1, 1], s, "swiss") for s in (0, 1)] == [0.5, 0.5]
    assert [game_points([2, 1, 3], s, "swiss") for s in (0, 1, 2)] == [0.5, 1.0, 0.0]
    assert [game_points([1, 2], s, "arena") for s in (0, 1)] == [2.0, 0.0]
    assert game_points([1], 0, "swiss") == 1.0  # a bye
    with pytest.raises(ValueError):
        game_points([1, 2], 0, "knockout")


def test_tie_breaks_buchholz_then_sonneborn_berger() -> None:
    # a beats b, c beats d; then a beats c, d beats b: a 2, c 1, d 1, b 0. c and d tie on
    # points; c's opponents (d 1, a 2) outweigh d's (c 1, b 0): Buchholz 3 against 1.
    boards = [Board(("a", "b"), (1, 2)), Board(("c", "d"), (1, 2)),
              Board(("a", "c"), (1, 2)), Board(("d", "b"), (1, 2))]
    rows = standings(["a", "b", "c", "d"], boards, "swiss")
    assert [r.player for r in rows] == ["a", "c", "d", "b"]
    assert [r.points for r in rows] == [2, 1, 1, 0]
    # Buchholz: a met b (0), c (1); c met d (1), a (2); d met c, b; b met a, d (1).
    assert [r.buchholz for r in rows] == [1, 3, 1, 3]
    # Sonneborn-Berger: c's points came against d (1) → 1; d's against b (0) → 0.
    assert rows[1].sonneborn == 1 and rows[2].sonneborn == 0
    assert [r.rank for r in rows] == [1, 2, 3, 4]


def test_equal_everything_falls_back_to_joining_order() -> None:
    rows = standings(["b", "a"], [Board(("a", "b"), (1, 1))], "swiss")
    assert [r.player for r in rows] == ["b", "a"]


@given(st.lists(st.lists(st.integers(1, 5), min_size=2, max_size=5), min_size=1, max_size=8))
def test_swiss_points_per_table_sum_to_half_the_pairs(places: list[list[int]]) -> None:
    """Each table hands out ½ point per pair of players, whatever the places: so the
    total over the standings is the sum over tables of (n - 1) / 2 ... divided by n - 1."""
    for p in places:
        total = sum(game_points(p, s, "swiss") for s in range(len(p)))
        assert total == pytest.approx(len(p) / 2)


# ---- Swiss pairing ------------------------------------------------------------------------

@given(st.integers(2, 20), st.integers(2, 5), st.randoms(use_true_random=False))
def test_swiss_seats_everyone_once(n: int, seats: int, rng: random.Random) -> None:
    order = [f"p{i}" for i in range(n)]
    had = {p for p in order if rng.random() < 0.3}
    tables, byes = pairing.swiss_tables(order, {}, seats, had)
    seated = [p for t in tables for p in t]
    assert sorted(seated + byes) == sorted(order)
    assert all(len(t) == seats for t in tables)
    assert len(byes) == n % seats
    fresh = [p for p in order if p not in had]
    # Byes go to those without one, lowest first.
    assert byes == (list(reversed(fresh)) + [p for p in reversed(order) if p in had])[:len(byes)]


@given(st.integers(2, 8).map(lambda k: 2 * k), st.randoms(use_true_random=False))
def test_swiss_two_seats_never_repeats_while_it_can(n: int, rng: random.Random) -> None:
    """Fewer rounds than half the field: a pairing with no repeat always exists (every
    player has at least n/2 players it has not met), and the search finds it."""
    t = tournament(players=n, rounds=n // 2 - 1 or 1)
    t.advance(1000)
    while t.status == "running":
        finish_round(t, rng)
        t.advance(2000)
    pairs = [frozenset(b.players) for b in t.boards if len(b.players) == 2]
    assert len(pairs) == len(set(pairs)), "a pair met twice"
    assert t.round == t.rounds and t.status == "finished"


def test_swiss_pairs_by_score() -> None:
    t = tournament(players=4, rounds=2)
    t.advance(1000)
    first = [b.players for b in t.boards]
    # Round 1: by joining order (no score yet), neighbours.
    assert first == [["u0", "u1"], ["u2", "u3"]]
    t.record(t.boards[0].table, [1, 2])  # u0 beats u1
    t.record(t.boards[1].table, [2, 1])  # u3 beats u2
    assert t.advance(1000)
    # Round 2: the winners meet, the losers meet, seats reversed (who sits first alternates).
    assert [sorted(b.players) for b in t.boards[2:]] == [["u0", "u3"], ["u1", "u2"]]
    assert t.boards[2].players == ["u3", "u0"]


def test_odd_field_gets_a_bye_scored_as_a_win() -> None:
    t = tournament(players=3, rounds=2)
    t.advance(1000)
    byes = [b for b in t.boards if not b.table]
    assert [b.players for b in byes] == [["u2"]] and byes[0].status == "done"
    finish_round(t, random.Random(1))
    t.advance(1000)
    second = [b for b in t.boards if b.round == 2 and not b.table]
    assert second and second[0].players != ["u2"], "the same player sat out twice"
    row = {r.player: r for r in t.rows()}["u2"]
    assert row.byes == 1 and row.points >= 1


@given(st.integers(6, 20), st.sampled_from([3, 4, 5]), st.randoms(use_true_random=False))
def test_multi_seat_swiss_groups_by_score(n: int, seats: int, rng: random.Random) -> None:
    t = tournament(players=n, seats=seats, rounds=3)
    t.advance(1000)
    while t.status == "running":
        before = [r.player for r in t.rows()]
        finish_round(t, rng)
        planned = t.advance(1000)
        rounds = {b.round for b in planned}
        assert len(rounds) <= 1
        for b in planned:
            assert len(b.players) == seats
        seated = [p for b in t.boards if b.round == t.round for p in b.players]
        assert sorted(seated) == sorted(before)  # everyone once (a bye is a board of one)
    assert t.status == "finished"


# ---- arena --------------------------------------------------------------------------------

@given(st.integers(2, 12), st.sampled_from([2, 3, 4]), st.randoms(use_true_random=False))
def test_arena_nobody_at_two_tables(n: int, seats: int, rng: random.Random) -> None:
    t = tournament(kind="arena", players=n, seats=seats, minutes=3)
    now = 1000
    t.advance(now)
    if n < seats:
        assert t.status == "cancelled"
        return
    end = t.ends_at
    while t.status == "running":
        assert now < end + 3_600_000, "the arena never finished"
        busy = [p for b in t.boards if b.status != "done" for p in b.players]
        assert len(busy) == len(set(busy))
        waiting = [p for p in t.active() if p not in busy]
        if now < end:  # after the end nobody is paired again
            assert len(waiting) < seats, "players left waiting with a table's worth free"
        open_boards = [b for b in t.boards if b.status != "done"]
        if open_boards:  # one board ends: its players are paired again at once
            b = rng.choice(open_boards)
            t.record(b.table, [rng.randint(1, seats) for _ in b.players])
        now += 30_000
        t.advance(now)
    assert t.status == "finished"
    assert all(b.status == "done" for b in t.boards)
    assert not [b for b in t.boards if b.round > 0 and b.table == ""]


def test_arena_avoids_the_last_opponent_when_it_can() -> None:
    order = ["a", "b", "c", "d"]
    last = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}
    assert pairing.arena_tables(order, order, last, 2) == [["a", "c"], ["b", "d"]]
    assert pairing.arena_tables(["a", "b"], order, last, 2) == [["a", "b"]]


# ---- blocks (break test finding: tournaments seated accounts that blocked each other) ----

def test_swiss_keeps_a_blocked_pair_apart_like_a_repeat_meeting() -> None:
    order = ["a", "b", "c", "d"]
    # Without the block: a-b, c-d (neighbours); a blocked b (or b a): a-c, b-d.
    assert pairing.swiss_tables(order, {}, 2)[0] == [["a", "b"], ["c", "d"]]
    assert pairing.swiss_tables(order, {}, 2, avoid={"a": {"b"}})[0] == [["a", "c"], ["b", "d"]]
    assert pairing.swiss_tables(order, {}, 2, avoid={"b": {"a"}})[0] == [["a", "c"], ["b", "d"]]
    # a met c and d already: a repeat meeting rather than the blocked pair.
    met = {"a": {"c", "d"}, "c": {"a"}, "d": {"a"}}
    assert pairing.swiss_tables(order, met, 2)[0] == [["a", "b"], ["c", "d"]]
    assert pairing.swiss_tables(order, met, 2, avoid={"a": {"b"}})[0] == [["a", "c"],
                                                                          ["b", "d"]]
    # No choice (two players): they play.
    assert pairing.swiss_tables(["a", "b"], {}, 2, avoid={"a": {"b"}})[0] == [["a", "b"]]


def test_multi_seat_swiss_keeps_a_blocked_pair_apart_when_it_can() -> None:
    order = ["a", "b", "c", "d", "e", "f"]
    assert pairing.swiss_tables(order, {}, 3)[0] == [["a", "b", "c"], ["d", "e", "f"]]
    tables, _ = pairing.swiss_tables(order, {}, 3, avoid={"c": {"a"}})
    assert tables == [["a", "b", "d"], ["c", "e", "f"]]


def test_arena_keeps_a_blocked_pair_apart_while_another_waits() -> None:
    order = ["a", "b", "c", "d"]
    assert pairing.arena_tables(["a", "b", "c"], order, {}, 2) == [["a", "b"]]
    assert pairing.arena_tables(["a", "b", "c"], order, {}, 2,
                                avoid={"b": {"a"}}) == [["a", "c"]]
    # Before the last opponent: c was a's last, b blocked a; c it is.
    assert pairing.arena_tables(["a", "b", "c"], order, {"a": {"c"}, "c": {"a"}}, 2,
                                avoid={"b": {"a"}}) == [["a", "c"]]
    # Nobody else waits: the blocked pair is seated (the pairing has no choice).
    assert pairing.arena_tables(["a", "b"], order, {}, 2, avoid={"a": {"b"}}) == [["a", "b"]]


def test_a_tournaments_plan_takes_the_blocks() -> None:
    t = tournament(players=4)
    assert t.may_plan(1000) and not t.may_plan(999)
    t.advance(1000, avoid={"u0": {"u1"}, "u1": {"u0"}})
    assert [b.players for b in t.boards] == [["u0", "u2"], ["u1", "u3"]]
    assert not t.may_plan(1000)  # its boards are open


def test_a_plan_waits_for_the_blocks_of_its_own_state() -> None:
    """The runner reads the blocks, then changes the stored state: a state that became
    due to pair meanwhile (a start, a result) or holds a player whose blocks were not
    read is left for the next pass, never paired without them."""
    t = tournament(players=4)
    assert advanced(t, 1000, None) is None and t.status == "scheduled"
    assert advanced(t, 1000, {"u0": set(), "u1": set(), "u2": set()}) is None
    assert not t.boards
    got = advanced(t, 1000, {"u0": {"u1"}, "u1": {"u0"}, "u2": set(), "u3": set()})
    assert got is not None and [b.players for b in t.boards] == [["u0", "u2"], ["u1", "u3"]]


# ---- joining, withdrawing, the state ------------------------------------------------------

def test_join_and_withdraw_rules() -> None:
    t = tournament(players=2, rounds=1)
    with pytest.raises(LobbyError) as e:
        t.join("u0", "p0")
    assert e.value.code == "joined"
    t.withdraw("u1")
    assert t.active() == ["u0"]
    with pytest.raises(LobbyError) as e:
        t.withdraw("u1")
    assert e.value.code == "not_joined"
    t.advance(1000)
    assert t.status == "cancelled"  # one player: no table
    with pytest.raises(LobbyError) as e:
        t.join("u5", "p5")
    assert e.value.code == "finished"


def test_withdrawn_player_is_paired_no_more() -> None:
    t = tournament(players=4, rounds=3)
    t.advance(1000)
    t.withdraw("u0")
    assert t.entry("u0") is not None and t.entry("u0").withdrawn  # type: ignore[union-attr]
    finish_round(t, random.Random(2))
    t.advance(1000)
    second = [p for b in t.boards if b.round == 2 for p in b.players]
    assert "u0" not in second and sorted(second) == ["u1", "u2", "u3"]
    assert any(r.player == "u0" for r in t.rows())  # still in the standings


def test_plan_is_deterministic_and_stored() -> None:
    a, b = tournament(players=6), tournament(players=6)
    assert a.advance(1000) == b.advance(1000)
    again = Tournament.from_json(a.to_json())
    assert again == a
    assert a.boards[0].table == board_table_id("s" * 32, "T1", 1, 0)
    assert len(a.boards[0].table) == 12
    assert board_table_id("t" * 32, "T1", 1, 0) != a.boards[0].table


def test_public_form_hides_the_secret_and_account_ids() -> None:
    t = tournament(players=4)
    t.advance(1000)
    text = repr(t.public())
    assert t.secret not in text and "u1" not in text and "p1" in text
    assert met(t.finished_boards()) == {}
