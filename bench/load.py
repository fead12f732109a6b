"""Load generator for the live service: real tables, real websocket players and spectators.

Run against a service that is already up (``--url``, ``--redis-url``, ``--server-pid``) or
let it start its own (``--spawn-server``: a private ``redis-server`` on a free port and
``python -m cli serve`` pinned to core 1, the generator pinned to core 0)::

    .venv/bin/python -m bench.load --spawn-server --tables 1000 --spectators 4 \\
        --rate 1 --duration 60 --json /tmp/load.json

What it does, per table: create it (HTTP lobby API), join every seat (one token each),
connect one websocket per seat and ``--spectators`` spectator sockets, start it, then act
at ``--rate`` actions per second (jittered): the seat the server prompted picks a random
action from the ``legal_actions`` of its ``prompt`` and sends it, so every action crosses
the wire and the full validated path. When a game ends a new table takes its place (unless
``--until-end``), so the load stays steady for ``--duration`` seconds.

What it measures (one process, ``time.perf_counter_ns``):

- accepted actions per second (acks inside the measured window);
- action latency: send of the ``action`` frame to receipt of its ``ack``;
- delta delivery latency to players and to spectators: the action's send time, keyed by
  table and the ``seq`` of its ack, to the receipt of the ``deltas`` frame ending at that
  ``seq`` on each socket (one frame per action: the socket has the whole effect);
- gaps, duplicates and missing deltas per socket (all must be 0), errors by code;
- the server's CPU seconds per 1,000 accepted actions, its share of one core and its RSS
  (psutil on ``--server-pid`` or the process listening on the port);
- Redis commands per accepted action from ``INFO commandstats`` taken before and after
  the window (script calls: ``evalsha``/``eval``/``fcall``; commands a script runs inside
  Redis are counted by Redis too and are listed separately, they are not round trips).

Everything is printed as a short report and, with ``--json FILE``, written as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import platform
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgpack
import psutil
import redis
import uvloop
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import ClientConnection, connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from engine import get_game
from server.store.client import connect_sync

REPO = Path(__file__).resolve().parents[1]
FANOUT_METRIC = "cardtable_fanout_seconds"

OWN_COMMANDS = frozenset({"info", "hello", "monitor", "client|setinfo", "client", "cluster",
                          "cluster|slots", "cluster|nodes", "cluster|shards", "command",
                          "command|docs", "command|info", "command|count", "readonly",
                          # a replica's acknowledgements and a master's pings to it
                          "replconf", "ping"})
"""Commands of the measuring connections themselves, left out of every count."""

SCRIPT_COMMANDS = ("evalsha", "eval", "evalsha_ro", "eval_ro", "fcall", "fcall_ro")
"""Commands that run a server-side script: one round trip each, whatever the script does."""


# --------------------------------------------------------------------------- statistics


def percentile(sorted_values: Sequence[int] | array, q: float) -> int | None:
    """The nearest-rank ``q``-quantile (``0 < q <= 1``) of ascending ``sorted_values``.

    Nearest rank: the smallest value with at least ``q`` of the values at or below it, so
    p100 is the maximum and every reported figure is a latency that really occurred.
    ``None`` for no values. Raises ``ValueError`` for ``q`` outside ``(0, 1]``.
    """
    if not 0 < q <= 1:
        raise ValueError(f"quantile must be in (0, 1], got {q}")
    n = len(sorted_values)
    if n == 0:
        return None
    rank = -(-round(q * n * 1_000_000) // 1_000_000)  # ceil(q*n) without float drift
    return sorted_values[max(rank, 1) - 1]


def summarize_ns(values: Iterable[int]) -> dict[str, float | int | None]:
    """``{"n", "p50", "p95", "p99", "max"}`` of nanosecond samples, in milliseconds."""
    ordered = sorted(values)

    def ms(v: int | None) -> float | None:
        return None if v is None else round(v / 1e6, 3)

    return {
        "n": len(ordered),
        "p50": ms(percentile(ordered, 0.50)),
        "p95": ms(percentile(ordered, 0.95)),
        "p99": ms(percentile(ordered, 0.99)),
        "max": ms(ordered[-1] if ordered else None),
    }


class SeqTracker:
    """Checks one socket's stream of ``deltas`` frames: each must start where the one
    before ended (its ``prev`` is ``last``).

    ``last`` starts at the seq of the ``welcome``. A frame ending at or below ``last`` is
    a duplicate; one whose ``prev`` is not ``last`` follows a gap (counted once). After a
    gap the tracker follows the stream again from the new seq.
    """

    __slots__ = ("duplicates", "gaps", "last")

    def __init__(self, last: int = 0) -> None:
        self.last = last
        self.gaps = 0
        self.duplicates = 0

    def welcome(self, seq: int) -> None:
        """A (re)``welcome`` at ``seq``: deltas continue from ``seq + 1``."""
        self.last = seq

    def see(self, seq: int, prev: int | None = None) -> bool:
        """Record a frame ending at ``seq`` whose patch applies to ``prev`` (default
        ``seq - 1``: one event); returns False for a duplicate (True: new, in order or
        not)."""
        if seq <= self.last:
            self.duplicates += 1
            return False
        if (seq - 1 if prev is None else prev) != self.last:
            self.gaps += 1
        self.last = seq
        return True


class DeliveryClock:
    """Matches delta receipts on every socket of one table to the action that caused them.

    ``sent(seq, t)`` is called when an ack says the action sent at ``t`` (ns) brought the
    table to ``seq``; ``received(seq, t, spectator)`` for every delta receipt. A delta may
    arrive before its ack, so receipts above the last acked seq wait in ``pending`` until
    the ack comes; receipts of seqs no ack names (the other events of a multi-event action,
    the events of the start) are dropped. Latencies go to the shared ``players`` and
    ``spectators`` arrays (ns), only while ``stats.recording``. With ``spectators`` > 0,
    the latency of the latest of an action's ``spectators`` spectator receipts (the last
    spectator has it) goes to ``last_spectator`` once all of them came.
    """

    __slots__ = ("acked", "pending", "seen", "sent_at", "spectators", "stats")

    def __init__(self, stats: Stats, spectators: int = 0) -> None:
        self.stats = stats
        self.spectators = spectators
        self.sent_at: dict[int, int] = {}
        self.pending: dict[int, list[tuple[int, bool]]] = {}
        self.seen: dict[int, tuple[int, int]] = {}  # seq -> (spectator receipts, latest)
        self.acked = 0

    def sent(self, seq: int, t_send: int) -> None:
        """The ack of an action sent at ``t_send`` named ``seq``."""
        self.sent_at[seq] = t_send
        if seq > self.acked:
            self.acked = seq
        if self.pending:
            for s in [s for s in self.pending if s <= seq]:
                waiting = self.pending.pop(s)
                if s == seq:
                    for t_recv, spectator in waiting:
                        self._record(seq, t_recv - t_send, spectator)

    def received(self, seq: int, t_recv: int, spectator: bool) -> None:
        """A socket received the delta ``seq`` at ``t_recv``."""
        t_send = self.sent_at.get(seq)
        if t_send is not None:
            self._record(seq, t_recv - t_send, spectator)
        elif seq > self.acked:
            self.pending.setdefault(seq, []).append((t_recv, spectator))

    def _record(self, seq: int, latency: int, spectator: bool) -> None:
        if not self.stats.recording:
            return
        (self.stats.spectator_delivery if spectator else self.stats.player_delivery).append(
            latency
        )
        if spectator and self.spectators:
            n, latest = self.seen.pop(seq, (0, 0))
            n, latest = n + 1, max(latest, latency)
            if n == self.spectators:
                self.stats.last_spectator.append(latest)
            else:
                self.seen[seq] = (n, latest)


@dataclass
class Stats:
    """Counters shared by every table of a run; only ``recording`` time counts."""

    recording: bool = False
    action_latency: array = field(default_factory=lambda: array("q"))
    player_delivery: array = field(default_factory=lambda: array("q"))
    spectator_delivery: array = field(default_factory=lambda: array("q"))
    last_spectator: array = field(default_factory=lambda: array("q"))
    accepted: int = 0
    deliveries: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    gaps: int = 0
    duplicates: int = 0
    missing: int = 0
    tables_started: int = 0
    tables_ended: int = 0
    sockets_opened: int = 0
    accepted_by_table: dict[str, int] = field(default_factory=dict)

    def error(self, code: str) -> None:
        """Count one error (protocol or engine code, ``closed:<code>``, ``http:<status>``…)."""
        self.errors[code] = self.errors.get(code, 0) + 1


# --------------------------------------------------------------------------- clients


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


class TableRun:
    """One table of the load: lobby setup, sockets, and the driver that acts at the rate."""

    def __init__(self, cfg: LoadConfig, stats: Stats, http: httpx.AsyncClient,
                 rng: random.Random) -> None:
        self.cfg = cfg
        self.stats = stats
        self.http = http
        self.rng = rng
        self.base_url = cfg.url
        self.id = ""
        self.players: list[TableSocket | LightSocket] = []
        self.spectators: list[TableSocket | LightSocket] = []
        self.clock = DeliveryClock(stats, cfg.spectators)
        self.prompt: tuple[TableSocket | LightSocket, dict[str, Any]] | None = None
        self.wake = asyncio.Event()
        self.ended = False
        self.final_seq: int | None = None
        self.waiting: dict[str, tuple[asyncio.Future, int]] = {}
        self.counter = itertools.count(1)
        self.accepted = 0

    # ---- lobby
    async def _post(self, path: str, body: dict[str, Any] | None = None,
                    token: str | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else None
        for attempt in range(20):
            r = await self.http.post(path, json=body or {}, headers=headers)
            if r.status_code == 429 and attempt < 19:
                self.stats.error("http:429(retried)")
                await asyncio.sleep(0.05 * (attempt + 1))
                continue
            if r.status_code >= 400:
                self.stats.error(f"http:{r.status_code}")
                raise RuntimeError(f"POST {path}: {r.status_code} {r.text[:200]}")
            return r.json()
        raise AssertionError("unreachable")

    async def setup(self) -> None:
        """Create the table, take every seat, connect all sockets, then start the game."""
        cfg = self.cfg
        summary = await self._post("/api/tables", {
            "game": cfg.game, "seats": cfg.players, "options": {}, "name": "load"})
        self.id = summary["id"]
        tokens = []
        for i in range(cfg.players):
            joined = await self._post(f"/api/tables/{self.id}/join", {"name": f"p{i}"})
            tokens.append((joined["seat"], joined["token"]))
        kind = LightSocket if cfg.client == "sansio" else TableSocket
        self.players = [kind(self, token, seat) for seat, token in tokens]
        self.spectators = [kind(self, None, None) for _ in range(cfg.spectators)]
        await asyncio.gather(*(s.open(cfg.source_for(i))
                               for i, s in enumerate(self.players + self.spectators)))
        await self._post(f"/api/tables/{self.id}/start", {}, token=summary["owner_token"])
        self.stats.tables_started += 1

    # ---- events from the sockets
    def prompted(self, sock: TableSocket | LightSocket, msg: dict[str, Any]) -> None:
        """The server prompted ``sock``'s seat with its legal actions (listed, or the game's
        compact ``legal_form``)."""
        if msg.get("legal_actions") or msg.get("legal_form"):
            self.prompt = (sock, msg)
            self.wake.set()

    def acked(self, msg: dict[str, Any], now: int) -> None:
        """An ack for one of our actions: resolve its waiter, stamp its seq."""
        entry = self.waiting.pop(msg.get("id"), None)
        if entry is None:
            self.stats.error("unexpected_ack")
            return
        fut, t_send = entry
        seq = msg["seq"]
        self.clock.sent(seq, t_send)
        if self.stats.recording:
            self.accepted += 1
            self.stats.accepted += 1
            self.stats.action_latency.append(now - t_send)
        if not fut.done():
            fut.set_result(seq)

    def failed(self, msg: dict[str, Any]) -> None:
        """An error frame: count it and fail its action's waiter, if any."""
        self.stats.error(str(msg.get("code")))
        entry = self.waiting.pop(msg.get("id"), None) if msg.get("id") else None
        if entry is not None and not entry[0].done():
            entry[0].set_exception(RuntimeError(msg.get("code")))

    def game_over(self, seq: int | None) -> None:
        """The game ended (``game_ended`` delta or an ``ended`` table summary)."""
        if not self.ended:
            self.ended = True
            if seq is not None:
                self.final_seq = seq
            self.wake.set()

    # ---- the driver
    async def drive(self, stop_at: float, stop_seq: int | None = None) -> None:
        """Act at the configured rate until the game ends, ``stop_at`` (perf_counter s) or
        (with ``stop_seq``) an ack at or beyond that seq."""
        cfg = self.cfg
        interval = 1.0 / cfg.rate if cfg.rate > 0 else 0.0
        next_at = time.perf_counter() + self.rng.uniform(0, interval)
        failures = 0
        while not self.ended:
            now = time.perf_counter()
            if now >= stop_at or (stop_seq is not None and self.clock.acked >= stop_seq):
                return
            if interval:
                if next_at > now:
                    await asyncio.sleep(min(next_at - now, stop_at - now))
                    continue
                if now - next_at > interval:  # far behind (a slow ack): no catch-up burst
                    next_at = now
            if self.prompt is None:
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), max(0.01, stop_at - now))
                continue
            sock, prompt = self.prompt
            self.prompt = None
            listed = prompt.get("legal_actions") or [
                a.to_dict() for a in get_game(cfg.game).expand_form(prompt["legal_form"])]
            action = dict(self.rng.choice(listed))
            code = await self._act(sock, str(next(self.counter)), action)
            if code is None:
                failures = 0
            else:
                failures += 1
                if failures > 20:
                    self.stats.error("table_abandoned")
                    return
                # an error sends no new prompt: retry from the same one after a pause
                await asyncio.sleep(0.05 * failures)
                if self.prompt is None:
                    self.prompt = (sock, prompt)
            if interval:
                jitter = cfg.jitter
                next_at += interval * self.rng.uniform(1 - jitter, 1 + jitter)

    async def _act(self, sock: TableSocket | LightSocket, action_id: str,
                   action: dict[str, Any]) -> str | None:
        """Send one action and wait for its ack; returns ``None`` once acked, else the error
        code. After ``unavailable`` (the store did not confirm) the same id is sent again,
        as the protocol allows: the server applies an id at most once. The latency runs
        from the first send."""
        t_send = time.perf_counter_ns()
        for attempt in range(10):
            fut = asyncio.get_running_loop().create_future()
            self.waiting[action_id] = (fut, t_send)
            await sock.send({"t": "action", "id": action_id, "action": action})
            try:
                await asyncio.wait_for(fut, self.cfg.ack_timeout)
                return None
            except TimeoutError:
                self.waiting.pop(action_id, None)
                self.stats.error("ack_timeout")
                return "ack_timeout"
            except RuntimeError as e:
                if str(e) != "unavailable":
                    return str(e)
                await asyncio.sleep(0.05 * (attempt + 1))
        return "unavailable"

    async def finish(self, timeout: float = 5.0) -> None:
        """Wait until every socket has every acked delta, count the missing, close all."""
        target = self.final_seq if self.final_seq is not None else self.clock.acked
        sockets = self.players + self.spectators
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if all(s.tracker.last >= target or not s.alive for s in sockets):
                break
            await asyncio.sleep(0.02)
        for s in sockets:
            if s.tracker.last < target:
                self.stats.missing += target - s.tracker.last
        await asyncio.gather(*(s.close() for s in sockets))
        if self.ended:
            self.stats.tables_ended += 1
        self.stats.accepted_by_table[self.id] = self.accepted


