"""The frames of the wire (docs/protocol.md §2): client messages out, server messages in.

A websocket message is one JSON object, sent as a binary frame in msgpack (what the web
client and every test or benchmark client speak by default) or as a text frame in JSON
(a debugging tool; the server answers in the form the client's ``hello`` came in).

- ``pack(msg)``: a message (a dict) as the bytes of one binary frame;
- ``unpack(data)``: a received frame, ``bytes`` (msgpack) or ``str`` (JSON), as its value;
- ``unpack_light(data)``: ``unpack`` skipping the bulky keys a load generator never reads;
- ``ws_url(base, table_id)``: a table's websocket address.

Errors: ``unpack`` raises what the decoders raise on bad input (``msgpack``'s
``ExtraData``, ``FormatError``, ``StackError``, ``ValueError`` and ``json``'s
``JSONDecodeError``, itself a ``ValueError``); ``pack`` raises ``TypeError`` for a value
msgpack cannot encode.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack


def pack(msg: Any) -> bytes:
    """``msg`` encoded as msgpack, strings as ``str`` and bytes as ``bin`` (the server's
    decoder refuses raw strings passed as bytes), key order kept."""
    data: bytes = msgpack.packb(msg, use_bin_type=True)
    return data


def unpack(data: bytes | str) -> Any:
    """A frame's value: msgpack for ``bytes`` (a binary frame), JSON for ``str`` (text)."""
    if isinstance(data, str):
        return json.loads(data)
    return msgpack.unpackb(data, raw=False)


_BULKY = frozenset({"patch", "view", "events"})


def unpack_light(data: bytes | str) -> dict[str, Any]:
    """``unpack`` of a server message (a map) without the keys a load generator's
    spectator never reads (``patch``, ``view``, ``events``): msgpack skips them in C
    without building objects, so a client's own cost per received delta stays small next
    to the server's. A text frame is decoded whole. Raises as ``unpack``, and
    ``msgpack``'s ``UnexpectedTypeError`` when the frame is not a map."""
    if isinstance(data, str):
        whole: dict[str, Any] = json.loads(data)
        return whole
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    out: dict[str, Any] = {}
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        if key in _BULKY:
            unpacker.skip()
        else:
            out[key] = unpacker.unpack()
    return out


def ws_url(base: str, table_id: str) -> str:
    """Table ``table_id``'s websocket address, ``ws://host:port/ws/tables/<id>``, from an
    ``http://host:port`` base (``https`` gives ``wss``) or a ``ws://host:port`` one."""
    return base.replace("http", "ws", 1).rstrip("/") + f"/ws/tables/{table_id}"
