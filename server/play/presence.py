"""Presence of every seat, and the spectator count, across processes: the pure core.

The table's presence hash in Redis (``t:{<id>}:presence``, server/store/streams.py) holds

- ``on:<seat>:<process>``: until when (ms) ``process`` vouches for a socket of ``seat``;
  refreshed every ``presence_interval`` s while it holds one, deleted when its last one
  closes; a process that dies stops refreshing, so its claim lapses by itself;
- ``seen:<seat>``: when a socket of the seat was last held (ms);
- ``spec:<process>``: ``"<count> <until ms>"``, that process's spectator sockets.

A seat is ``online`` while some claim is live, or for ``grace`` ms after the last one
ended (a page reload is not an absence); then ``away`` (since it was last seen, or else
since its latest lapsed claim); and
``gone`` once away longer than the time control's ``claim_after``: another player may
then hand it to a bot. A seat never seen counts from the game's start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ONLINE, AWAY, GONE = "online", "away", "gone"


def on_field(seat: int, process: str) -> str:
    """The field of ``process``'s claim on ``seat``."""
    return f"on:{seat}:{process}"


def seen_field(seat: int) -> str:
    """The field of when ``seat`` was last seen."""
    return f"seen:{seat}"


def spec_field(process: str) -> str:
    """The field of ``process``'s spectator count."""
    return f"spec:{process}"


@dataclass(frozen=True)
class SeatPresence:
    """``state`` (online/away/gone) and ``since`` (ms: last seen; ``None`` online)."""

    seat: int
    state: str
    since: int | None

    def to_dict(self) -> dict[str, Any]:
        """``{"seat", "state", "since"}`` (docs/protocol.md ``presence``)."""
        return {"seat": self.seat, "state": self.state, "since": self.since}


def _int(raw: str | None) -> int | None:
    try:
        return int(float(raw)) if raw is not None else None
    except ValueError:
        return None


def seats(fields: Mapping[str, str], n: int, now: int, started: int, grace: int,
          claim_after: int) -> list[SeatPresence]:
    """Every seat's presence at ``now`` from the hash ``fields`` (ms throughout)."""
    live: set[int] = set()
    lapsed: dict[int, int] = {}
    for key, value in fields.items():
        if key.startswith("on:"):
            parts = key.split(":")
            until = _int(value)
            if len(parts) != 3 or not parts[1].isdigit() or until is None:
                continue
            if until > now:
                live.add(int(parts[1]))
            else:
                lapsed[int(parts[1])] = max(until, lapsed.get(int(parts[1]), 0))
    out = []
    for seat in range(n):
        if seat in live:
            out.append(SeatPresence(seat, ONLINE, None))
            continue
        seen = _int(fields.get(seen_field(seat)))
        # Without a last-seen time, a lapsed claim still tells when it was last vouched for.
        since = max(seen if seen is not None else lapsed.get(seat, 0), started)
        away = now - since
        state = ONLINE if away < grace else GONE if away >= claim_after else AWAY
        out.append(SeatPresence(seat, state, None if state == ONLINE else since))
    return out


def connected(fields: Mapping[str, str], seat: int, now: int) -> bool:
    """True while some process vouches for a socket of ``seat`` at ``now`` (ms): a live
    ``on:<seat>:…`` claim (no grace: a seat never seen is not connected)."""
    prefix = f"on:{seat}:"
    return any(k.startswith(prefix) and (_int(v) or 0) > now for k, v in fields.items())


def spectators(fields: Mapping[str, str], now: int) -> int:
    """Spectator sockets over every process whose count is still vouched for."""
    total = 0
    for key, value in fields.items():
        if key.startswith("spec:"):
            count, _, until = value.partition(" ")
            u, c = _int(until), _int(count)
            if u is not None and c is not None and u > now:
                total += max(c, 0)
    return total


def away_for(p: SeatPresence, now: int) -> int:
    """How long (ms) the seat has been away (0 while online)."""
    return 0 if p.since is None else max(0, now - p.since)