# --------------------------------------------------------------------------- the run


@dataclass
class LoadConfig:
    """Parameters of one load run (see ``--help`` for each)."""

    url: str = "http://127.0.0.1:8000"
    game: str = "einauge"
    tables: int = 10
    players: int = 4
    spectators: int = 4
    rate: float = 1.0
    jitter: float = 0.5
    duration: float = 30.0
    warmup: float = 2.0
    until_end: bool = False
    setup_concurrency: int = 50
    ack_timeout: float = 10.0
    redis_url: str | None = None
    server_pid: int | None = None
    server_pids: tuple[int, ...] = ()
    """Several server processes (behind a balancer): each one's CPU is measured
    (``servers`` in the result); ``server_pid`` is ignored then."""
    seed: int = 1
    sources: int = 1
    redis_monitor: bool = False
    client: str = "sansio"

    def source_for(self, i: int) -> str | None:
        """The loopback source address for socket ``i`` (spreads many sockets over
        127.0.0.1 … 127.0.0.N so per-address limits and port ranges are not hit)."""
        if self.sources <= 1:
            return None
        return f"127.0.0.{1 + i % self.sources}"


def server_histogram(url: str, name: str) -> dict[float, float]:
    """``{upper bound (s): cumulative count}`` of histogram ``name`` from the service's
    ``/metrics`` (empty when it cannot be read)."""
    try:
        text = httpx.get(f"{url}/metrics", timeout=10).text
    except httpx.HTTPError:
        return {}
    for family in text_string_to_metric_families(text):
        if family.name == name:
            return {float(sample.labels["le"]): sample.value for sample in family.samples
                    if sample.name == f"{name}_bucket"}
    return {}


