"""Who may do what (server/play/roles.py), as pure functions over a table's meta."""

from __future__ import annotations

import pytest

from server.errors import LobbyError
from server.play import roles
from server.table.meta import Seat, TableMeta, token_hash

OWNER, ANNA, BEN, CEM = "owner-token", "anna-token", "ben-token", "cem-token"


def meta(seated: dict[int, tuple[str, int]], seats: int = 4, invite: str = "",
         host: str = "") -> TableMeta:
    """An open table created with ``OWNER``; ``seated``: seat -> (token, since)."""
    m = TableMeta(id="t1", game="einauge", status="open", name="", options={},
                  seats=[Seat() for _ in range(seats)], contributions=[""] * seats,
                  commitment="c" * 64, server_seed="s" * 64, created_at=1.0,
                  tokens=[""] * seats, owner=token_hash(OWNER), host=host,
                  invite=token_hash(invite) if invite else "")
    for seat, (token, since) in seated.items():
        m.seats[seat] = Seat(name=token, kind="human", since=since)
        m.tokens[seat] = token_hash(token)
    return m


def refusal(fn, *args) -> tuple[int, str]:
    with pytest.raises(LobbyError) as e:
        fn(*args)
    return e.value.status, e.value.code


def test_the_creator_is_the_host_until_the_role_passes():
    m = meta({1: (ANNA, 3)})
    assert roles.is_host(m, OWNER) and not roles.is_host(m, ANNA)
    assert m.host_seat() is None  # the creator holds no seat
    roles.require_host(m, OWNER, "start")
    assert refusal(roles.require_host, m, ANNA, "start") == (403, "not_host")
    assert refusal(roles.require_host, m, None, "start") == (401, "bad_token")
    assert refusal(roles.require_host, m, "forged", "start") == (401, "bad_token")


def test_the_creator_seated_with_its_token_is_the_host_seat():
    m = meta({2: (OWNER, 1), 0: (ANNA, 2)})
    assert m.host_seat() == 2 and m.summary()["host"] == 2
    assert roles.require_seat(m, OWNER) == 2


def test_the_host_role_passes_to_whoever_sat_longest_then_back_to_the_creator():
    # Ben sat before Anna although Anna's seat number is lower.
    m = meta({0: (ANNA, 5), 1: (OWNER, 1), 3: (BEN, 2)})
    assert roles.host_after_leave(m, 1) == token_hash(BEN)
    # A person other than the host leaving changes nothing.
    assert roles.host_after_leave(m, 0) == ""
    passed = meta({0: (ANNA, 5), 3: (BEN, 2)}, host=token_hash(BEN))
    assert roles.is_host(passed, BEN) and not roles.is_host(passed, OWNER)
    assert refusal(roles.require_host, passed, OWNER, "start") == (403, "not_host")
    assert roles.host_after_leave(passed, 3) == token_hash(ANNA)
    alone = meta({3: (BEN, 2)}, host=token_hash(BEN))
    assert roles.host_after_leave(alone, 3) == ""  # nobody left seated: the creator's again


def test_seats_stored_before_since_existed_order_by_seat():
    m = meta({0: (OWNER, 0), 2: (ANNA, 0), 1: (BEN, 0)})
    for seat in (1, 2):
        m.seats[seat].since = None
    assert roles.host_after_leave(m, 0) == token_hash(BEN)


def test_only_a_seat_token_holds_a_seat():
    m = meta({1: (ANNA, 1)})
    assert roles.require_seat(m, ANNA) == 1
    for token in (None, "", "forged", OWNER):
        assert refusal(roles.require_seat, m, token) == (401, "bad_token")


def test_a_private_table_is_seen_with_its_secret_or_a_token_of_it():
    m = meta({1: (ANNA, 1)}, invite="the-secret")
    assert m.private and m.summary()["private"] is True
    for token, key in [(None, "the-secret"), (ANNA, None), (OWNER, None)]:
        assert roles.may_see(m, token, key), (token, key)
        roles.admit(m, token, key)
    for token, key in [(None, None), (None, "wrong"), ("forged", None), (BEN, "")]:
        assert not roles.may_see(m, token, key)
        assert refusal(roles.admit, m, token, key) == (404, "no_table")
    public = meta({})
    assert roles.may_see(public, None, None) and public.summary()["private"] is False


def test_action_ids_are_scoped_to_their_sender():
    # The freeze of issue 12: a person's id "bot:2" must not be the key of a bot's move.
    assert roles.act_key(0, "bot:2", by_bot=False) != roles.act_key(0, "bot:2", by_bot=True)
    assert roles.act_key(0, "x", by_bot=False) != roles.act_key(1, "x", by_bot=False)
    # No person's id can forge a bot's key: the kind comes first, and the seat follows it.
    assert not roles.act_key(0, "b:0:bot:2", by_bot=False).startswith("b:")
