"""Presence of every seat, and the spectator count, across processes: the pure core.

The table's presence hash in Redis (``t:{<id>}:presence``, server/store/streams.py) holds

- ``on:<seat>:<process>``: until when (ms) ``process`` vouches for a socket of ``seat``;
  renewed every few seconds while it holds one (server/play/presence_schedule.py),
  deleted when its last one closes; a process that dies stops renewing, so its claim
  lapses by itself;
- ``seen:<seat>``: when a socket of the seat was last held (ms);
- ``spec:<process>``: ``"<count> <until ms>"``, that process's spectator sockets.

A seat is ``online`` while some claim is live, or for ``grace`` ms after the last one
ended (a page reload is not an absence); then ``away`` (since it was last seen, or else
since its latest lapsed claim); and
``gone`` once away longer than the time control's ``claim_after``: another player may
then hand it to a bot. A seat never seen counts from the game's start. ``next_changes``
says when these states next change by time alone, so that a process recomputes them at
that moment instead of reading the hash every second.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
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


def claims(here: frozenset[int], before: frozenset[int], spectators: int,
           had_spectators: bool, process: str, until: int, now: int
           ) -> tuple[dict[str, str], list[str]]:
    """The fields ``process`` sets and drops to vouch, until ``until`` (ms), for the seats
    it holds sockets of (``here``; ``before``: those it vouched for last time, their
    claims dropped, their last sight ``now``) and for ``spectators`` sockets (dropped
    when none are left and it counted some: ``had_spectators``). Field names as
    ``on_field``, ``seen_field`` and ``spec_field`` write them (inline: this runs for
    every table at each renewal)."""
    u, n = str(until), str(now)
    put = {f"on:{s}:{process}": u for s in here}
    for s in here | before:
        put[f"seen:{s}"] = n
    drop = [f"on:{s}:{process}" for s in before - here] if before else []
    if spectators:
        put[f"spec:{process}"] = f"{spectators} {u}"
    elif had_spectators:
        drop.append(f"spec:{process}")
    return put, drop


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


def _claims(fields: Mapping[str, str]) -> Iterator[tuple[int, str, int]]:
    """``(seat, process, until ms)`` of every well-formed ``on:<seat>:<process>`` field."""
    for key, value in fields.items():
        if key.startswith("on:"):
            parts = key.split(":")
            until = _int(value)
            if len(parts) == 3 and parts[1].isdigit() and until is not None:
                yield int(parts[1]), parts[2], until


def _since(fields: Mapping[str, str], seat: int, lapsed: Mapping[int, int],
           started: int) -> int:
    """Since when (ms) ``seat`` has had no socket: last seen, or without a last-seen time
    its latest lapsed claim, never before the game's ``started``."""
    seen = _int(fields.get(seen_field(seat)))
    return max(seen if seen is not None else lapsed.get(seat, 0), started)


def seats(fields: Mapping[str, str], n: int, now: int, started: int, grace: int,
          claim_after: int) -> list[SeatPresence]:
    """Every seat's presence at ``now`` from the hash ``fields`` (ms throughout)."""
    live: set[int] = set()
    lapsed: dict[int, int] = {}
    for seat, _, until in _claims(fields):
        if until > now:
            live.add(seat)
        else:
            lapsed[seat] = max(until, lapsed.get(seat, 0))
    out = []
    for seat in range(n):
        if seat in live:
            out.append(SeatPresence(seat, ONLINE, None))
            continue
        since = _since(fields, seat, lapsed, started)
        away = now - since
        state = ONLINE if away < grace else GONE if away >= claim_after else AWAY
        out.append(SeatPresence(seat, state, None if state == ONLINE else since))
    return out


def next_changes(fields: Mapping[str, str], people: Iterable[int], now: int, started: int,
                 grace: int, claim_after: int, process: str) -> tuple[int | None, int | None]:
    """When ``seats`` and ``spectators`` of these ``fields`` next change by time alone
    (ms, each after ``now``; ``None``: never), as ``(lapse, turn)``:

    - ``lapse``: the earliest end of a claim or spectator count of another process than
      ``process`` (its own it renews before they end). The hash must be read again then:
      the other process may have renewed it (renewals send no notice), or died.
    - ``turn``: the earliest moment a seat of ``people`` (the seats a person holds; a
      bot's state never shows) without a live claim turns away (its grace ended) or gone
      (``claim_after``): known from these fields alone, since every other change of them
      comes with a presence notice.
    """
    lapse: int | None = None
    live: set[int] = set()
    lapsed: dict[int, int] = {}
    own = spec_field(process)
    for seat, holder, until in _claims(fields):
        if until > now:
            live.add(seat)
            if holder != process and (lapse is None or until < lapse):
                lapse = until
        else:
            lapsed[seat] = max(until, lapsed.get(seat, 0))
    for key, value in fields.items():
        if key.startswith("spec:") and key != own:
            u = _int(value.partition(" ")[2])
            if u is not None and u > now and (lapse is None or u < lapse):
                lapse = u
    turn: int | None = None
    for seat in people:
        if seat in live:
            continue
        since = _since(fields, seat, lapsed, started)
        at = since + grace if now < since + grace else since + claim_after
        if at > now and (turn is None or at < turn):
            turn = at
    return lapse, turn


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