def histogram_figures(before: dict[float, float], after: dict[float, float]
                      ) -> dict[str, Any] | None:
    """Count and p50/p99 of the observations between two ``server_histogram`` readings;
    a quantile is given as the upper bound of its bucket, in ms (``None``: above the
    largest finite bound)."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    total = counts[-1] if counts else 0
    if not total:
        return None

    def quantile(q: float) -> float | None:
        for bound, cumulative in zip(bounds, counts, strict=True):
            if cumulative >= q * total:
                return None if bound == float("inf") else round(bound * 1000, 3)
        return None

    return {"n": int(total), "p50_at_most_ms": quantile(0.5), "p99_at_most_ms": quantile(0.99)}


def redis_commandstats(url: str) -> dict[str, int]:
    """``{command: calls}`` from Redis ``INFO commandstats`` (``OWN_COMMANDS`` left out);
    on a Redis Cluster the sum over its masters."""
    client = connect_sync(url)
    try:
        if isinstance(client, redis.RedisCluster):
            infos = list(client.info("commandstats",
                                     target_nodes=redis.RedisCluster.PRIMARIES).values())
        else:
            infos = [client.info("commandstats")]
    finally:
        client.close()
    calls: dict[str, int] = {}
    for info in infos:
        for key, value in info.items():
            name = key.removeprefix("cmdstat_")
            if name not in OWN_COMMANDS:
                calls[name] = calls.get(name, 0) + int(value["calls"])
    return calls


def commandstats_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """Calls per command between two ``redis_commandstats`` snapshots (zeros left out)."""
    out = {}
    for name in set(before) | set(after):
        d = after.get(name, 0) - before.get(name, 0)
        if d:
            out[name] = d
    return dict(sorted(out.items()))


def redis_figures(delta: dict[str, int], accepted: int) -> dict[str, Any]:
    """Redis calls per accepted action from a ``commandstats_delta``.

    ``INFO commandstats`` counts the commands a script runs inside Redis as well, so
    ``commands_per_action`` over-counts round trips; ``script_calls_per_action`` counts
    ``EVALSHA``/``EVAL``/``FCALL`` (one round trip each). ``RedisMonitor`` tells the two
    kinds apart exactly.
    """
    scripts = sum(delta.get(c, 0) for c in SCRIPT_COMMANDS)
    total = sum(delta.values())
    per = (lambda n: round(n / accepted, 3)) if accepted else (lambda n: None)
    return {
        "commands": delta,
        "script_calls": scripts,
        "script_calls_per_action": per(scripts),
        "commands_per_action": per(total),
    }


def parse_monitor_line(line: str) -> tuple[str, str] | None:
    """``(source, command)`` of one ``MONITOR`` line; source is ``lua`` or ``client``.

    Format: ``1701290000.123456 [0 127.0.0.1:50000] "evalsha" "…" …`` (``[0 lua]`` for a
    command run by a script). ``None`` for anything else (``OK``, blank lines).
    """
    open_b = line.find("[")
    close_b = line.find("]", open_b + 1)
    if open_b < 0 or close_b < 0:
        return None
    where = line[open_b + 1:close_b].split(" ", 1)
    rest = line[close_b + 1:].lstrip()
    if not rest.startswith('"'):
        return None
    command = rest[1:rest.find('"', 1)].lower()
    return ("lua" if len(where) > 1 and where[1] == "lua" else "client"), command


class RedisMonitor:
    """Counts Redis commands by source (client round trip vs. inside a script) with
    ``redis-cli MONITOR`` writing to a file, parsed at ``stop()``.

    MONITOR slows Redis down; use it in a run of its own, not for latency figures.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        fd, name = tempfile.mkstemp(prefix="einauge-monitor-", suffix=".txt")
        os.close(fd)
        self.path = Path(name)
        self.proc: subprocess.Popen | None = None
        self.began = 0.0

    def start(self) -> None:
        """Begin recording (returns once MONITOR answered)."""
        cli = shutil.which("redis-cli")
        if cli is None:
            raise RuntimeError("redis-cli not found (it comes with the redis-tools package)")
        with self.path.open("wb") as out:
            self.proc = subprocess.Popen([cli, "-u", self.url, "monitor"], stdout=out,
                                         stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while self.path.stat().st_size == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.began = time.monotonic()

    def stop(self, accepted: int) -> dict[str, Any]:
        """End recording; client commands (round trips) and script commands per action,
        and ``seconds`` recorded (to rate the periodic commands: the deadline scan and the
        presence refresh run on timers, not per action)."""
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait()
        seconds = time.monotonic() - self.began
        counts: dict[str, dict[str, int]] = {"client": {}, "lua": {}}
        with self.path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                parsed = parse_monitor_line(line)
                if parsed is None or parsed[1] in OWN_COMMANDS:
                    continue
                source, command = parsed
                counts[source][command] = counts[source].get(command, 0) + 1
        self.path.unlink(missing_ok=True)
        clients = sum(counts["client"].values())
        per = (lambda n: round(n / accepted, 3)) if accepted else (lambda n: None)
        return {
            "client_commands": dict(sorted(counts["client"].items())),
            "script_commands": dict(sorted(counts["lua"].items())),
            "client_commands_per_action": per(clients),
            "seconds": round(seconds, 3),
        }


def find_server_pid(port: int) -> int | None:
    """The pid of the process listening on TCP ``port`` (needs to see its sockets)."""
    for conn in psutil.net_connections(kind="tcp"):
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
            return conn.pid
    return None


def raise_nofile(wanted: int) -> int:
    """Raise this process's open-file limit to ``wanted`` (hard too, if allowed: it needs
    CAP_SYS_RESOURCE; without it the soft limit goes up to the hard one).

    Returns the soft limit in force afterwards.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(hard, wanted)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def machine() -> dict[str, Any]:
    """CPU model, core count, memory, kernel and Python of this machine."""
    model = platform.processor()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "kernel": platform.release(),
        "python": platform.python_version(),
    }


class ServerProbe:
    """CPU time, bytes written and RSS of the server process between ``start()`` and
    ``stop()`` (psutil reads ``/proc/PID/stat``, ``/proc/PID/io`` and ``/proc/PID/status``).
    Bytes written are ``wchar``: every byte the process handed to ``write``-like calls,
    its sockets' frames to clients and to Redis as well as its log lines."""

    def __init__(self, pid: int | None) -> None:
        self.proc = psutil.Process(pid) if pid else None
        self.cpu0 = 0.0
        self.t0 = 0.0
        self.rss_start = 0
        self.rss_peak = 0
        self.wchar0 = 0
        self.task: asyncio.Task | None = None

    def _cpu(self) -> float:
        assert self.proc is not None
        t = self.proc.cpu_times()
        return t.user + t.system

    def _wchar(self) -> int:
        assert self.proc is not None
        with contextlib.suppress(psutil.Error, AttributeError):
            return self.proc.io_counters().write_chars
        return 0

    async def _sample(self) -> None:
        assert self.proc is not None
        while True:
            with contextlib.suppress(psutil.Error):
                self.rss_peak = max(self.rss_peak, self.proc.memory_info().rss)
            await asyncio.sleep(0.5)

    def start(self) -> None:
        """Begin the window."""
        if self.proc is None:
            return
        self.cpu0 = self._cpu()
        self.wchar0 = self._wchar()
        self.t0 = time.perf_counter()
        self.rss_start = self.rss_peak = self.proc.memory_info().rss
        self.task = asyncio.create_task(self._sample())

    def stop(self, accepted: int, deliveries: int = 0) -> dict[str, Any] | None:
        """End the window: CPU seconds (per 1,000 accepted actions, per delivered delta),
        core share, RSS."""
        if self.proc is None:
            return None
        if self.task:
            self.task.cancel()
        cpu = self._cpu() - self.cpu0
        wrote = self._wchar() - self.wchar0
        wall = time.perf_counter() - self.t0
        rss = self.proc.memory_info().rss
        return {
            "pid": self.proc.pid,
            "cpu_s": round(cpu, 3),
            "cpu_s_per_1000_actions": round(1000 * cpu / accepted, 3) if accepted else None,
            # all the server's work (actions included) per delta frame a socket received
            "cpu_us_per_delivery": round(1e6 * cpu / deliveries, 2) if deliveries else None,
            "core_share": round(cpu / wall, 3) if wall else None,
            "bytes_written": wrote,
            "bytes_per_delivery": round(wrote / deliveries, 1) if deliveries else None,
            "rss_mib_start": round(self.rss_start / 2**20, 1),
            "rss_mib_end": round(rss / 2**20, 1),
            "rss_mib_peak": round(max(self.rss_peak, rss) / 2**20, 1),
        }


async def run_load(cfg: LoadConfig) -> dict[str, Any]:
    """Run one load test against ``cfg.url``; returns the result dict (see module doc)."""
    stats = Stats()
    rng = random.Random(cfg.seed)
    host = machine()  # before the run: its load average shows what else ran
    warmup = 0.0 if cfg.until_end else cfg.warmup
    raise_nofile((cfg.players + cfg.spectators) * cfg.tables * 2 + 1024)
    limits = httpx.Limits(max_connections=cfg.setup_concurrency,
                          max_keepalive_connections=cfg.setup_concurrency)
    gate = asyncio.Semaphore(cfg.setup_concurrency)
    tasks: set[asyncio.Task] = set()

    async with httpx.AsyncClient(base_url=cfg.url, limits=limits, timeout=60) as http:

        async def lifecycle(first: bool) -> None:
            table = TableRun(cfg, stats, http, random.Random(rng.random()))
            try:
                async with gate:
                    await table.setup()
            except Exception as e:
                stats.error(f"setup:{type(e).__name__}")
                await asyncio.gather(*(s.close() for s in table.players + table.spectators))
                return
            if first:
                await started.wait()
            await table.drive(stop_at_box[0])
            await table.finish()
            if table.ended and not cfg.until_end and time.perf_counter() < stop_at_box[0] - 1:
                spawn(False)

        def spawn(first: bool) -> None:
            task = asyncio.create_task(lifecycle(first))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        started = asyncio.Event()
        stop_at_box = [float("inf")]
        t_setup = time.perf_counter()
        for _ in range(cfg.tables):
            spawn(True)
        # wait until every first table is set up (they block on `started`)
        while stats.tables_started + sum(v for k, v in stats.errors.items()
                                         if k.startswith("setup:")) < cfg.tables:
            await asyncio.sleep(0.05)
        setup_s = time.perf_counter() - t_setup
        t0 = time.perf_counter()
        stop_at_box[0] = t0 + warmup + cfg.duration if not cfg.until_end else float("inf")
        started.set()

        await asyncio.sleep(warmup)
        probe = ServerProbe(cfg.server_pid if not cfg.server_pids else None)
        probes = [ServerProbe(pid) for pid in cfg.server_pids]
        me = psutil.Process()
        fanout_before = await asyncio.to_thread(server_histogram, cfg.url, FANOUT_METRIC)
        monitor = RedisMonitor(cfg.redis_url) if cfg.redis_url and cfg.redis_monitor else None
        if monitor:
            monitor.start()
        # From the Redis counters to `recording` no await: the drivers act only while the
        # loop runs, so the script calls and the acks counted cover the same window (up to
        # one action in flight per table at each edge). An await here (the fan-out read
        # was one) let actions through that Redis counted and the acks did not.
        my_cpu0 = sum(me.cpu_times()[:2])
        redis_before = redis_commandstats(cfg.redis_url) if cfg.redis_url else None
        tables_before = stats.tables_started
        stats.recording = True
        probe.start()
        for p in probes:
            p.start()
        w0 = time.perf_counter()
        if cfg.until_end:
            while tasks:
                await asyncio.wait(list(tasks))
        else:
            await asyncio.sleep(max(0.0, stop_at_box[0] - time.perf_counter()))
        window = time.perf_counter() - w0
        stats.recording = False
        server = probe.stop(stats.accepted, stats.deliveries)
        servers = [p.stop(stats.accepted, stats.deliveries) for p in probes]
        my_cpu = sum(me.cpu_times()[:2]) - my_cpu0
        redis_after = redis_commandstats(cfg.redis_url) if cfg.redis_url else None
        monitored = monitor.stop(stats.accepted) if monitor else None
        # Only now may the loop run again (the drivers close their sockets at the stop).
        fanout_after = await asyncio.to_thread(server_histogram, cfg.url, FANOUT_METRIC)
        tables_in_window = stats.tables_started - tables_before
        # let the drivers notice the stop, deliver the last deltas, and close
        if tasks:
            await asyncio.wait(list(tasks), timeout=cfg.ack_timeout + 10)
        for task in list(tasks):
            task.cancel()

    result: dict[str, Any] = {
        "kind": "load",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": host,
        "config": asdict(cfg),
        "setup_s": round(setup_s, 2),
        "window_s": round(window, 3),
        "tables_started": stats.tables_started,
        "tables_started_in_window": tables_in_window,
        "tables_ended": stats.tables_ended,
        "sockets_opened": stats.sockets_opened,
        "accepted_actions": stats.accepted,
        "accepted_by_table": stats.accepted_by_table,
        "actions_per_s": round(stats.accepted / window, 1) if window else None,
        "action_latency_ms": summarize_ns(stats.action_latency),
        "delivery_latency_ms": {
            "players": summarize_ns(stats.player_delivery),
            "spectators": summarize_ns(stats.spectator_delivery),
            "last_spectator": summarize_ns(stats.last_spectator),
        },
        "deliveries": stats.deliveries,
        "deliveries_per_s": round(stats.deliveries / window, 1) if window else None,
        "errors": sum(v for k, v in stats.errors.items() if not k.endswith("(retried)")),
        "errors_by_code": dict(sorted(stats.errors.items())),
        "gaps": stats.gaps,
        "duplicates": stats.duplicates,
        "missing": stats.missing,
        "server": server,
        "servers": servers,
        "server_fanout_ms": histogram_figures(fanout_before, fanout_after),
        "generator": {"cpu_s": round(my_cpu, 3),
                      "core_share": round(my_cpu / window, 3) if window else None},
        "redis": (redis_figures(commandstats_delta(redis_before, redis_after), stats.accepted)
                  if redis_before is not None and redis_after is not None else None),
        "redis_monitor": monitored,
    }
    return result


# --------------------------------------------------------------------------- spawning


def free_ports(n: int = 1) -> list[int]:
    """``n`` distinct TCP ports on 127.0.0.1 that nothing listens on right now (all bound
    at once, so the kernel cannot hand out the same one twice)."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(n):
            s = stack.enter_context(socket.socket())
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
        return ports


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    return free_ports(1)[0]


def _limits(nofile: int, nice: int = 0):
    def apply() -> None:  # runs in the child before exec
        raise_nofile(nofile)
        if nice:
            os.nice(nice)
    return apply


def wait_port(port: int, timeout: float = 20.0, proc: subprocess.Popen | None = None) -> None:
    """Block until something accepts on 127.0.0.1:``port``; raises ``RuntimeError``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


BENCH_ENV = {
    "CARDTABLE_TABLES_PER_HOUR": "1000000000",
    "CARDTABLE_CONNS_PER_ADDR": "1000000",
    "CARDTABLE_RATE_PER_S": "10000",
    "CARDTABLE_RATE_BURST": "10000",
}
"""Server limits raised for a benchmark: every client here is one loopback address and the
players act faster than a person. Everything else keeps the service's defaults."""


class SpawnedService:
    """A private ``redis-server`` and ``python -m cli serve`` for one benchmark run.

    The server runs pinned to ``server_core`` (``taskset``) with ``RLIMIT_NOFILE`` raised
    to ``nofile``; Redis runs on ``redis_core``. Data lives in a temporary folder that is
    removed on ``stop()``. ``serve_args`` are extra arguments for ``cardtable serve``;
    ``command`` replaces ``python -m cli`` and ``server_dir`` (default: this checkout) is
    where it runs, to measure another checkout of the server; ``nice``
    (negative: higher priority, needs root) is applied to Redis and the server, for a
    machine that other work shares.
    """

    def __init__(self, server_core: int | None = 1, redis_core: int | None = 0,
                 nofile: int = 65536, serve_args: Sequence[str] = (),
                 env: dict[str, str] | None = None,
                 command: Sequence[str] | None = None, nice: int = 0,
                 server_dir: Path | None = None) -> None:
        self.server_core = server_core
        self.redis_core = redis_core
        self.nofile = nofile
        self.serve_args = list(serve_args)
        self.env = env or {}
        self.command = list(command or [sys.executable, "-m", "cli"])
        self.nice = nice
        self.server_dir = server_dir or REPO
        self.tmp = Path(tempfile.mkdtemp(prefix="einauge-bench-"))
        self.redis_port, self.port = free_ports(2)
        self.redis: subprocess.Popen | None = None
        self.server: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """The service's HTTP base address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def redis_url(self) -> str:
        """The Redis address the service uses."""
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def _pin(self, core: int | None) -> list[str]:
        if core is None or shutil.which("taskset") is None or core >= (os.cpu_count() or 1):
            return []
        return ["taskset", "-c", str(core)]

    def start(self) -> SpawnedService:
        """Start Redis, then the server; returns once both accept connections."""
        redis_bin = shutil.which("redis-server")
        if redis_bin is None:
            raise RuntimeError("redis-server not found: apt-get install redis-server")
        self.redis = subprocess.Popen(
            [*self._pin(self.redis_core), redis_bin, "--port", str(self.redis_port),
             "--bind", "127.0.0.1", "--dir", str(self.tmp), "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--maxclients", "10000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=_limits(self.nofile, self.nice),
        )
        wait_port(self.redis_port, proc=self.redis)
        self.start_server()
        return self

    def start_server(self) -> None:
        """Start the server process (again) on the same port and Redis."""
        env = {**os.environ, **BENCH_ENV, "REDIS_URL": self.redis_url, **self.env}
        with (self.tmp / "server.log").open("ab") as log:
            self.server = subprocess.Popen(
                [*self._pin(self.server_core), *self.command, "serve",
                 "--host", "127.0.0.1", "--port", str(self.port), "--redis-url",
                 self.redis_url, *self.serve_args],
                cwd=self.server_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=_limits(self.nofile, self.nice),
            )
        deadline = time.monotonic() + 30
        while True:  # the service itself must answer, not just anything on the port
            if self.server.poll() is not None:
                raise RuntimeError(f"server exited with {self.server.returncode}:\n"
                                   + self.log_tail())
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError("server did not answer /healthz in 30 s:\n" + self.log_tail())
            time.sleep(0.05)

    def restart_server(self) -> None:
        """Stop the server (SIGTERM) and start a fresh process: an empty table cache."""
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(15)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.start_server()

    @property
    def server_pid(self) -> int:
        """The pid of the server process (``taskset`` execs, so it is the Popen's pid)."""
        assert self.server is not None
        return self.server.pid

    def log_tail(self, n: int = 40) -> str:
        """The last ``n`` lines of the server's output."""
        with contextlib.suppress(OSError):
            return "\n".join((self.tmp / "server.log").read_text().splitlines()[-n:])
        return ""

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and Redis; remove the data folder."""
        for proc in (self.server, self.redis):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> SpawnedService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# --------------------------------------------------------------------------- CLI


@contextlib.contextmanager
def prioritized(nice: int):
    """Run the block with this session's scheduler autogroup at ``nice`` (Linux with
    ``sched_autogroup_enabled``: niceness between processes of different sessions only
    counts through their autogroups), restoring the old value afterwards. Processes
    started inside (the server, Redis) share the autogroup. No-op for ``nice == 0`` or
    where the file is missing or not writable."""
    path = Path("/proc/self/autogroup")
    old = None
    if nice:
        with contextlib.suppress(OSError, ValueError, IndexError):
            old = int(path.read_text().split("nice")[1])
            path.write_text(str(nice))
    try:
        yield
    finally:
        if old is not None:
            with contextlib.suppress(OSError):
                path.write_text(str(old))


def pin_self(core: int, nice: int = 0) -> None:
    """Pin this process to one core (no-op where affinity is not supported) and apply
    ``nice`` (negative: higher priority; needs root)."""
    with contextlib.suppress(AttributeError, OSError):
        if core < (os.cpu_count() or 1):
            os.sched_setaffinity(0, {core})
    if nice:
        os.nice(nice)


def format_report(r: dict[str, Any]) -> str:
    """A few human-readable lines from a result dict."""
    lat = r["action_latency_ms"]
    dp = r["delivery_latency_ms"]["players"]
    ds = r["delivery_latency_ms"]["spectators"]
    lines = [
        f"tables {r['config']['tables']} x ({r['config']['players']} players + "
        f"{r['config']['spectators']} spectators), rate {r['config']['rate']}/s per table, "
        f"window {r['window_s']} s (setup {r['setup_s']} s)",
        f"accepted actions: {r['accepted_actions']} ({r['actions_per_s']}/s); "
        f"tables started {r['tables_started']}, ended {r['tables_ended']}",
        f"action latency ms: p50 {lat['p50']} p95 {lat['p95']} p99 {lat['p99']} "
        f"max {lat['max']}",
        f"delivery ms players: p50 {dp['p50']} p99 {dp['p99']} (n {dp['n']}); "
        f"spectators: p50 {ds['p50']} p99 {ds['p99']} (n {ds['n']}); "
        f"{r['deliveries_per_s']} deliveries/s",
        f"errors {r['errors']} {r['errors_by_code']}  gaps {r['gaps']}  "
        f"duplicates {r['duplicates']}  missing {r['missing']}",
        f"generator core share {r['generator']['core_share']}",
    ]
    if r["server"]:
        s = r["server"]
        lines.append(
            f"server: {s['cpu_s_per_1000_actions']} CPU s per 1,000 actions "
            f"({s['cpu_us_per_delivery']} us per delivery), core share "
            f"{s['core_share']}, RSS {s['rss_mib_start']} -> {s['rss_mib_end']} MiB "
            f"(peak {s['rss_mib_peak']})")
    if r.get("server_fanout_ms"):
        f = r["server_fanout_ms"]
        lines.append(f"server fan-out per delta (room to last socket): p50 <= "
                     f"{f['p50_at_most_ms']} ms, p99 <= {f['p99_at_most_ms']} ms (n {f['n']})")
    if r["redis"]:
        rd = r["redis"]
        lines.append(
            f"redis per accepted action: script calls {rd['script_calls_per_action']}, "
            f"all commands {rd['commands_per_action']}  {rd['commands']}")
    if r.get("redis_monitor"):
        m = r["redis_monitor"]
        lines.append(
            f"redis MONITOR: client commands (round trips) per action "
            f"{m['client_commands_per_action']}: {m['client_commands']}; "
            f"inside scripts: {m['script_commands']}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m bench.load``."""
    p = argparse.ArgumentParser(prog="bench.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000", help="service base address")
    p.add_argument("--redis-url", help="the service's Redis, for INFO commandstats")
    p.add_argument("--server-pid", type=int, help="server pid (default: found from the port)")
    p.add_argument("--spawn-server", action="store_true",
                   help="start redis-server and `python -m cli serve` (core 1) for this run")
    p.add_argument("--serve-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for `cardtable serve` with --spawn-server (repeatable)")
    p.add_argument("--server-dir", type=Path,
                   help="with --spawn-server: run the server of this checkout (default: this one)")
    p.add_argument("--game", default="einauge", help="the game of every table (default einauge)")
    p.add_argument("--tables", type=int, default=10, help="concurrent tables (default 10)")
    p.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N",
                   help="seats per table, 2-5 (default 4)")
    p.add_argument("--spectators", type=int, default=4, help="spectators per table (default 4)")
    p.add_argument("--rate", type=float, default=1.0,
                   help="actions per second per table; 0 = as fast as acks come (default 1)")
    p.add_argument("--jitter", type=float, default=0.5,
                   help="interval jitter, fraction of the interval (default 0.5)")
    p.add_argument("--duration", type=float, default=30.0, help="measured seconds (default 30)")
    p.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds first")
    p.add_argument("--until-end", action="store_true",
                   help="play the first tables to their end; start no new ones")
    p.add_argument("--setup-concurrency", type=int, default=50,
                   help="tables set up at once (default 50)")
    p.add_argument("--sources", type=int, default=1,
                   help="spread sockets over 127.0.0.1..127.0.0.N (default 1)")
    p.add_argument("--client", choices=("sansio", "asyncio"), default="sansio",
                   help="client sockets: websockets' sans-I/O protocol on asyncio (default, "
                        "cheap per frame) or its asyncio client with a task per socket")
    p.add_argument("--redis-monitor", action="store_true",
                   help="count client vs. script commands with MONITOR (slows Redis)")
    p.add_argument("--seed", type=int, default=1, help="seed of the players' random choices")
    p.add_argument("--nice", type=int, default=0,
                   help="with --spawn-server: niceness of the generator, server and Redis "
                        "(e.g. -15 on a machine shared with other work; needs root)")
    p.add_argument("--generator-core", type=int, default=0,
                   help="core of the generator with --spawn-server (default 0)")
    p.add_argument("--json", type=Path, help="write the result here as JSON")
    return p


