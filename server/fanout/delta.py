"""One append's deltas for every viewer class, encoded lazily and at most once.

A ``Delta`` is what the table core (server/table/core.py) returns for an append and what a
room (server/fanout/room.py) writes: one ``deltas`` message per viewer class, each encoded
once per encoding (msgpack bytes, JSON text) and, for direct writes, once as a complete
websocket frame (server/fanout/frames.py), so every socket gets the same frame object.
"""

from __future__ import annotations

from typing import Any

from server.fanout.frames import prepare
from server.ws import protocol

Frame = bytes | str


class Delta:
    """The stored events ``first … seq`` (one append: an action's events) for every viewer
    class: ``dicts[key]`` is the ``deltas`` message for a class (``key`` is a seat, or
    ``None`` for spectators; a seat without an entry gets the spectators' message, and
    games whose viewers all see the same have only ``None``). A message of ``None`` means
    that class is sent nothing for these events (the game projected each as ``None``).
    Frames are encoded lazily, once per class and encoding."""

    __slots__ = ("_frames", "_prepared", "dicts", "first", "seq")

    def __init__(self, first: int, seq: int,
                 dicts: dict[int | None, dict[str, Any] | None]) -> None:
        self.first = first
        self.seq = seq
        self.dicts = dicts
        self._frames: dict[tuple[int | None, bool], Frame] = {}
        self._prepared: dict[tuple[int | None, bool], tuple[Frame, bytes]] = {}

    def message(self, key: int | None) -> dict[str, Any] | None:
        """The delta message viewer class ``key`` is sent (``None``: nothing)."""
        return self.dicts[key] if key in self.dicts else self.dicts.get(None)

    def frame(self, key: int | None, binary: bool) -> Frame | None:
        """The encoded frame of viewer class ``key`` (``None``: nothing to send)."""
        if key not in self.dicts:
            key = None
        cached = self._frames.get((key, binary))
        if cached is None:
            msg = self.dicts.get(key)
            if msg is None:
                return None
            cached = self._frames[(key, binary)] = protocol.encode(msg, binary)
        return cached

    def prepared(self, key: int | None, binary: bool) -> tuple[Frame, bytes] | None:
        """``frame(key, binary)`` and its complete websocket frame (``direct.prepare``);
        ``None`` when the class is sent nothing."""
        if key not in self.dicts:
            key = None
        cached = self._prepared.get((key, binary))
        if cached is None:
            payload = self.frame(key, binary)
            if payload is None:
                return None
            cached = self._prepared[(key, binary)] = (payload, prepare(payload))
        return cached
