"""Delivering deltas: per-socket outboxes, per-table rooms, one Redis subscription per table.

- ``Connection``: a socket's small state (seat, encoding, last seq sent, rate bucket) and
  an outbox drained by a writer task that exists only while frames are queued, so a slow
  socket never holds up the others.
- ``Room``: a table's local sockets; deltas go out in seq order, players first, at once
  for a room of one chunk with nothing waiting, else by a broadcaster task that gives the
  event loop its turn between chunks of spectators.

A ``Delta`` (server/fanout/delta.py) is what a room delivers; the Redis subscription that
feeds the rooms is ``server/fanout/subscriber.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import (
    Awaitable,
    Callable,
    Coroutine,
    Generator,
    Iterable,
    Iterator,
    Sequence,
)
from typing import Any

from server import metrics
from server.fanout.cork import Cork
from server.fanout.delta import Delta, Frame
from server.fanout.frames import DirectSocket, prepare
from server.logging import get_logger
from server.ws import protocol

log = get_logger("fanout")

SPECTATOR_CHUNK = 256


class _Started:
    """Awaits the rest of a coroutine that was stepped by hand up to its first suspension
    (``waiting_on`` is what it yielded), so that a task can finish it: an eager start, as
    ``asyncio.eager_task_factory`` does from Python 3.12 on."""

    __slots__ = ("coro", "waiting_on")

    def __init__(self, coro: Coroutine[Any, Any, Any], waiting_on: Any) -> None:
        self.coro = coro
        self.waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, yielded = self.coro, self.waiting_on
        while True:
            try:
                value = yield yielded
            except BaseException as e:  # cancellation and the like go to the coroutine
                try:
                    yielded = coro.throw(e)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    yielded = coro.send(value)
                except StopIteration as stop:
                    return stop.value


class Connection:
    """A socket's state: ``seat`` (``None``: spectator), ``binary`` (msgpack or JSON),
    ``seq`` (last delta sent), a token bucket, and an outbox. ``send`` is the coroutine
    that writes one frame to the socket; ``close`` closes it with a code; ``direct``, when
    the server allows it, writes prepared frames without a coroutine (server/fanout/frames.py);
    with ``cork``, a seated socket's direct frames of one turn of the loop go out in one
    write at its end (server/fanout/cork.py)."""

    __slots__ = (
        "account",
        "addr",
        "api_token",
        "binary",
        "close_cb",
        "closed",
        "closing",
        "cork",
        "direct",
        "held",
        "hidden",
        "limit",
        "outbox",
        "refused",
        "seat",
        "send_cb",
        "seq",
        "token_hash",
        "tokens",
        "touched",
        "writer",
    )

    def __init__(self, send: Callable[[Frame], Awaitable[None]],
                 close: Callable[[int, str], Awaitable[None]], addr: str, binary: bool,
                 rate_burst: int, outbox_limit: int, direct: DirectSocket | None = None,
                 cork: Cork | None = None) -> None:
        self.send_cb = send
        self.direct = direct
        self.cork = cork if direct is not None else None
        self.held: tuple[list[Frame], list[bytes]] | None = None
        """The frames (and their prepared bytes) held for ``cork``'s end of the turn."""
        self.close_cb = close
        self.addr = addr
        self.binary = binary
        self.seat: int | None = None
        self.token_hash = ""
        self.api_token = ""  # the id of the API token that opened it (docs/bot-api.md)
        self.account: str | None = None
        """The viewer's account (its seat's, or a spectator's session's), if any."""
        self.hidden: frozenset[str] = frozenset()
        """Accounts whose chat this socket does not get (the viewer blocked them)."""
        self.seq = -1
        # Made only when a frame has to wait (an idle socket holds no deque: docs/
        # benchmarks.md, "memory per idle connection").
        self.outbox: deque[Frame] | None = None
        self.writer: asyncio.Task[None] | None = None
        self.tokens = float(rate_burst)
        self.touched = time.monotonic()
        self.refused = 0
        self.closed = False
        self.closing: asyncio.Task[None] | None = None
        self.limit = outbox_limit

    def push(self, frame: Frame, prepared: bytes | None = None) -> bool:
        """``push_many`` of one frame."""
        return self.push_many((frame,), prepared)

    def push_many(self, frames: Sequence[Frame], prepared: bytes | None = None) -> bool:
        """Send ``frames`` in order (``prepared``: their complete websocket frames joined,
        if known). With nothing queued and a direct writer that can take them, they go out
        at once in one write (True); else they are queued, and a socket that falls
        ``outbox_limit`` frames behind is closed (1008, "too slow") and may reconnect with
        its last seq."""
        if self.closed:
            return False
        if self.writer is None and not self.outbox and self.direct is not None:
            if prepared is None:  # one frame (an ack, a prompt) nearly always
                prepared = (prepare(frames[0]) if len(frames) == 1
                            else b"".join(map(prepare, frames)))
            if self.cork is not None and self.seat is not None:
                # Nothing is queued while frames are held (``release`` queues them when the
                # write cannot be made), so the order holds.
                if self.held is None:
                    self.held = ([], [])
                    self.cork.hold(self)
                self.held[0].extend(frames)
                self.held[1].append(prepared)
                return True
            if self.direct.write(prepared):
                return True
        for frame in frames:
            self._queue(frame)
        return False

    def release(self) -> None:
        """Write the frames held for the end of the turn in one write, or queue them for
        the writer task when the socket cannot take them now (``DirectSocket.write``)."""
        held, self.held = self.held, None
        if held is None or self.closed:
            return
        frames, wires = held
        assert self.direct is not None  # only a direct socket holds frames
        if self.direct.write(wires[0] if len(wires) == 1 else b"".join(wires)):
            return
        for frame in frames:
            self._queue(frame)

    def _queue(self, frame: Frame) -> None:
        if self.closed:
            return
        if self.writer is None and not self.outbox:
            self._send_now(frame)
            return
        if self.outbox is None:
            self.outbox = deque()
        if len(self.outbox) >= self.limit:
            self.shut(1008, "too slow: reconnect with last_seq", flush=False)
            return
        self.outbox.append(frame)
        if self.writer is None:
            self.writer = asyncio.get_running_loop().create_task(self._drain())

    def _send_now(self, frame: Frame) -> None:
        # A send to a socket with room in its buffer finishes without suspending; running
        # it right here saves a task per frame (most of the fan-out cost besides the write
        # itself: docs/benchmarks.md, "Service"). Only when it has to wait does a writer
        # task take over, and later frames queue behind it as before.
        sending = self.send_cb(frame)
        if not asyncio.iscoroutine(sending):  # cannot be stepped by hand: the usual path
            self.writer = asyncio.get_running_loop().create_task(self._drain(sending))
            return
        try:
            waiting_on = sending.send(None)
        except StopIteration:
            return
        except Exception:  # the socket went away; the endpoint cleans up
            self.closed = True
            self.outbox = None
            return
        self.writer = asyncio.get_running_loop().create_task(
            self._drain(_Started(sending, waiting_on)))

    def message(self, msg: dict[str, Any]) -> None:
        """Encode and queue a message for this socket only."""
        self.push(protocol.encode(msg, self.binary))

    async def _drain(self, started: Awaitable[Any] | None = None) -> None:
        try:
            if started is not None:
                await started
            while self.outbox:
                await self.send_cb(self.outbox.popleft())
        except Exception:  # the socket went away; the endpoint cleans up
            self.closed = True
            self.outbox = None
        finally:
            self.writer = None
            if not self.outbox:
                self.outbox = None

    def shut(self, code: int, reason: str, flush: bool = True) -> None:
        """Close the socket (in the background) with ``code``, after the frames already
        queued unless ``flush`` is False; nothing queued later is sent."""
        if self.closed:
            return
        if flush:
            self.release()  # held frames were sent before the close: they go first
        else:
            self.held = None
        self.closed = True
        if not flush:
            self.outbox = None
        self.closing = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            if self.writer is not None:
                await asyncio.wait_for(asyncio.shield(self.writer), 5)
        with contextlib.suppress(Exception):
            await self.close_cb(code, reason)

    def allow(self, rate: float, burst: int) -> bool:
        """Take one token from the bucket; False when the connection is over its rate."""
        now = time.monotonic()
        self.tokens = min(float(burst), self.tokens + (now - self.touched) * rate)
        self.touched = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.refused = 0
            return True
        self.refused += 1
        return False