def exit_on_sigterm() -> None:
    """Turn SIGTERM into ``SystemExit`` so that spawned servers are stopped on the way out."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load test; prints the report; 1 when gaps, duplicates or errors occurred."""
    args = build_parser().parse_args(argv)
    exit_on_sigterm()
    if args.tables < 1 or args.spectators < 0 or args.rate < 0 or args.duration <= 0:
        raise SystemExit("bench.load: need --tables >= 1, --spectators >= 0, --rate >= 0, "
                         "--duration > 0")
    cfg = LoadConfig(
        url=args.url, game=args.game, tables=args.tables, players=args.players,
        spectators=args.spectators,
        rate=args.rate, jitter=args.jitter, duration=args.duration, warmup=args.warmup,
        until_end=args.until_end, setup_concurrency=args.setup_concurrency,
        redis_url=args.redis_url, server_pid=args.server_pid, seed=args.seed,
        sources=args.sources, redis_monitor=args.redis_monitor, client=args.client,
    )
    nofile = raise_nofile((args.players + args.spectators) * args.tables * 2 + 4096)
    service = None
    tail = ""
    if not args.spawn_server and cfg.server_pid is None:
        port = httpx.URL(cfg.url).port or 80
        cfg.server_pid = find_server_pid(port)
        if cfg.server_pid is None:
            print(f"bench.load: no process found listening on port {port}; "
                  "server CPU and RSS left out (give --server-pid)", file=sys.stderr)
    with prioritized(args.nice if args.spawn_server else 0):
        try:
            if args.spawn_server:
                service = SpawnedService(serve_args=args.serve_arg, nofile=max(nofile, 65536),
                                         nice=args.nice, server_dir=args.server_dir).start()
                cfg.url, cfg.redis_url = service.url, service.redis_url
                cfg.server_pid = service.server_pid
                pin_self(args.generator_core, args.nice)
            result = uvloop.run(run_load(cfg))
        finally:
            if service is not None:
                tail = service.log_tail()
                service.stop()
    print(format_report(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if service is not None and (result["errors"] or result["gaps"]):
        print("--- server log tail ---\n" + tail, file=sys.stderr)
    bad = result["errors"] or result["gaps"] or result["duplicates"] or result["missing"]
    return 1 if bad else 0


if __name__ == "__main__":
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    sys.exit(main())
