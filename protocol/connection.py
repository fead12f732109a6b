"""Websocket clients of a table (docs/protocol.md §2) over the ``websockets`` library.

- ``Connection``: the asyncio client of tests: says ``hello``, reads in a task, and keeps
  every frame (decoded and raw), every close code, every refusal and every error frame,
  across reconnects;
- ``LightConnection``: the library's sans-I/O protocol on an asyncio ``Protocol``, no task
  per socket: the load generator's socket, a few microseconds per frame;
- the low-level door, for clients that run their own read loop or must send what a
  well-behaved client never would: ``dial`` (the library's asyncio connection),
  ``dial_sync`` (its threaded one), ``close_code``, ``server_frame`` (the bytes the
  library writes for a server frame) and the library's errors: ``ConnectionClosed``,
  ``InvalidHandshake``, ``InvalidStatus``.

Errors: opening raises ``OSError`` (refused, unreachable), ``InvalidHandshake`` (its
subclass ``InvalidStatus``: an HTTP answer instead of the upgrade, e.g. 404 for an unknown
path) or ``TimeoutError``; ``send`` on a closed socket ``ConnectionClosed``; ``wait``
``ConnectionError`` when the socket closed before a frame matched and ``TimeoutError``
when none did in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as _connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.frames import Frame, Opcode
from websockets.protocol import Protocol, Side, State
from websockets.sync.client import ClientConnection as SyncClientConnection
from websockets.sync.client import connect as _connect_sync
from websockets.uri import parse_uri

from protocol.frames import pack, unpack, ws_url

__all__ = [
    "ClientConnection", "Connection", "ConnectionClosed", "InvalidHandshake", "InvalidStatus",
    "LightConnection", "RawFrames", "SyncClientConnection", "client_frame", "close_code", "dial",
    "dial_sync", "server_frame", "upgrade_request", "watch_seek",
]

MAX_SIZE = 2**22
"""The largest frame a client takes (4 MiB: a whole game's welcome view is far less)."""


def dial(url: str, *, compression: str | None = None, **options: Any) -> Any:
    """The ``websockets`` asyncio client's ``connect(url, …)``: await it for a
    ``ClientConnection`` or use it as ``async with``; the library's defaults except
    ``compression`` (off, as the server has it). For a client with its own read loop, or
    a socket of its own (``sock=``). Raises as the module says."""
    return _connect(url, compression=compression, **options)


def dial_sync(url: str, *, compression: str | None = None,
              **options: Any) -> SyncClientConnection:
    """The ``websockets`` threaded client's ``connect(url, …)``: the connection itself
    (``legacy=True``, not the library's coming reconnecting iterator); a blocking client,
    its ``recv(timeout=…)`` raises ``TimeoutError``; compression off. Raises as the module
    says."""
    conn: SyncClientConnection = _connect_sync(url, compression=compression, legacy=True,
                                               **options)
    return conn


def close_code(closed: ConnectionClosed) -> int:
    """The code of the close frame the server sent, 1006 when none came (the connection
    was dropped or aborted)."""
    return closed.rcvd.code if closed.rcvd is not None else 1006


def server_frame(data: bytes | str) -> bytes:
    """The bytes the ``websockets`` library writes for one unfragmented, unmasked server
    frame of ``data`` (binary for ``bytes``, text for ``str``): what a server that builds
    its frames itself must match."""
    proto = Protocol(Side.SERVER, state=State.OPEN)
    if isinstance(data, str):
        proto.send_text(data.encode())
    else:
        proto.send_binary(data)
    return b"".join(proto.data_to_send())


def upgrade_request(path: str, host: str = "localhost") -> bytes:
    """The bytes of a client's opening handshake for ``path`` (RFC 6455 §4.1, the RFC's
    sample key), for a raw TCP socket that must split or join what a client writes."""
    return (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n").encode()


def client_frame(data: bytes, opcode: str = "binary", fin: bool = True) -> bytes:
    """The bytes of one masked client frame (RFC 6455 §5.2) of ``data``; ``opcode`` one
    of ``binary``, ``text``, ``cont``, ``ping``, ``pong``, ``close``; ``fin`` False for a
    fragment that more frames continue. Raises ``KeyError`` for another opcode."""
    return Frame(Opcode[opcode.upper()], data, fin=fin).serialize(mask=True, extensions=[])


class RawFrames:
    """The frames a server sends on a raw TCP socket after its 101 answer, parsed by the
    library's sans-I/O client: ``feed(bytes)`` returns the complete frames so far as
    ``(opcode, payload)``, opcode as ``client_frame`` names it."""

    def __init__(self) -> None:
        self._proto = Protocol(Side.CLIENT, state=State.OPEN, max_size=MAX_SIZE)

    def feed(self, data: bytes) -> list[tuple[str, bytes]]:
        """Parse ``data``; the frames it completed. An empty ``data`` is the end of the
        stream."""
        if data:
            self._proto.receive_data(data)
        else:
            self._proto.receive_eof()
        return [(f.opcode.name.lower(), bytes(f.data))
                for f in self._proto.events_received() if isinstance(f, Frame)]


async def watch_seek(ws_base: str, seek_id: str, token: str | None, timeout: float = 30.0,
                     frames: list[dict[str, Any]] | None = None
                     ) -> tuple[list[dict[str, Any]], int]:
    """Open ``/ws/seeks/{id}`` at ``ws_base`` with ``token`` (the seek token) and read
    its JSON frames until the server closes it (at most ``timeout`` seconds: then
    ``TimeoutError``), each appended to ``frames`` as it comes (a caller running this as
    a task sees them live). Returns the frames and the close code."""
    frames = [] if frames is None else frames
    async with asyncio.timeout(timeout):
        async with dial(f"{ws_base}/ws/seeks/{seek_id}") as ws:
            await ws.send(json.dumps({"t": "hello", "token": token}))
            try:
                async for raw in ws:
                    frames.append(json.loads(raw))
            except ConnectionClosed as closed:
                return frames, close_code(closed)
            assert ws.close_code is not None
            return frames, ws.close_code


class Connection:
    """One websocket client of table ``table_id`` at ``ws_base`` (``ws://host:port``) that
    keeps every decoded frame (``frames``) and its raw payload (``raw``), msgpack
    (``binary``) or JSON text. ``connect`` may be called again after a close: the lists
    go on.

    Recorded besides: ``closes``, the close code of every socket that ended (1006: no
    close frame); ``refusals``, the codes of the sockets closed before their welcome;
    ``errors()``, the ``error`` frames received. ``local_address``: the client's own
    address (as ``Lobby``'s)."""

    def __init__(self, ws_base: str, table_id: str, binary: bool = True,
                 local_address: str | None = None) -> None:
        self.url = ws_url(ws_base, table_id)
        self.binary = binary
        self.local_address = local_address
        self.ws: Any = None
        self.frames: list[dict[str, Any]] = []
        self.raw: list[bytes | str] = []
        self.reader: asyncio.Task[None] | None = None
        self.closed: asyncio.Event = asyncio.Event()
        self.close_code: int | None = None
        self.closes: list[int] = []
        self.refusals: list[int] = []
        self.new = asyncio.Event()
        self._welcomed = True

    async def connect(self, token: str | None = None, last_seq: int | None = None,
                      key: str | None = None, hello: dict[str, Any] | None = None,
                      open_timeout: float = 10, **headers: str) -> Connection:
        """Open the socket, say ``hello`` (``token``: a seat's, else a spectator;
        ``last_seq``: the seq to catch up from; ``key``: a private table's invite secret;
        ``hello``: more fields; ``headers``: of the upgrade request), and return once the
        socket is live: its welcome came, or the server closed it (a refusal: read
        ``close_code`` or ``wait_closed``). Raises ``OSError``, ``InvalidHandshake`` or
        ``TimeoutError`` when the upgrade fails."""
        mark = len(self.frames)  # a reconnect: the welcome of an earlier socket is no sign
        local: dict[str, Any] = (
            {"local_addr": (self.local_address, 0)} if self.local_address else {})
        self.ws = await dial(self.url, max_size=MAX_SIZE, open_timeout=open_timeout,
                             additional_headers=headers or None, **local)
        self.closed.clear()
        self.close_code = None
        self._welcomed = False
        self.reader = asyncio.create_task(self._read())
        with contextlib.suppress(ConnectionClosed):  # refused at once: the test reads the code
            msg: dict[str, Any] = {"t": "hello", "token": token, "last_seq": last_seq,
                                   **(hello or {})}
            if key is not None:
                msg["key"] = key
            await self.send(msg)
        # Live from its welcome on (the server puts it in the table's room as it sends
        # the welcome): an action or a chat message of another socket before that is in
        # the welcome's view or the history after it, never a live frame, so a caller that
        # went on at once could wait for a frame that never comes. A refused socket
        # closes instead; the caller reads its code.
        with contextlib.suppress(ConnectionError):
            await self.wait(lambda f: f["t"] == "welcome", start=mark)
        return self

    async def send(self, msg: Any) -> None:
        """Send ``msg`` as one frame (msgpack, or JSON text). Raises ``ConnectionClosed``
        on a closed socket."""
        await self.ws.send(pack(msg) if self.binary else json.dumps(msg))

    async def send_raw(self, data: bytes | str) -> None:
        """Send ``data`` as one frame, as it is (bytes: binary, str: text). A server that
        refuses a frame by its size closes (1009) as soon as it has read the header, while
        a large frame is still being written: that close is what ``wait_closed`` then
        reads, not an error of the send."""
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(data)

    async def _read(self) -> None:
        ws = self.ws
        try:
            async for data in ws:
                self.raw.append(data)
                frame = unpack(data)
                self.frames.append(frame)
                if isinstance(frame, dict) and frame.get("t") == "welcome":
                    self._welcomed = True
                self.new.set()
        except ConnectionClosed:
            pass
        finally:
            rcvd = ws.protocol.close_rcvd
            self.close_code = rcvd.code if rcvd is not None else 1006
            self.closes.append(self.close_code)
            if not self._welcomed:
                self.refusals.append(self.close_code)
            self.closed.set()
            self.new.set()

    async def wait(self, pred: Callable[[dict[str, Any]], Any], timeout: float = 20.0,
                   start: int = 0) -> dict[str, Any]:
        """The first frame from index ``start`` on (default: from the first) for which
        ``pred`` holds, waiting for it up to ``timeout`` seconds. Raises
        ``ConnectionError`` when the socket closed first, ``TimeoutError`` after
        ``timeout``."""
        async def scan() -> dict[str, Any]:
            i = start
            while True:
                while i < len(self.frames):
                    if pred(self.frames[i]):
                        return self.frames[i]
                    i += 1
                if self.closed.is_set():
                    raise ConnectionError(f"closed with {self.close_code}")
                self.new.clear()
                await self.new.wait()
        return await asyncio.wait_for(scan(), timeout)

    async def wait_closed(self, timeout: float = 10.0) -> int | None:
        """The close code once the socket closed (1006: no close frame). Raises
        ``TimeoutError`` after ``timeout``."""
        await asyncio.wait_for(self.closed.wait(), timeout)
        return self.close_code

    def errors(self) -> list[dict[str, Any]]:
        """The ``error`` frames received: ``{"t": "error", "code", "message", …}``."""
        return [f for f in self.frames if f.get("t") == "error"]

    def deltas(self) -> list[dict[str, Any]]:
        """The ``deltas`` frames received (one per append: an action's events)."""
        return [f for f in self.frames if f.get("t") == "deltas"]

    def events(self) -> list[dict[str, Any]]:
        """Every event of the ``deltas`` frames received: ``{"seq", "event", "head"}``."""
        return [e for f in self.deltas() for e in f["events"]]

    def chats(self, channel: str | None = None) -> list[dict[str, Any]]:
        """The live chat messages received, optionally of one chat channel."""
        return [f for f in self.frames
                if f.get("t") == "chat" and channel in (None, f["channel"])]

    def last_seq(self) -> int | None:
        """The seq of the last ``deltas`` frame or full welcome (one with a view) seen."""
        seq = None
        for f in self.frames:
            if f.get("t") == "deltas" or (f.get("t") == "welcome" and f.get("view") is not None):
                seq = f["seq"]
        return seq

    async def close(self) -> None:
        """The closing handshake (1000), then the reader's end."""
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await self.reader


_BINARY, _TEXT = Opcode.BINARY, Opcode.TEXT


class LightConnection(asyncio.Protocol):
    """One websocket without a task: the library's sans-I/O ``ClientProtocol`` on an
    asyncio ``Protocol``. A subclass says what to do in three hooks, all called in the
    event loop's read callback:

    - ``on_open()``: the upgrade succeeded (send the ``hello`` with ``send_frame``);
    - ``on_frame(data, now)``: one data frame's payload (``bytes``, or ``bytes`` of UTF-8
      for a text frame), received at ``now`` (``time.perf_counter_ns``, taken once per
      read);
    - ``on_lost(code)``: the connection ended (``code``: the close code received, ``None``
      when none came).

    Pings are answered by the protocol; ``close`` is the normal closing handshake."""

    def __init__(self) -> None:
        self.proto: ClientProtocol | None = None
        self.transport: asyncio.Transport | None = None
        self.opened = False
        self.closing = False
        self.lost: asyncio.Future[None] | None = None

    @property
    def alive(self) -> bool:
        """True while the connection is open."""
        return self.lost is not None and not self.lost.done()

    @property
    def handshake_exc(self) -> Exception | None:
        """Why the upgrade failed (``InvalidStatus``, …), once it did."""
        return self.proto.handshake_exc if self.proto is not None else None

    async def dial(self, url: str, source: str | None = None, timeout: float = 30) -> None:
        """Connect to ``url`` (from ``source``, a local address, if given) and send the
        upgrade request; the answer comes to ``on_open``. Raises ``OSError`` or
        ``TimeoutError`` when the TCP connection fails."""
        loop = asyncio.get_running_loop()
        uri = parse_uri(url)
        self.proto = ClientProtocol(uri, max_size=MAX_SIZE)
        self.lost = loop.create_future()
        kwargs: dict[str, Any] = {"local_addr": (source, 0)} if source else {}
        await asyncio.wait_for(
            loop.create_connection(lambda: self, uri.host, uri.port, **kwargs), timeout)

    def on_open(self) -> None:
        """The upgrade succeeded."""

    def on_frame(self, data: bytes, now: int) -> None:
        """One data frame's payload, received at ``now`` (ns)."""

    def on_lost(self, code: int | None) -> None:
        """The connection ended with close code ``code`` (``None``: no close frame)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert self.proto is not None  # uvloop's transports are no asyncio.Transport
        self.transport = transport  # type: ignore[assignment]
        self.proto.send_request(self.proto.connect())
        self._flush()

    def _flush(self) -> None:
        assert self.proto is not None and self.transport is not None
        for data in self.proto.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():
                self.transport.write_eof()

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter_ns()
        proto = self.proto
        assert proto is not None
        proto.receive_data(data)
        on_frame = self.on_frame
        for event in proto.events_received():
            if isinstance(event, Frame):
                if event.opcode is _BINARY or event.opcode is _TEXT:
                    on_frame(event.data, now)  # type: ignore[arg-type]
            elif not self.opened and proto.state is State.OPEN:  # the handshake response
                self.opened = True
                self.on_open()
        self._flush()

    def eof_received(self) -> bool | None:
        assert self.proto is not None
        self.proto.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.on_lost(self.proto.close_code if self.proto is not None else None)
        if self.lost is not None and not self.lost.done():
            self.lost.set_result(None)

    def send_frame(self, data: bytes) -> None:
        """Send ``data`` as one binary frame, written at once."""
        assert self.proto is not None
        self.proto.send_binary(data)
        self._flush()

    async def close(self, timeout: float = 2) -> None:
        """The closing handshake (code 1000); the connection is aborted after
        ``timeout`` seconds."""
        self.closing = True
        if not self.alive or self.proto is None or self.transport is None:
            return
        with contextlib.suppress(Exception):
            self.proto.send_close(1000)
            self._flush()
        assert self.lost is not None
        try:
            await asyncio.wait_for(asyncio.shield(self.lost), timeout)
        except TimeoutError:
            self.transport.abort()
