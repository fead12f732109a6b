"""A table's lobby record (the ``meta`` hash): seats, options, commitment, status.

Stored as flat string fields; lists and dicts as JSON. ``summary()`` is the public form
of docs/protocol.md §1 and never holds the server seed or a token hash. An archived game's
meta is compacted (``compact``/``expand``): every field but ``PLAIN`` in one compressed
field, so what a finished game costs in Redis is mostly gone (docs/benchmarks.md,
"Archived games").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack

from server.play import clock

PLAIN = ("status", "seq", "head", "version")
"""The fields the store's scripts read by name (server/store/streams.py): a compacted meta keeps
them as they are."""

PACKED = "z"
"""The field of a compacted meta that holds all the others."""

_HEX = re.compile(r"(?:[0-9a-f]{2})+")


def compact(fields: Mapping[str, str]) -> bytes:
    """The ``PACKED`` value for a meta hash's ``fields`` (all but ``PLAIN``): msgpack,
    with every lowercase hex string of even length (hashes, seeds, token hashes) as its
    bytes, zlib-compressed. ``expand`` gives back exactly the same strings."""
    packed = {k: bytes.fromhex(v) if _HEX.fullmatch(v) else v
              for k, v in fields.items() if k not in PLAIN and k != PACKED}
    return zlib.compress(msgpack.packb(packed, use_bin_type=True), 9)


def expand(raw: Mapping[bytes, bytes]) -> dict[str, str]:
    """A meta hash as read from Redis (``HGETALL``) as ``str → str``; a compacted one's
    ``PACKED`` field unpacked into the fields it holds. A field stored plainly beside it
    wins: it was written after the compaction (e.g. a rematch of an archived game).
    Raises ``zlib.error``/``ValueError`` for a damaged ``PACKED`` value."""
    fields = {k.decode(): v.decode() for k, v in raw.items() if k != PACKED.encode()}
    blob = raw.get(PACKED.encode())
    if blob is None:
        return fields
    packed = msgpack.unpackb(zlib.decompress(blob), raw=False)
    out = {k: v.hex() if isinstance(v, bytes) else v for k, v in packed.items()}
    out.update(fields)
    return out


def _json(text: str) -> Any:
    """``json.loads(text)``, without the parser for ``[]`` and ``{}``: most of a meta's
    lists and dicts are empty (options, clock, accounts, name commitments), and a meta is
    parsed at every join, socket and start (about 1 us each)."""
    if text == "[]":
        return []
    if text == "{}":
        return {}
    return json.loads(text)


DELETED = "-"
"""``Seat.account`` of a seat whose account was deleted."""


def token_hash(token: str) -> str:
    """SHA-256 of a seat token (hex): the only form a token is stored in."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class Seat:
    """One seat in the lobby: empty (``kind`` None), a person or a bot. ``since``: the
    lobby ``version`` at which a person took it (who has sat longest, when the host
    role passes on; ``None`` for bots, empty seats and seats stored before it existed)."""

    name: str | None = None
    kind: str | None = None
    bot: str | None = None
    level: int | None = None
    since: int | None = None
    resigned: bool = False
    """The seat's player resigned (a bot plays it to the end; engine/seat_control.py)."""
    account: str | None = None
    """The uid of the account a person sits for (``None``: a guest; ``DELETED`` once the
    account was deleted; ``server.accounts.accounts``), kept while a bot plays the seat."""
    bot_account: bool = False
    """The seat's account is a bot account (``server.accounts.bot_accounts``): a program
    plays it, shown as ``"bot_account": true`` in the summary."""

    def to_dict(self) -> dict[str, Any]:
        """The stored form."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "bot": self.bot,
                               "level": self.level, "since": self.since}
        if self.resigned:
            out["resigned"] = True
        if self.account:
            out["account"] = self.account
        if self.bot_account:
            out["bot_account"] = True
        return out


@dataclass
class TableMeta:
    """The parsed meta hash of one table."""

    id: str
    game: str
    status: str
    name: str
    options: dict[str, Any]
    seats: list[Seat]
    contributions: list[str]
    commitment: str
    server_seed: str
    created_at: float
    seq: int = 0
    head: str = ""
    version: str = "0"
    tokens: list[str] = field(default_factory=list)
    """Token hash per seat ('' for none)."""
    owner: str = ""
    """Hash of the creator's token (``owner_token``)."""
    creator: str = ""
    """The uid of the account that created the table ('' : a guest, or a table created
    before this was kept); its owner token changes nothing while that account is
    suspended or banned (``server.http.common.by_seat``)."""
    host: str = ""
    """Hash of the host's token ('' : the creator's, ``owner``); see ``server.play.roles``."""
    invite: str = ""
    """SHA-256 hex of a private table's invite secret ('' : a public table)."""
    winners: list[int] | None = None
    time_control: dict[str, Any] = field(default_factory=dict)
    """As asked at creation (server/play/clock.py ``parse``); ``{}``: none."""
    started_at: float = 0.0
    rematch: str = ""
    """The id of this table's rematch, once a player asked for it (server/http/rematch.py)."""
    rematch_of: str = ""
    """The table this one is the rematch of."""
    branch: dict[str, Any] | None = None
    """Where a branched table plays on from (server/http/branch.py): ``table`` (the
    finished source table's id) and ``engine.branch.BranchPoint.to_dict`` (``index``,
    ``seat``, the source's ``dealt`` cards, …); ``None`` for any other table."""
    rated: bool = False
    """Results change ratings (accounts and bots only; ``server.accounts.ratings``)."""
    accounts: list[str] = field(default_factory=list)
    """Of a rated table, from the start: the rated account of each seat."""
    scores: list[Any] | None = None
    """Once ended: each seat's final total (``server.accounts.ratings.ranks`` reads the result)."""
    name_salts: list[str | None] = field(default_factory=list)
    """Drawn at creation: each seat's name salt (64 hex), ``None`` once its account was
    deleted; secret until the record (docs/fairness.md §5, "Names")."""
    name_commitments: list[str] = field(default_factory=list)
    """From the start: each seat's ``engine.chain.name_commitment``, linked by the chain
    instead of the names (empty: a table started before, whose chain links the names)."""
    voided: str = ""
    """Once the game was voided (server/table/void.py): the reason ('' : not voided)."""
    tournament: dict[str, Any] | None = None
    """A tournament's board table (server/tournaments/boards.py): ``id`` and ``name`` of the
    tournament, ``kind`` (``swiss``/``arena``) and ``round`` (int; an arena's game number),
    so that a client words "<tournament> · round N" in its reader's language; ``None`` for
    any other table. Its ``name`` keeps the English form for older clients."""

    @classmethod
    def from_fields(cls, table_id: str, f: dict[str, str]) -> TableMeta:
        """Parse a meta hash; raises ``KeyError``/``ValueError`` if it is not one."""
        seats = [Seat(**s) for s in json.loads(f["seats"])]
        get = f.get
        return cls(
            id=table_id, game=f["game"], status=f["status"], name=get("name", ""),
            options=_json(f["options"]), seats=seats,
            contributions=_json(f["contributions"]), commitment=f["commitment"],
            server_seed=f["server_seed"], created_at=float(f["created_at"]),
            seq=int(get("seq", "0")), head=get("head", ""), version=get("version", "0"),
            tokens=[get(f"tok:{i}", "") for i in range(len(seats))], owner=get("owner", ""),
            creator=get("creator", ""), host=get("host", ""), invite=get("invite", ""),
            winners=json.loads(f["winners"]) if get("winners") else None,
            time_control=_json(get("time_control") or "{}"),
            started_at=float(get("started_at") or 0),
            rematch=get("rematch", ""), rematch_of=get("rematch_of", ""),
            branch=json.loads(f["branch"]) if get("branch") else None,
            rated=get("rated") == "1", accounts=_json(get("accounts") or "[]"),
            scores=json.loads(f["scores"]) if get("scores") else None,
            name_salts=_json(get("name_salts") or "[]"),
            name_commitments=_json(get("name_commitments") or "[]"),
            voided=get("voided", ""),
            tournament=json.loads(f["tournament"]) if get("tournament") else None)

    def to_fields(self) -> dict[str, str]:
        """Every field as stored (including the secrets: only for Redis)."""
        out = {
            "game": self.game, "status": self.status, "name": self.name,
            "options": json.dumps(self.options), "seats": self.seats_json(),
            "contributions": json.dumps(self.contributions), "commitment": self.commitment,
            "server_seed": self.server_seed, "created_at": repr(self.created_at),
            "seq": str(self.seq), "head": self.head, "version": self.version,
            "owner": self.owner, "host": self.host, "invite": self.invite,
            "time_control": json.dumps(self.time_control), "rated": "1" if self.rated else "",
        }
        out.update({k: v for k, v in (("rematch", self.rematch),
                                      ("rematch_of", self.rematch_of),
                                      ("creator", self.creator)) if v})
        if self.branch is not None:
            out["branch"] = json.dumps(self.branch, separators=(",", ":"))
        if self.tournament is not None:
            out["tournament"] = json.dumps(self.tournament, separators=(",", ":"))
        out.update({f"tok:{i}": t for i, t in enumerate(self.tokens)})
        if self.name_salts:
            out["name_salts"] = json.dumps(self.name_salts)
        return out

    def seats_json(self) -> str:
        """The stored form of ``seats``."""
        return json.dumps([s.to_dict() for s in self.seats])

    def seat_of(self, token: str | None) -> int | None:
        """The seat whose token this is (constant-time compare), else ``None``."""
        if not token:
            return None
        h = token_hash(token)
        found = None
        for i, stored in enumerate(self.tokens):
            if stored and hmac.compare_digest(stored, h):
                found = i
        return found

    def account_seat(self, uid: str | None) -> int | None:
        """The seat account ``uid`` holds here with a live token (a program's API token
        acts for it: docs/bot-api.md), else ``None``."""
        for i, s in enumerate(self.seats):
            if uid and s.account == uid and self.tokens[i]:
                return i
        return None

    def viewer_of(self, token: str | None) -> int | None:
        """The seat whose hidden information ``token`` may read: its seat, ``None`` (a
        spectator's) for no seat or a seat whose player resigned: a bot plays it to the
        end and its former player, still at the table and in its chat, must not read the
        cards the bot holds and draws (docs/protocol.md §5, "Resigning"). A seat a bot
        plays after a timeout, claim or handover keeps its view: its player may take it
        back at any time."""
        seat = self.seat_of(token)
        return None if seat is None or self.seats[seat].resigned else seat

    def is_owner(self, token: str | None) -> bool:
        """True for the creator's token."""
        return bool(token and self.owner and hmac.compare_digest(self.owner, token_hash(token)))

    @property
    def private(self) -> bool:
        """True for a table reached only through its invite link."""
        return bool(self.invite)

    def host_seat(self) -> int | None:
        """The seat held by the host's token, ``None`` when the host holds none."""
        host = self.host or self.owner
        for i, stored in enumerate(self.tokens):
            if stored and stored == host:
                return i
        return None

    def players(self) -> list[str]:
        """Display names in seat order (for ``Game.start``)."""
        return [s.name or f"Seat {i + 1}" for i, s in enumerate(self.seats)]

    def summary(self) -> dict[str, Any]:
        """The public table summary of docs/protocol.md §1."""
        out: dict[str, Any] = {
            "id": self.id, "game": self.game, "status": self.status, "name": self.name,
            "options": self.options,
            "seats": [{"seat": i, "name": s.name, "kind": s.kind,
                       **({"bot": s.bot, "level": s.level} if s.kind == "bot" else {}),
                       **({"resigned": True} if s.resigned else {}),
                       **({"account": True} if s.kind == "human" and s.account
                          and s.account != DELETED else {}),
                       **({"bot_account": True} if s.bot_account else {}),
                       "seeded": bool(self.contributions[i]),
                       **({"waiting": True} if self.waiting(i) else {})}
                      for i, s in enumerate(self.seats)],
            "commitment": self.commitment, "contributions": list(self.contributions),
            "seq": self.seq, "created_at": self.created_at,
            "host": self.host_seat(), "private": self.private, "rated": self.rated,
            "time_control": clock.parse(self.time_control).to_dict(),
        }
        if self.winners is not None:
            out["winners"] = self.winners
        out.update({k: v for k, v in (("rematch", self.rematch),
                                      ("rematch_of", self.rematch_of),
                                      ("creator", self.creator)) if v})
        if self.branch is not None:  # where it came from, not the source's dealt cards
            out["branch"] = {k: self.branch[k] for k in ("table", "index", "seat")}
        if self.scores is not None:
            out["scores"] = self.scores
        if self.voided:
            out["voided"] = self.voided
        if self.tournament is not None:  # the page words "<name> · round N" itself
            out["tournament"] = {k: self.tournament[k] for k in ("id", "name", "kind", "round")}
        if self.name_commitments:  # what the chain links for the names (fairness.md §5)
            out["name_commitments"] = list(self.name_commitments)
        return out

    def waiting(self, seat: int) -> bool:
        """A person's seat kept for someone who has not taken it yet (a rematch invitee):
        nobody may join it, and the game cannot start before it is taken."""
        return (self.seats[seat].kind == "human" and seat < len(self.tokens)
                and not self.tokens[seat])
