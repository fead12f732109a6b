"""What a revoked API token was given, replaced, pure (server/accounts/token_seats.py
``rotated``): exactly the seat, creator and host tokens of the given hashes, each by a
fresh token nobody knows, one old token holding several roles by one new token."""

from __future__ import annotations

from server.accounts.token_seats import rotated
from server.pairing.seating import Seeker, table_meta
from server.table.meta import TableMeta, token_hash


def meta_with(tokens: list[str], owner: str) -> TableMeta:
    seekers = [Seeker(f"p{i}", None, token_hash(t)) for i, t in enumerate(tokens)]
    return table_meta("tid", "keltis", seekers, 0, {"kind": "live", "preset": "fast"},
                      False, owner)


def test_only_the_tokens_given_are_replaced():
    meta = meta_with(["a", "b"], "a")
    meta.host = token_hash("a")
    fields = rotated(meta, {token_hash("a")})
    assert set(fields) == {"tok:0", "owner", "host"}
    new = fields["tok:0"]
    assert fields["owner"] == fields["host"] == new  # one old token, one new one
    assert new not in (token_hash("a"), token_hash("b"))
    assert meta.tokens == [new, token_hash("b")]
    assert meta.seat_of("a") is None and meta.seat_of("b") == 1


def test_a_token_replaced_since_is_left_alone():
    meta = meta_with(["a", "b"], "o")
    assert rotated(meta, {token_hash("gone")}) == {}
    assert meta.tokens == [token_hash("a"), token_hash("b")]


def test_each_revocation_draws_new_tokens():
    one, two = meta_with(["a", "b"], "o"), meta_with(["a", "b"], "o")
    assert rotated(one, {token_hash("a")}) != rotated(two, {token_hash("a")})
