"""The wire of the benchmark clients: msgpack frames and a table's websocket address.

Every client of the benchmarks (``bench.load``'s sockets, ``bench.connections``,
``bench.coldstart``, ``bench.bot_loop_lag``) speaks through these helpers.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack


def pack(msg: dict[str, Any]) -> bytes:
    """A client message as a msgpack binary frame."""
    return msgpack.packb(msg, use_bin_type=True)


def unpack(frame: bytes | str) -> dict[str, Any]:
    """A server frame (msgpack binary, or JSON text) as a dict."""
    if isinstance(frame, str):
        return json.loads(frame)
    return msgpack.unpackb(frame, raw=False)


_BULKY = frozenset({"patch", "view", "events"})


def unpack_light(frame: bytes | str) -> dict[str, Any]:
    """``unpack`` without the keys a spectator of the benchmark never reads (``patch``,
    ``view``, ``events``): msgpack skips them in C without building objects, so the
    generator's own cost per received delta stays small next to the server's."""
    if isinstance(frame, str):
        return json.loads(frame)
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(frame)
    out: dict[str, Any] = {}
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        if key in _BULKY:
            unpacker.skip()
        else:
            out[key] = unpacker.unpack()
    return out


def ws_url(base_url: str, table_id: str) -> str:
    """The table's websocket address for an ``http://host:port`` base address."""
    return base_url.replace("http", "ws", 1).rstrip("/") + f"/ws/tables/{table_id}"
