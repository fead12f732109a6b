"""The table of a pairing, pure: its meta from the claimed seeks, and the seat token a
seeker gets (derived from its seek token, so that no token is stored in the clear).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine import get_game
from engine.chain import genesis
from engine.shuffle import commitment
from server.table.lobby import new_name_salts
from server.table.meta import Seat, TableMeta, token_hash

BOT_KIND = "greedy"
"""The bot that fills a pairing's empty seats (the replacement bot of timed-out moves is a
setting; this one is fixed so that a rated pairing's bot always has one rating)."""

TABLE_NAME = ""
"""A paired table has no name: pages name it in the reader's language after its first
person ("Anna's table", client-web/src/tablename.js), as any unnamed table."""


def seat_token(seek_token: str, sid: str) -> str:
    """The seat token a seek's owner gets once paired: HMAC-SHA256 of the seek id keyed
    with its seek token, the first 16 bytes in URL-safe base64 (as every token). Only the
    holder of the seek token can compute it; the server stores only its hash."""
    mac = hmac.new(seek_token.encode("utf-8"), f"seat:{sid}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:16]).rstrip(b"=").decode()


@dataclass(frozen=True)
class Seeker:
    """Who sits for one claimed seek: the shown ``name``, its account (``None``: a guest),
    the hash of its seat token and whether the account is a bot account (its seat shows
    ``bot_account``, as a table join's does)."""

    name: str
    account: str | None
    seat_hash: str
    bot_account: bool = False

    @classmethod
    def of(cls, fields: dict[str, str]) -> Seeker:
        """From a stored seek's fields (server/store/seeks.py)."""
        return cls(fields.get("name", "Guest"), fields.get("owner_uid") or None,
                   fields["seat_hash"], fields.get("owner_bot") == "1")


def table_meta(table_id: str, game: str, seekers: Sequence[Seeker], bots: int,
               time_control: dict[str, Any], rated: bool, starter: str) -> TableMeta:
    """The open meta of a pairing's table: the seekers in seat order, each seat holding
    its seat token's hash, then ``bots`` bots (``BOT_KIND``); default options; a fresh
    committed server seed. ``starter``'s hash is the owner's (the token that starts it;
    kept by nobody afterwards: at a pairing's table nobody is host, and the rules for an
    absent player are those of every running table). Raises ``ValueError`` for a seat
    count the game does not take."""
    g = get_game(game)
    n = len(seekers) + bots
    if not g.min_players <= n <= g.max_players:
        raise ValueError(f"{game} takes {g.min_players}-{g.max_players} seats, not {n}")
    seats = [Seat(name=s.name, kind="human", since=0, account=s.account,
                  bot_account=s.bot_account and s.account is not None) for s in seekers]
    seats += [Seat(name=f"{BOT_KIND.capitalize()} bot {i + 1}", kind="bot", bot=BOT_KIND)
              for i in range(len(seekers), n)]
    server_seed = secrets.token_bytes(32).hex()
    meta = TableMeta(
        id=table_id, game=game, status="open", name=TABLE_NAME,
        options=g.check_options({}, n), seats=seats, contributions=[""] * n,
        commitment=commitment(server_seed), server_seed=server_seed, created_at=time.time(),
        tokens=[s.seat_hash for s in seekers] + [""] * bots, owner=token_hash(starter),
        time_control=dict(time_control), rated=rated, name_salts=new_name_salts(n))
    meta.head = genesis(meta.id, meta.commitment).hex()
    return meta


def canonical(time_control: dict[str, Any]) -> str:
    """One string per time control (the pairing's "same clock" test)."""
    return json.dumps(time_control, sort_keys=True, separators=(",", ":"))
