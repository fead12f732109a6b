"""The tamper-evident hash chain over a table's public log (docs/fairness.md §5, §6).

``h_0 = SHA-256(utf8(table_id + ":" + commitment))`` and
``h_k = SHA-256(h_{k-1} || canonical(public_k))``, where ``public_k`` is event ``k`` as a
spectator receives it (``game.project(event_k, None)``: for Einauge ``game_started``
without its deck) and ``canonical`` is JSON with sorted keys and no spaces, UTF-8.

Why the public form and not the full event: a head is sent to every spectator during the
game, so a head over a secret (the deck order) lets anyone with enough patience try every
order of the face-down cards until the hash matches. Over the public log a head is a
function of what every spectator already has (the projected events, the table id, the
commitment), so it tells nobody anything new. The secret is still pinned: the deck follows
from the committed ``server_seed`` and the public contributions, every full event follows
from the deck and the recorded actions, and every card the game reveals is in the public
form the chain hashes, so a record with another deck or another event chains to another
head. Changing, dropping, adding or reordering any event changes every later head.

Players' names are chained as commitments (docs/fairness.md §5, "Names"): in the chained
form of the first event its ``players`` list is replaced by one ``name_commitment(salt,
name)`` per seat (``chained_form``). The salts are revealed in the record, so the names
are pinned as before; a seat whose account was deleted loses its name and its salt, and
its record carries the commitment alone, so the chain still verifies with the name
replaced (``REDACTED``). A table started before the change chained the names themselves
(``commitments`` ``None`` below).

Pure functions; nothing here knows a game: callers pass the projected dicts, or the game
and its events to ``public_events``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.game import Game, Message
from engine.seat_control import is_control

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                              allow_nan=False)
"""What ``json.dumps`` builds anew on every call with these options (the encoder holds no
state between calls): made once, it spares each link about a third of its JSON time."""


def canonical(value: Mapping[str, Any] | None) -> bytes:
    """The canonical bytes of a projected event: sorted-key JSON, ``(",", ":")``
    separators, UTF-8 with non-ASCII kept; ``None`` (an event a spectator does not see at
    all) is ``null``.

    Raises ``ValueError`` for values JSON cannot hold exactly (NaN, infinities).
    """
    return _CANONICAL.encode(value).encode("utf-8")


REDACTED = "deleted player"
"""The name a record gives a seat whose account was deleted (its salt is gone)."""


def name_commitment(salt: str, name: str) -> str:
    """``hex(SHA-256(utf8(salt + ":" + name)))``: what the chain links for a seat's name.
    ``salt`` is 64 random hex characters per seat, so a name cannot be guessed back from
    its commitment once the salt is gone."""
    return hashlib.sha256(f"{salt}:{name}".encode()).hexdigest()


def chained_form(public: Mapping[str, Any] | None, commitments: Sequence[str] | None
                 ) -> Mapping[str, Any] | None:
    """The form the chain links of a table's *first* event: its public form with
    ``players`` replaced by ``commitments`` (one per seat); unchanged when
    ``commitments`` is ``None`` (a table that chained names) or the event has no
    ``players``."""
    if commitments is None or not isinstance(public, Mapping) or "players" not in public:
        return public
    return {**public, "players": list(commitments)}


def public_events(game: Game, events: Iterable[Message],
                  commitments: Sequence[str] | None = None) -> list[Mapping[str, Any] | None]:
    """What the chain hashes of each event: its spectator projection,
    ``game.project(event, None)``, exactly the ``event`` of the ``delta`` a spectator gets;
    a seat-control event (engine/seat_control.py) hides nothing: its wire dict. The first
    event's names are replaced by ``commitments`` when given (``chained_form``)."""
    out: list[Mapping[str, Any] | None] = [
        e.to_dict() if is_control(e) else game.project(e, None) for e in events]
    if out:
        out[0] = chained_form(out[0], commitments)
    return out


def genesis(table_id: str, commitment: str) -> bytes:
    """``h_0``: 32 bytes derived from the table id and the seed commitment."""
    return hashlib.sha256(f"{table_id}:{commitment}".encode()).digest()


def link(head: bytes, public: Mapping[str, Any] | None) -> bytes:
    """The next head: ``SHA-256(head || canonical(public))`` (32 bytes), ``public`` being
    the event's spectator projection (never the full event: see the module docstring)."""
    return hashlib.sha256(head + canonical(public)).digest()


def heads(table_id: str, commitment: str,
          publics: Iterable[Mapping[str, Any] | None]) -> list[bytes]:
    """Every head ``h_1 … h_n`` for the events' spectator projections, in order."""
    head = genesis(table_id, commitment)
    out = []
    for p in publics:
        head = link(head, p)
        out.append(head)
    return out
