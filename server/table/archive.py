"""Archived games: a finished game stored as what rebuilds it exactly, its events rebuilt on
demand by replay.

A running table keeps one stored entry per event (``{"e", "h", "a"?, "c"?}``,
docs/protocol.md §3), which is what the live service reads. Once a game has ended and
nothing watches it, ``pack`` turns its entries into steps that the engine replays: the
game's start (the players it was dealt to; the seed comes from the meta hash, whose
server seed and contributions stay, and the deck from the seed) and each action (its wire
dict), every chain head recomputed from the chain's anchors (the genesis from the table
id and commitment; the final head and seq in the meta, which the rebuild must end on),
and a clock (``c``) kept with the step that carried it. What the engine does not produce
(seat-control events the server stored, or anything else that would not rebuild byte for
byte) is kept verbatim as its stored bytes. The steps are msgpack, zlib-compressed.
``pack`` rebuilds what it packed and compares every entry with the stored bytes before
the caller swaps them (``Store.archive``), so an archive never stores a game it cannot
give back exactly.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from engine import get_game, seat_control
from engine.chain import chained_form, genesis, link
from engine.game import Game, Message
from engine.shuffle import combine_seed
from server.store.streams import pack as pack_entry
from server.store.streams import unpack as unpack_entry
from server.table.meta import TableMeta

VERSION = 2


class ArchiveError(ValueError):
    """The archive does not rebuild the game its meta describes (a bug or a damaged
    store; the message says where)."""


def _public(game: Game, event: Message) -> Any:
    # What the chain links (as TableCore.chain): seat-control events whole, game events
    # as a spectator sees them.
    return event.to_dict() if seat_control.is_control(event) else game.project(event, None)


class _Replay:
    """The engine state and chain head while steps are replayed (``build`` a step's
    entries, then ``commit`` them)."""

    def __init__(self, meta: TableMeta) -> None:
        self.meta = meta
        self.game = get_game(meta.game)
        self.state = self.game.initial_state()
        self.head = genesis(meta.id, meta.commitment)
        self.entries: list[dict[str, Any]] = []

    def build(self, events: Sequence[Message], action: dict[str, Any] | None,
              clock: Any = None) -> list[dict[str, Any]]:
        """The entries of ``events`` after the current head (nothing applied yet)."""
        head, out = self.head, []
        for i, event in enumerate(events):
            public = _public(self.game, event)
            if not self.entries and i == 0:  # the first event: names as commitments
                public = chained_form(public, self.meta.name_commitments or None)
            head = link(head, public)
            out.append({"e": event.to_dict(), "h": head.hex()})
        if action is not None and out:
            out[0]["a"] = action
        if clock is not None and out:
            out[-1]["c"] = clock
        return out

    def commit(self, events: Sequence[Message], built: list[dict[str, Any]]) -> None:
        """Apply ``events`` (whose entries are ``built``) to the state and the chain."""
        for event in events:  # evolve may change the state in place: only once it is sure
            self.state = self.game.evolve(self.state, event)
        self.head = bytes.fromhex(built[-1]["h"])
        self.entries += built

    def group(self, events: Sequence[Message], action: dict[str, Any] | None,
              clock: Any = None) -> None:
        self.commit(events, self.build(events, action, clock))

    def start(self, players: list[str]) -> list[Message]:
        seed = combine_seed(self.meta.server_seed, self.meta.contributions)
        return list(self.game.start(players, self.meta.options, seed))

    def decide(self, wire: dict[str, Any]) -> tuple[list[Message], dict[str, Any]]:
        action = self.game.actions.decode(wire)
        return list(self.game.decide(self.state, action)), action.to_dict()

    def verbatim(self, raw: bytes) -> dict[str, Any]:
        entry = unpack_entry(raw)
        event = seat_control.decode(self.game.events, entry["e"])
        if not seat_control.is_control(event):
            self.state = self.game.evolve(self.state, event)
        self.head = bytes.fromhex(entry["h"])
        self.entries.append(entry)
        return entry


def pack(meta: TableMeta, entries: Sequence[dict[str, Any]],
         raw: Sequence[bytes] | None = None) -> bytes:
    """The archive of a finished game whose stored entries are ``entries`` (``raw``: the
    same as stored bytes). Raises ``ArchiveError`` when its rebuild differs from them in
    any byte."""
    stored = list(raw) if raw is not None else [pack_entry(e) for e in entries]
    shadow = _Replay(meta)
    steps: list[dict[str, Any]] = []
    i = 0
    while i < len(stored):
        step = _try_step(shadow, entries, stored, i)
        if step is None:  # not the engine's: keep it as stored
            shadow.verbatim(stored[i])
            steps.append({"x": stored[i]})
            i += 1
        else:
            steps.append(step)
            i = len(shadow.entries)
    blob = zlib.compress(pack_entry({"v": VERSION, "steps": steps}), 9)
    rebuilt = [pack_entry(e) for e in rebuild(meta, blob)]
    if rebuilt != stored:
        raise ArchiveError(f"the archive rebuilds {len(rebuilt)} entries that differ from "
                           f"the {len(stored)} stored")
    return blob


def _try_step(shadow: _Replay, entries: Sequence[dict[str, Any]], stored: Sequence[bytes],
              i: int) -> dict[str, Any] | None:
    """The step that rebuilds ``entries[i:…]`` exactly (the start or an action), applied
    to ``shadow``; ``None`` (shadow unchanged) when the engine does not produce them."""
    entry = entries[i]
    try:
        if i == 0:
            players = entry["e"].get("players") if isinstance(entry["e"], dict) else None
            if players is None:
                return None
            events, action, step = shadow.start(list(players)), None, {"s": list(players)}
        elif "a" in entry:
            events, action = shadow.decide(entry["a"])
            step = {"a": entry["a"]}
        else:
            return None
    except Exception:  # the engine refuses it here: it is not a step of the engine's
        return None
    n = len(events)
    if not n or i + n > len(stored):
        return None
    clock = entries[i + n - 1].get("c")
    built = shadow.build(events, action, clock)
    if [pack_entry(e) for e in built] != list(stored[i:i + n]):
        return None
    shadow.commit(events, built)
    if clock is not None:
        step["c"] = clock
    return step


def rebuild(meta: TableMeta, blob: bytes) -> list[dict[str, Any]]:
    """The stored entries of seqs 1… of an archived game, replayed by its engine. Raises
    ``ArchiveError`` for an archive that does not end on the meta's seq and chain head."""
    data = unpack_entry(zlib.decompress(blob))
    if data.get("v") != VERSION:
        raise ArchiveError(f"archive version {data.get('v')!r}")
    shadow = _Replay(meta)
    for step in data["steps"]:
        if "x" in step:
            shadow.verbatim(step["x"])
        elif "s" in step:
            shadow.group(shadow.start(step["s"]), None, step.get("c"))
        else:
            events, action = shadow.decide(step["a"])
            shadow.group(events, action, step.get("c"))
    if len(shadow.entries) != meta.seq or shadow.head.hex() != meta.head:
        raise ArchiveError(f"rebuilt {len(shadow.entries)} events ending on "
                           f"{shadow.head.hex()[:12]}…, the meta says {meta.seq} ending on "
                           f"{meta.head[:12]}…")
    return shadow.entries


def renamed(blob: bytes, names: dict[int, str]) -> bytes:
    """The archive ``blob`` with the players of its start renamed (seat → name), as
    ``rename_start`` does to a stored first entry; the chain links the names as
    commitments, so the rebuild ends on the same head (docs/fairness.md §5, "Names")."""
    data = unpack_entry(zlib.decompress(blob))
    first = data["steps"][0] if data.get("steps") else None
    if first is None:
        return blob
    if "s" in first:
        first["s"] = [names.get(i, p) for i, p in enumerate(first["s"])]
    elif "x" in first:
        entry = rename_start(unpack_entry(first["x"]), names)
        if entry is None:
            return blob
        first["x"] = pack_entry(entry)
    return zlib.compress(pack_entry(data), 9)


def rename_start(entry: dict[str, Any], names: dict[int, str]) -> dict[str, Any] | None:
    """A stored first entry with ``players`` renamed (seat → name); ``None`` when it has
    no players or they have those names already (nothing to rename)."""
    event = entry.get("e")
    if not isinstance(event, dict) or not isinstance(event.get("players"), list):
        return None
    players = [names.get(i, p) for i, p in enumerate(event["players"])]
    if players == event["players"]:
        return None
    return {**entry, "e": {**event, "players": players}}
