"""Prepared frames: one delta serialized once as a websocket frame, written to every socket.

A server's data frames are unmasked, and with no extension (compression is off: docs/
protocol.md) a frame's bytes are the same for every socket. ``prepare`` serializes a
payload once with the ``websockets`` library's own ``Frame``; ``DirectSocket.write`` puts
those bytes on one socket's transport, where the library would have put the same bytes
after its per-socket state checks, which ``write`` repeats. That spares each delivery the
coroutine layers of Starlette and uvicorn and the per-socket serialization (the fan-out's
main cost: docs/benchmarks.md, "Service"). It is what ``websockets.broadcast`` does, minus
serializing the frame once per socket.

``DirectSocket.of(send)`` finds the uvicorn websockets-sans-I/O protocol behind an ASGI
``send`` (``RawSend`` keeps a weak reference to that callable in the scope). Under any
other ASGI server, or when uvicorn's internals differ (tests/server/test_seams.py then
fails), it returns ``None`` and every frame takes the ASGI path.
``write`` returns False whenever that path must be taken instead: the socket is not open,
is closing, or its write buffer is over the high-water mark (back-pressure: the caller's
queue waits for it to drain).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import weakref
from typing import Any

from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, State
from websockets.streams import StreamReader

SCOPE_KEY = "cardtable.raw_send"

PROTOCOL_SEAM = ("conn", "transport", "writable", "close_sent", "initial_response",
                 "handshake_complete", "request", "response")
"""Private attributes of uvicorn's ``WebSocketsSansIOProtocol`` that ``write`` reads (the
checks uvicorn makes before it writes a frame), and the handshake's request and response
that ``release_handshake`` drops. pyproject.toml holds uvicorn to the minor
release tests/server/test_seams.py checked them on."""
CONNECTION_SEAM = ("state", "extensions", "expect_continuation_frame")
"""Attributes of the ``websockets`` sans-I/O ``Protocol`` that ``write`` reads (the last
one is undocumented)."""


def prepare(payload: bytes | str) -> bytes:
    """The complete unmasked websocket frame (binary for bytes, text for str) of
    ``payload``, FIN set, no extension: RFC 6455 §5.2 as ``websockets`` serializes it."""
    if isinstance(payload, str):
        return Frame(Opcode.TEXT, payload.encode()).serialize(mask=False)
    return Frame(Opcode.BINARY, payload).serialize(mask=False)


def missing_seam(proto: Any) -> list[str]:
    """The attributes of ``PROTOCOL_SEAM`` and ``CONNECTION_SEAM`` (as ``conn.<name>``)
    that the ASGI server's protocol object ``proto`` lacks; ``["conn"]`` if it has no
    websockets ``Protocol`` at all."""
    conn = getattr(proto, "conn", None)
    if not isinstance(conn, Protocol):
        return ["conn"]
    return ([a for a in PROTOCOL_SEAM if not hasattr(proto, a)]
            + [f"conn.{a}" for a in CONNECTION_SEAM if not hasattr(conn, a)])


class DirectSocket:
    """Writes prepared frames to one accepted websocket (see the module docstring)."""

    __slots__ = ("proto",)

    def __init__(self, proto: Any) -> None:
        self.proto = proto

    @classmethod
    def of(cls, send: Any) -> DirectSocket | None:
        """The direct writer behind uvicorn's ASGI ``send`` (the callable itself or the
        ``weakref.WeakMethod`` that ``RawSend`` keeps), or ``None`` if there is none."""
        if isinstance(send, weakref.WeakMethod):
            send = send()
        proto = getattr(send, "__self__", None)
        if proto is None or missing_seam(proto):
            return None
        return cls(proto)

    def write(self, frame: bytes) -> bool:
        """Write ``frame`` (from ``prepare``) now; False (nothing written) when the socket
        cannot take it this way."""
        p = self.proto
        conn = p.conn
        if (conn.state is not State.OPEN or conn.extensions or conn.expect_continuation_frame
                or p.close_sent or not p.handshake_complete or p.initial_response is not None
                or not p.writable.is_set() or p.transport.is_closing()):
            return False
        p.transport.write(frame)
        return True

    def release_handshake(self) -> None:
        """Drop uvicorn's references to the opening handshake's request and response
        (their header objects: about 4 KB per socket, kept for the socket's life
        otherwise) once the socket is accepted: uvicorn reads them only until then."""
        p = self.proto
        if p.handshake_complete and p.initial_response is None:
            p.request = p.response = None
            fresh_parser(p.conn)

    def abort(self) -> None:
        """Drop the connection at once, unsent bytes and all (a TCP reset): for a client
        that stopped reading, whose buffers would otherwise keep the connection (and the
        frames queued for it) alive, since a polite close waits for the close frame to be
        written. Linger 0 makes the kernel discard its send queue too, instead of keeping
        the orphaned connection until the peer reads or the retries give up."""
        transport = self.proto.transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()


def fresh_parser(conn: Protocol) -> bool:
    """Give an open websocket's ``conn`` a frame parser of its own, when its parser waits
    between two frames; True if it did. websockets' ``ServerProtocol.parse`` reads the
    opening request and then parses frames inside the same generator, whose frame keeps
    the request (its headers: about 2.5 KB) for the socket's life. ``Protocol.parse``
    alone is what it runs after the request; swapped only at a frame boundary (the
    parser waits in ``StreamReader.at_eof`` with nothing buffered), so no byte or state
    of a frame is lost. Pinned by tests/server/test_seams.py."""
    outer = conn.parser
    inner = getattr(outer, "gi_yieldfrom", None)
    waiting = getattr(inner, "gi_yieldfrom", None)
    if (conn.state is not State.OPEN or conn.reader.buffer
            or getattr(waiting, "gi_code", None) is not _AT_EOF):
        return False
    conn.parser = Protocol.parse(conn)
    next(conn.parser)
    return True


_AT_EOF = StreamReader.at_eof.__code__


def keep_send(scope: dict[str, Any], send: Any) -> None:
    """Keep the server's own ``send`` of a websocket in its scope (``scope[SCOPE_KEY]``),
    weakly (see ``RawSend``)."""
    scope[SCOPE_KEY] = weakref.WeakMethod(send) if hasattr(send, "__self__") else send


class RawSend:
    """ASGI middleware: keeps the server's own ``send`` of each websocket in its scope
    (``scope[SCOPE_KEY]``), before any framework wraps it.

    The reference is weak (a ``weakref.WeakMethod`` when ``send`` is a bound method):
    uvicorn's protocol holds the scope, so a strong one would make protocol -> scope ->
    send -> protocol a reference cycle, and every closed connection (its transport and
    buffers) would wait for the cyclic garbage collector instead of being freed at once
    (docs/reliability.md, "Soak")."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            keep_send(scope, send)
        await self.app(scope, receive, send)
