"""Who may do what at a table (docs/protocol.md §1, "Roles"): pure functions over a
``TableMeta`` and the credentials of one request, tested without sockets.

Roles:

- the **host** holds the token whose hash is ``meta.host`` (``''``: the creator's
  ``owner_token``). Before the start only the host adds or removes bots, kicks a seated
  person, changes the options and starts; during the game only the host hands a
  person's seat to a bot, once that person is gone and never its own seat
  (server/play/seat_rules.py). The creator who takes a seat with the ``owner_token`` as bearer
  sits with that very token, so "the host's seat" is the seat holding the host's token.
  When that seat is left before the start, the role passes to the person who has sat
  longest (lowest ``Seat.since``); with nobody seated it goes back to the creator.
- a **seated person** holds a seat token: leaves its own seat, seeds its own seat, acts
  for its own seat.
- anyone else (a **spectator**) watches, and may take a free seat of a table it can see.

A private table (``meta.invite`` set) is seen only with its invite secret or with a
token of the table (a seat's, the host's, the creator's); to anyone else it does not
exist (404 ``no_table``, close 4004), so its id alone reveals nothing.

Refusals: 401 ``bad_token`` for a missing token or one this table does not know, 403
``not_host`` for a known token lacking the host role, 404 ``no_table`` for a private
table without its secret.
"""

from __future__ import annotations

import hmac

from server.errors import LobbyError
from server.table.meta import TableMeta, token_hash


def _same(stored: str, token: str | None) -> bool:
    return bool(token and stored and hmac.compare_digest(stored, token_hash(token)))


def host_hash(meta: TableMeta) -> str:
    """The token hash that holds the host role now."""
    return meta.host or meta.owner


def is_host(meta: TableMeta, token: str | None) -> bool:
    """True for the token holding the host role (constant-time compare)."""
    return _same(host_hash(meta), token)


def known(meta: TableMeta, token: str | None) -> bool:
    """True for a token of this table: a seat's, the host's or the creator's."""
    return meta.seat_of(token) is not None or is_host(meta, token) or meta.is_owner(token)


def may_see(meta: TableMeta, token: str | None, key: str | None) -> bool:
    """A public table: always. A private one: with its invite secret ``key``, or with a
    token of the table (seat tokens keep working without the secret)."""
    return not meta.invite or _same(meta.invite, key) or known(meta, token)


def admit(meta: TableMeta, token: str | None, key: str | None) -> None:
    """Raise 404 ``no_table`` (the answer for an unknown id) unless ``may_see``."""
    if not may_see(meta, token, key):
        raise LobbyError(404, "no_table", f"no table {meta.id!r}")


def require_host(meta: TableMeta, token: str | None, doing: str) -> None:
    """Raise 401 ``bad_token`` for a missing or unknown token, 403 ``not_host`` for a
    token of the table that does not hold the host role; ``doing`` ends the message."""
    if is_host(meta, token):
        return
    if not known(meta, token):
        raise LobbyError(401, "bad_token", f"a token of this table is needed to {doing}")
    raise LobbyError(403, "not_host", f"only the table's host may {doing}")


def require_starter(meta: TableMeta, token: str | None) -> None:
    """May ``token`` start the game? The host; at a rematch (``meta.rematch_of``), which
    starts by itself once every person has accepted (server/http/rematch.py), also any seated
    person. Raises like ``require_host``."""
    if meta.rematch_of and meta.seat_of(token) is not None:
        return
    require_host(meta, token, "start the game")


def require_seat(meta: TableMeta, token: str | None) -> int:
    """The seat of ``token``; raises 401 ``bad_token`` when it holds none here."""
    seat = meta.seat_of(token)
    if seat is None:
        raise LobbyError(401, "bad_token", "this token holds no seat at this table")
    return seat


def require_hand_over(meta: TableMeta, token: str | None, seat: int) -> None:
    """During the game: may ``token`` hand ``seat`` (a person's) to a bot? The host only;
    the seat (gone, not the host's own) is checked by ``seat_rules.handover``. Raises
    like ``require_host``."""
    require_host(meta, token, "hand a seat to a bot in the game")


def host_after_leave(meta: TableMeta, seat: int) -> str:
    """The ``host`` field once ``seat`` is emptied before the start: unchanged unless
    ``seat`` holds the host's token; then the token of the person seated longest among
    the others, or ``''`` (back to the creator) when nobody else sits."""
    host = host_hash(meta)
    if not host or meta.tokens[seat] != host:
        return meta.host
    others = [i for i, s in enumerate(meta.seats)
              if i != seat and s.kind == "human" and meta.tokens[i]]
    if not others:
        return ""
    longest = min(others, key=lambda i: (meta.seats[i].since or 0, i))
    return meta.tokens[longest]


def act_key(seat: int, action_id: str, by_bot: bool) -> str:
    """The idempotency key of an action: the sender's kind and seat, then its id
    (``p:<seat>:<id>`` for a person, ``b:<seat>:<id>`` for a bot), so no id a client
    chooses can ever equal one a bot (or another seat) will use."""
    return f"{'b' if by_bot else 'p'}:{seat}:{action_id}"
