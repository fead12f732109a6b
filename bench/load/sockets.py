"""The websocket clients of a load run, one per seat or spectator of a table.

- ``on_message``: what every client socket does with one server message (track its seq,
  time the delivery, hand prompts, acks, errors and the end to its ``TableRun``);
- ``TableSocket``: the ``websockets`` library's asyncio client with a reader task
  (``--client asyncio``);
- ``LightSocket``: the library's sans-I/O protocol on an asyncio ``Protocol``, no task per
  socket (``--client sansio``, the default).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from bench.load.frames import pack, unpack, unpack_light, ws_url
from bench.load.tracking import SeqTracker

if TYPE_CHECKING:
    from bench.load.table import TableRun


def on_message(sock: TableSocket | LightSocket, msg: dict[str, Any], now: int) -> None:
    """What every client socket does with one server message received at ``now`` (ns)."""
    table = sock.table
    kind = msg.get("t")
    if kind == "deltas":
        seq = msg["seq"]
        if sock.tracker.see(seq, msg["prev"]):
            table.clock.received(seq, now, sock.spectator)
        if table.stats.recording:
            table.stats.deliveries += 1
        # Spectators skip the events (``unpack_light``); the players see the end.
        if any(e["event"].get("type") == "game_ended" for e in msg.get("events", ())):
            table.game_over(seq)
    elif kind == "ack":
        table.acked(msg, now)
    elif kind == "prompt":
        if msg.get("seq", -1) >= sock.tracker.last:
            table.prompted(sock, msg)
    elif kind == "welcome":
        sock.tracker.welcome(msg["seq"])
        sock.welcomed.set()
    elif kind == "error":
        table.failed(msg)
    elif kind == "table":
        summary = msg.get("table") or {}
        if summary.get("status") == "ended":
            table.game_over(summary.get("seq"))


class TableSocket:
    """One websocket of a table (a seat's or a spectator's): the ``websockets`` asyncio
    client and a reader task (``--client asyncio``)."""

    def __init__(self, table: TableRun, token: str | None, seat: int | None) -> None:
        self.table = table
        self.token = token
        self.seat = seat
        self.spectator = token is None
        self.tracker = SeqTracker()
        self.ws: ClientConnection | None = None
        self.welcomed = asyncio.Event()
        self.closing = False
        self.task: asyncio.Task | None = None

    @property
    def alive(self) -> bool:
        """True while the socket is open and read."""
        return self.task is not None and not self.task.done()

    async def open(self, source: str | None = None) -> None:
        """Connect, say hello, and start reading; returns once the welcome arrived."""
        kwargs: dict[str, Any] = {}
        if source:
            kwargs["local_addr"] = (source, 0)
        self.ws = await connect(
            ws_url(self.table.base_url, self.table.id), compression=None, max_size=2**22,
            max_queue=None, ping_interval=None, open_timeout=30, close_timeout=2, **kwargs,
        )
        self.table.stats.sockets_opened += 1
        await self.ws.send(pack({"t": "hello", "token": self.token, "last_seq": None}))
        self.task = asyncio.create_task(self._read())
        await asyncio.wait_for(self.welcomed.wait(), 30)

    async def _read(self) -> None:
        stats = self.table.stats
        ws = self.ws
        assert ws is not None
        try:
            async for frame in ws:
                on_message(self, unpack(frame), time.perf_counter_ns())
        except ConnectionClosed as e:
            if not self.closing:
                code = e.rcvd.code if e.rcvd is not None else "none"
                stats.error(f"closed:{code}")
        except Exception as e:  # a decoding bug must show up in the report, not vanish
            stats.error(f"client:{type(e).__name__}")
        finally:
            stats.gaps += self.tracker.gaps
            stats.duplicates += self.tracker.duplicates
            self.tracker.gaps = self.tracker.duplicates = 0
            self.welcomed.set()

    async def send(self, msg: dict[str, Any]) -> None:
        """Send one message as a msgpack frame."""
        assert self.ws is not None
        await self.ws.send(pack(msg))

    async def close(self) -> None:
        """Close the socket (normal closure) and wait for the reader to finish."""
        self.closing = True
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.task is not None:
            with contextlib.suppress(Exception):
                await self.task


class LightSocket(asyncio.Protocol):
    """One websocket of a table without a task per socket (``--client sansio``, default):
    the ``websockets`` library's sans-I/O ``ClientProtocol`` on an asyncio ``Protocol``.

    Frames are handled in ``data_received`` (the receipt time is taken there, once per
    read), so the generator spends a few microseconds per frame instead of a task wake-up;
    that matters when one process plays thousands of sockets. Pings are answered by the
    protocol; closing is the normal closing handshake.
    """

    def __init__(self, table: TableRun, token: str | None, seat: int | None) -> None:
        self.table = table
        self.token = token
        self.seat = seat
        self.spectator = token is None
        self.tracker = SeqTracker()
        self.welcomed = asyncio.Event()
        self.closing = False
        self.proto: ClientProtocol | None = None
        self.transport: asyncio.Transport | None = None
        self.opened = False
        self.lost: asyncio.Future[None] | None = None

    @property
    def alive(self) -> bool:
        """True while the connection is open."""
        return self.lost is not None and not self.lost.done()

    async def open(self, source: str | None = None) -> None:
        """Connect, handshake, say hello; returns once the welcome arrived. Raises
        ``ConnectionError`` when the handshake or the connection fails."""
        loop = asyncio.get_running_loop()
        uri = parse_uri(ws_url(self.table.base_url, self.table.id))
        self.proto = ClientProtocol(uri, max_size=2**22)
        self.lost = loop.create_future()
        kwargs: dict[str, Any] = {"local_addr": (source, 0)} if source else {}
        await asyncio.wait_for(
            loop.create_connection(lambda: self, uri.host, uri.port, **kwargs), 30)
        await asyncio.wait_for(self.welcomed.wait(), 30)
        if not self.opened or self.lost.done():
            raise ConnectionError(f"no welcome (handshake: {self.proto.handshake_exc})")

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
        for event in proto.events_received():
            if isinstance(event, Frame):
                if event.opcode is Opcode.BINARY or event.opcode is Opcode.TEXT:
                    try:
                        on_message(self, (unpack_light if self.spectator else unpack)(
                            event.data), now)
                    except Exception as e:  # a decoding bug must show up in the report
                        self.table.stats.error(f"client:{type(e).__name__}")
            elif not self.opened and proto.state is State.OPEN:  # the handshake response
                self.opened = True
                self.table.stats.sockets_opened += 1
                proto.send_binary(pack({"t": "hello", "token": self.token, "last_seq": None}))
        self._flush()

    def eof_received(self) -> bool | None:
        assert self.proto is not None
        self.proto.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        stats = self.table.stats
        if not self.closing:
            code = self.proto.close_code if self.proto is not None else None
            stats.error(f"closed:{code if code is not None else 'none'}")
        stats.gaps += self.tracker.gaps
        stats.duplicates += self.tracker.duplicates
        self.tracker.gaps = self.tracker.duplicates = 0
        if self.lost is not None and not self.lost.done():
            self.lost.set_result(None)
        self.welcomed.set()

    async def send(self, msg: dict[str, Any]) -> None:
        """Send one message as a msgpack frame (written at once)."""
        assert self.proto is not None
        self.proto.send_binary(pack(msg))
        self._flush()

    async def close(self) -> None:
        """The closing handshake (code 1000); the connection is aborted after 2 s."""
        self.closing = True
        if not self.alive or self.proto is None or self.transport is None:
            return
        with contextlib.suppress(Exception):
            self.proto.send_close(1000)
            self._flush()
        assert self.lost is not None
        try:
            await asyncio.wait_for(asyncio.shield(self.lost), 2)
        except TimeoutError:
            self.transport.abort()
