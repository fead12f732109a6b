"""The tamper-evident hash chain over a table's stored events (docs/protocol.md §3).

``h_0 = SHA-256(utf8(table_id + ":" + commitment))`` and
``h_k = SHA-256(h_{k-1} || canonical(event_k))``, where ``canonical`` is the event's full
wire dict as JSON with sorted keys and no spaces, UTF-8. Changing, dropping, adding or
reordering any event changes every later head, so the final head in a record pins the
whole game. Pure functions: any language with SHA-256 and JSON can recompute it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any


def canonical(event: Mapping[str, Any]) -> bytes:
    """The event's canonical bytes: sorted-key JSON, ``(",", ":")`` separators, UTF-8.

    Raises ``ValueError`` for values JSON cannot hold exactly (NaN, infinities).
    """
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def genesis(table_id: str, commitment: str) -> bytes:
    """``h_0``: 32 bytes derived from the table id and the seed commitment."""
    return hashlib.sha256(f"{table_id}:{commitment}".encode()).digest()


def link(head: bytes, event: Mapping[str, Any]) -> bytes:
    """The next head: ``SHA-256(head || canonical(event))`` (32 bytes)."""
    return hashlib.sha256(head + canonical(event)).digest()


def heads(table_id: str, commitment: str, events: Iterable[Mapping[str, Any]]) -> list[bytes]:
    """Every head ``h_1 … h_n`` for the events' wire dicts, in order."""
    head = genesis(table_id, commitment)
    out = []
    for e in events:
        head = link(head, e)
        out.append(head)
    return out
