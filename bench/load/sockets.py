"""The websocket clients of a load run, one per seat or spectator of a table.

- ``on_message``: what every client socket does with one server message (track its seq,
  time the delivery, hand prompts, acks, errors and the end to its ``TableRun``);
- ``TableSocket``: the ``websockets`` library's asyncio client with a reader task
  (``--client asyncio``; ``protocol.dial``);
- ``LightSocket``: the library's sans-I/O protocol on an asyncio ``Protocol``, no task per
  socket (``--client sansio``, the default; ``protocol.LightConnection``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from bench.load.tracking import SeqTracker
from protocol.connection import ClientConnection, ConnectionClosed, LightConnection, dial
from protocol.frames import pack, unpack, unpack_light, ws_url

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
        self.ws = await dial(
            ws_url(self.table.base_url, self.table.id), max_size=2**22,
            max_queue=None, ping_interval=None, open_timeout=30, close_timeout=2, **kwargs,
        )
        self.table.stats.sockets_opened += 1
        await self.ws.send(pack({"t": "hello", "token": self.token, "last_seq": None,
                                 "key": self.table.key}))
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


class LightSocket(LightConnection):
    """One websocket of a table without a task per socket (``--client sansio``, default):
    the ``websockets`` library's sans-I/O ``ClientProtocol`` on an asyncio ``Protocol``
    (``protocol.LightConnection``).

    Frames are handled in the read callback (the receipt time is taken there, once per
    read), so the generator spends a few microseconds per frame instead of a task wake-up;
    that matters when one process plays thousands of sockets. Pings are answered by the
    protocol; closing is the normal closing handshake.
    """

    def __init__(self, table: TableRun, token: str | None, seat: int | None) -> None:
        super().__init__()
        self.table = table
        self.token = token
        self.seat = seat
        self.spectator = token is None
        self.decode = unpack_light if self.spectator else unpack
        self.tracker = SeqTracker()
        self.welcomed = asyncio.Event()

    async def open(self, source: str | None = None) -> None:
        """Connect, handshake, say hello; returns once the welcome arrived. Raises
        ``ConnectionError`` when the handshake or the connection fails."""
        await self.dial(ws_url(self.table.base_url, self.table.id), source, 30)
        await asyncio.wait_for(self.welcomed.wait(), 30)
        assert self.lost is not None
        if not self.opened or self.lost.done():
            raise ConnectionError(f"no welcome (handshake: {self.handshake_exc})")

    def on_open(self) -> None:
        self.table.stats.sockets_opened += 1
        self.send_frame(pack({"t": "hello", "token": self.token, "last_seq": None,
                             "key": self.table.key}))

    def on_frame(self, data: bytes, now: int) -> None:
        try:
            on_message(self, self.decode(data), now)
        except Exception as e:  # a decoding bug must show up in the report
            self.table.stats.error(f"client:{type(e).__name__}")

    def on_lost(self, code: int | None) -> None:
        stats = self.table.stats
        if not self.closing:
            stats.error(f"closed:{code if code is not None else 'none'}")
        stats.gaps += self.tracker.gaps
        stats.duplicates += self.tracker.duplicates
        self.tracker.gaps = self.tracker.duplicates = 0
        self.welcomed.set()

    async def send(self, msg: dict[str, Any]) -> None:
        """Send one message as a msgpack frame (written at once)."""
        self.send_frame(pack(msg))
