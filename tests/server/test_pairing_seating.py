"""A pairing's table, pure (server/pairing/seating.py): seats in pairing order with each
seeker's seat-token hash, bots after them, a fresh committed seed, the starter as owner;
the seat token only the seek token's holder can compute."""

from __future__ import annotations

import pytest

from engine.shuffle import commitment
from server.pairing.seating import BOT_KIND, Seeker, seat_token, table_meta
from server.play import roles
from server.table.meta import token_hash


def test_the_seat_token_follows_from_the_seek_token_and_id_only():
    assert seat_token("secret", "einauge.a") == seat_token("secret", "einauge.a")
    assert seat_token("secret", "einauge.a") != seat_token("secret", "einauge.b")
    assert seat_token("secret", "einauge.a") != seat_token("other", "einauge.a")
    assert len(seat_token("secret", "einauge.a")) == 22  # 16 bytes, URL-safe base64


def test_the_table_seats_the_seekers_in_order_then_bots():
    seekers = [Seeker("Ada", None, token_hash(seat_token("t1", "keltis.1"))),
               Seeker("bo", "uid-bo", token_hash(seat_token("t2", "keltis.2")))]
    meta = table_meta("tid", "keltis", seekers, 1, {"kind": "live", "preset": "fast"},
                      True, "starter")
    assert [s.name for s in meta.seats] == ["Ada", "bo", "Greedy bot 3"]
    assert [s.kind for s in meta.seats] == ["human", "human", "bot"]
    assert meta.seats[2].bot == BOT_KIND and meta.seats[1].account == "uid-bo"
    assert meta.seat_of(seat_token("t2", "keltis.2")) == 1
    assert meta.seat_of(seat_token("t1", "keltis.1")) == 0
    assert meta.commitment == commitment(meta.server_seed)
    assert meta.rated and meta.time_control == {"kind": "live", "preset": "fast"}
    assert meta.status == "open" and not meta.private
    # The starter alone may start it; no seeker is its host.
    roles.require_starter(meta, "starter")
    assert not roles.is_host(meta, seat_token("t1", "keltis.1"))


def test_a_seat_count_the_game_does_not_take_is_refused():
    with pytest.raises(ValueError, match="keltis takes"):
        table_meta("tid", "keltis", [Seeker("Ada", None, "h")], 4, {}, False, "s")


def test_a_bot_accounts_seek_seats_a_bot_account():
    fields = {"name": "engine", "owner_uid": "uid-e", "seat_hash": "h1", "owner_bot": "1"}
    person = {"name": "ada", "owner_uid": "uid-a", "seat_hash": "h2", "owner_bot": ""}
    meta = table_meta("tid", "keltis", [Seeker.of(fields), Seeker.of(person)], 0,
                      {"kind": "live", "preset": "fast"}, True, "starter")
    assert [s.bot_account for s in meta.seats] == [True, False]
    assert meta.summary()["seats"][0]["bot_account"] is True
    assert "bot_account" not in meta.summary()["seats"][1]
    # A stored seek of before this field: a person's seat, as it was.
    older = {k: v for k, v in fields.items() if k != "owner_bot"}
    assert Seeker.of(older).bot_account is False