class Room:
    """The local sockets of one table and the broadcaster that feeds them in seq order."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.players: dict[int, set[Connection]] = {}
        self.spectators: dict[Connection, None] = {}
        self.pending: deque[tuple[str, Any, float]] = deque()
        self.task: asyncio.Task[None] | None = None
        self.size = 0
        """Sockets in the room (kept by ``add`` and ``remove``)."""

    def __len__(self) -> int:
        return self.size

    def connections(self) -> Iterable[Connection]:
        """Every local socket, players first."""
        for conns in self.players.values():
            yield from conns
        yield from self.spectators

    def add(self, conn: Connection) -> None:
        """Start delivering to ``conn`` (its ``seq`` must be the seq its welcome showed)."""
        if conn.seat is None:
            if conn in self.spectators:
                return
            self.spectators[conn] = None
        else:
            conns = self.players.setdefault(conn.seat, set())
            if conn in conns:
                return
            conns.add(conn)
        self.size += 1
        metrics.SOCKETS.inc()

    def remove(self, conn: Connection) -> None:
        """Stop delivering to ``conn``."""
        if conn.seat is None:
            found = self.spectators.pop(conn, 0) is None
        else:
            conns = self.players.get(conn.seat, set())
            found = conn in conns
            conns.discard(conn)
            if not conns:
                self.players.pop(conn.seat, None)
        if found:
            self.size -= 1
            metrics.SOCKETS.dec()

    def seat_connections(self, seat: int) -> set[Connection]:
        """The local sockets of ``seat``."""
        return self.players.get(seat, set())

    def publish(self, kind: str, item: Any) -> None:
        """Deliver ``("delta", Delta)``, ``("prompt", (seat, seq, prompt message))``,
        ``("table", summary)`` or ``("message", msg)`` (a message for every socket, e.g.
        ``clock`` or ``presence``) after everything published before it: at once when
        nothing waits and the room is one chunk (a table of players and a few spectators:
        no task per action), else by the room's broadcaster task."""
        size = self.size
        if not size:
            return
        since = time.perf_counter()
        if (not self.pending and (self.task is None or self.task.done())
                and size <= SPECTATOR_CHUNK):
            try:
                for _ in self._handle(kind, [item] if kind == "delta" else item):
                    pass  # one chunk: it never yields
            except Exception:  # a bug must not fail the append that published it
                log.exception("delivery failed", table=self.table_id, kind=kind)
            if kind == "delta":
                metrics.FANOUT.observe(time.perf_counter() - since)
            return
        self.pending.append((kind, item, since))
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self.pending:
            kind, item, since = self.pending.popleft()
            if kind == "delta":
                # Deltas queued together (appends in a row) go out together: one write
                # per socket instead of one per append.
                batch, stamps = [item], [since]
                while self.pending and self.pending[0][0] == "delta":
                    _, item, since = self.pending.popleft()
                    batch.append(item)
                    stamps.append(since)
                item = batch
            try:
                for _ in self._handle(kind, item):
                    await asyncio.sleep(0)  # between chunks of sockets
            except Exception:  # a bug must not stop the table's deliveries
                log.exception("delivery failed", table=self.table_id, kind=kind)
            if kind == "delta":
                done = time.perf_counter()
                for since in stamps:
                    metrics.FANOUT.observe(done - since)

    def _handle(self, kind: str, item: Any) -> Iterator[None]:
        """Deliver one item, yielding after each chunk of ``SPECTATOR_CHUNK`` sockets
        (the caller gives the event loop its turn there)."""
        if kind == "delta":
            yield from self._deliver(item)
        elif kind == "prompt":
            seat, seq, msg = item
            frames: dict[bool, Frame] = {}
            for conn in tuple(self.seat_connections(seat)):
                if conn.seq == seq:
                    if conn.binary not in frames:
                        frames[conn.binary] = protocol.encode(msg, conn.binary)
                    conn.push(frames[conn.binary])
        elif kind in ("table", "message"):
            msg = {"t": "table", "table": item} if kind == "table" else item
            frames = {}
            conns = tuple(self.connections())
            for i, conn in enumerate(conns):
                if conn.binary not in frames:
                    frames[conn.binary] = protocol.encode(msg, conn.binary)
                conn.push(frames[conn.binary])
                if i % SPECTATOR_CHUNK == SPECTATOR_CHUNK - 1 and i + 1 < len(conns):
                    yield

    def _deliver(self, batch: list[Delta]) -> Iterator[None]:
        """Hand consecutive deltas to every socket that has seen the one before them (a
        socket welcomed later skips those its welcome covered): players first, then
        spectators in chunks, yielding between them."""
        joined: dict[tuple[int | None, bool, int], tuple[list[Frame], bytes]] = {}
        delivered = direct = 0
        size = len(batch)  # once, not per socket

        def deliver(conn: Connection, key: int | None) -> None:
            nonlocal delivered, direct
            start = 0
            while start < size and batch[start].seq <= conn.seq:
                start += 1
            if start == size or batch[start].first != conn.seq + 1:
                return  # nothing new, or not the delta after the socket's seq
            got = joined.get((key, conn.binary, start))
            if got is None:
                if start == size - 1:  # one delta (nearly always): no joins
                    one = batch[start].prepared(key, conn.binary)
                    got = ([one[0]], one[1]) if one is not None else ([], b"")
                else:
                    prepared = [p for d in batch[start:]
                                if (p := d.prepared(key, conn.binary)) is not None]
                    got = ([p[0] for p in prepared], b"".join(p[1] for p in prepared))
                joined[(key, conn.binary, start)] = got
            payloads, wire = got
            if payloads:
                if conn.push_many(payloads, wire):
                    direct += len(payloads)
                delivered += len(payloads)
            conn.seq = batch[-1].seq

        for seat, conns in tuple(self.players.items()):
            for conn in tuple(conns):
                deliver(conn, seat)
        spectators = tuple(self.spectators)
        for start in range(0, len(spectators), SPECTATOR_CHUNK):
            for conn in spectators[start:start + SPECTATOR_CHUNK]:
                deliver(conn, None)
            if start + SPECTATOR_CHUNK < len(spectators):
                yield
        metrics.DELIVERIES.inc(delivered)
        metrics.DIRECT_WRITES.inc(direct)
