"""Test conveniences on the wire's client (``protocol/``: the lobby over httpx, the
websocket ``Connection`` that records every frame, re-exported here under their old names
``Socket``, ``Lobby``, ``Member``, ``pack``, ``unpack``, ``auth``): a player loop that
survives reconnects, seats moved one action at a time, and an ASGI app served by uvicorn
inside the test's own process."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
import time
from collections.abc import AsyncIterator, Collection
from typing import Any

import jsonpatch
import uvicorn

from engine import get_game
from protocol.connection import Connection as Socket
from protocol.connection import ConnectionClosed, InvalidHandshake, dial
from protocol.frames import pack, unpack
from protocol.lobby import Lobby as Lobby
from protocol.lobby import Member as Member
from protocol.lobby import auth as auth
from server.http.header_deadline import HeaderDeadline
from server.store.embedded import free_port
from server.ws.lean_protocol import LeanWebSocketProtocol


@contextlib.asynccontextmanager
async def in_process(app: Any, lifespan: str = "off", http: Any = HeaderDeadline,
                     **config: Any) -> AsyncIterator[int]:
    """Serve ``app`` on a free port of 127.0.0.1 with uvicorn in this process and event
    loop, with the protocols ``cardtable serve`` uses (HTTP: server/http/header_deadline.py's
    ``HeaderDeadline`` unless ``http`` names another; websockets: uvicorn's
    websockets-sans-I/O one, lean: server/ws/lean_protocol.py; no compression); yields the
    port once it accepts connections, shuts down on exit. ``config``: more of
    ``uvicorn.Config``'s arguments."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(
        app, host="127.0.0.1", port=port, ws=LeanWebSocketProtocol, ws_per_message_deflate=False,
        http=http, log_level="warning", lifespan=lifespan, access_log=False, **config))
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if serving.done():
                serving.result()  # raises what stopped it
                raise RuntimeError("uvicorn stopped before it started")
            await asyncio.sleep(0.01)  # polling: uvicorn announces its start by no event
        yield port
    finally:
        server.should_exit = True
        await serving


def prompt_actions(prompt: dict[str, Any], game: str) -> list[dict[str, Any]]:
    """The legal actions a ``prompt`` frame offers, as wire dicts: its ``legal_actions``,
    or its ``legal_form`` expanded by ``game``'s engine (docs/games.md, "Compact
    prompts")."""
    form = prompt.get("legal_form")
    if form is None:
        return prompt["legal_actions"]
    return [a.to_dict() for a in get_game(game).expand_form(form)]


def ended(frame: dict[str, Any]) -> bool:
    """A ``deltas`` frame that carries the game's end."""
    return frame.get("t") == "deltas" and any(
        e["event"]["type"] == "game_ended" for e in frame["events"])


def events_of(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of ``deltas`` frames in order: ``{"seq", "event", "head"}`` each."""
    return [e for f in frames for e in f["events"]]


def has_event(frame: dict[str, Any], pred: Any) -> bool:
    """A ``deltas`` frame with an event (its ``{"seq", "event", "head"}``) for which
    ``pred`` holds."""
    return frame.get("t") == "deltas" and any(pred(e) for e in frame["events"])


def reaches(frame: dict[str, Any], seq: int) -> bool:
    """A ``deltas`` frame that brings its viewer to ``seq`` or beyond."""
    return frame.get("t") == "deltas" and frame["seq"] >= seq


def apply_deltas(view: dict[str, Any] | None, deltas: list[dict[str, Any]]) -> dict[str, Any]:
    """What a thin client does: apply every delta's RFC 6902 patch (``jsonpatch``, as the
    web client does with ``fast-json-patch``) to its last view."""
    doc: Any = copy.deepcopy(view) if view is not None else {}
    for d in deltas:
        doc = jsonpatch.apply_patch(doc, d["patch"])
    return doc


def unheaded(frame: dict[str, Any]) -> dict[str, Any]:
    """A ``deltas`` frame with empty chain heads, as a replay of a record (which stores
    none) computes it."""
    return {**frame, "events": [{**e, "head": ""} for e in frame["events"]]}


def assert_same_history(per_event: list[dict[str, Any]], live: list[dict[str, Any]],
                        start: dict[str, Any] | None = None) -> None:
    """The one-event ``deltas`` frames of ``GET …/deltas`` (or a replay) tell what the
    live frames told (one per append): the same events with the same seqs and heads, and
    folded up to each live frame's seq, the same view as the live frames folded."""
    assert events_of(per_event) == events_of(live)
    assert all(len(f["events"]) == 1 for f in per_event)
    ends = {f["seq"]: i for i, f in enumerate(live)}
    doc: Any = copy.deepcopy(start) if start is not None else {}
    folded: Any = copy.deepcopy(start) if start is not None else {}
    for f in per_event:
        doc = jsonpatch.apply_patch(doc, f["patch"])
        if f["seq"] in ends:
            folded = jsonpatch.apply_patch(folded, live[ends[f["seq"]]]["patch"])
            assert doc == folded, f["seq"]
    assert not live or live[-1]["seq"] == per_event[-1]["seq"]


PLAYERS: list[Player] = []
"""Every ``Player`` made during the running test (tests/conftest.py checks them at its end)."""


class Player:
    """Plays one seat with random legal actions until the game ends, reconnecting with
    its last seq whenever the socket drops (``base()`` gives the current ws URL base).
    Records every delta it applied, every ack, every error code and every dropped socket.

    A test declares what it provokes: ``allow_errors`` (error codes the server may answer,
    e.g. ``unavailable`` while Redis fails over) and ``allow_drops`` (sockets the server may
    drop: a killed process). Anything else is a surprise (``surprises``), and the test
    fails at its end when a player had one (tests/conftest.py ``players_declared``)."""

    def __init__(self, base: Any, table_id: str, token: str, seed: int,
                 delay: float = 0.0, allow_errors: Collection[str] = (),
                 allow_drops: bool = False) -> None:
        PLAYERS.append(self)
        self.allow_errors = frozenset(allow_errors)
        self.allow_drops = allow_drops
        self.drops: list[str] = []
        self.base = base
        self.delay = delay
        self.table_id = table_id
        self.token = token
        self.rng = random.Random(seed)
        self.seq: int | None = None
        self.deltas: list[dict[str, Any]] = []
        self.acks: list[dict[str, Any]] = []
        self.sent: dict[str, dict[str, Any]] = {}
        self.errors: list[str] = []
        self.reconnects = 0
        self.done = False
        self.n = 0

    async def run(self, timeout: float = 60.0) -> None:
        await asyncio.wait_for(self._run(), timeout)

    async def _run(self) -> None:
        while not self.done:
            try:
                # A generous opening: a handshake that times out counts as a dropped
                # socket, and a loaded 2-core machine can take seconds to answer one.
                async with dial(f"{self.base()}/ws/tables/{self.table_id}",
                                open_timeout=15) as ws:
                    await ws.send(pack({"t": "hello", "token": self.token,
                                        "last_seq": self.seq}))
                    await self._session(ws)
                    if not self.done:
                        self.drops.append(f"closed {ws.close_code} {ws.close_reason!r}")
            except (ConnectionClosed, OSError, InvalidHandshake, TimeoutError) as e:
                self.drops.append(repr(e))
            if not self.done:
                self.reconnects += 1
                await asyncio.sleep(0.1)  # a reconnecting client's pause before it dials again

    def surprises(self) -> list[str]:
        """What went wrong that the test did not declare: error codes, dropped sockets."""
        out = [f"error {code}" for code in self.errors if code not in self.allow_errors]
        if not self.allow_drops:
            out += [f"socket dropped: {why}" for why in self.drops]
        return out

    async def _session(self, ws: Any) -> None:
        pending: str | None = None
        prompt: dict[str, Any] | None = None
        async for data in ws:
            m = unpack(data)
            t = m["t"]
            if t == "welcome":
                if m["view"] is not None:
                    self.seq = m["seq"]
            elif t == "deltas":
                assert self.seq is not None and m["prev"] == self.seq, (self.seq, m["prev"])
                assert [e["seq"] for e in m["events"]] == list(range(self.seq + 1, m["seq"] + 1))
                self.seq = m["seq"]
                self.deltas.append(m)
                if ended(m):
                    self.done = True
                    if pending is None:
                        return
                    # The frame may come before the ack of the action that ended the
                    # game: read on until that ack (or its error) came.
            elif t == "prompt":
                prompt = m
            elif t == "ack":
                self.acks.append(m)
                pending = None
            elif t == "error":
                self.errors.append(m["code"])
                if m["code"] == "unavailable" and pending is not None:
                    await asyncio.sleep(0.2)  # the store is back soon: resend the same id
                    await ws.send(pack({"t": "action", "id": pending,
                                        "action": self.sent[pending]}))
                    continue
                pending = None
            if self.done and pending is None:
                return
            if pending is None and prompt is not None and prompt["seq"] == self.seq:
                if self.delay:
                    await asyncio.sleep(self.delay)  # a player's think time, asked for
                action = self.rng.choice(prompt["legal_actions"])
                prompt = None
                self.n += 1
                pending = f"a{self.n}"
                self.sent[pending] = action
                await ws.send(pack({"t": "action", "id": pending, "action": action}))


class Seats:
    """Sockets of every seat of a table, moved one action at a time by the test."""

    def __init__(self, sockets: list[Socket], seed: int = 0, prefix: str = "s") -> None:
        # ``prefix`` names the action ids (``s1``, ``s2``, …): a second ``Seats`` on the same
        # table needs another one, or its ids repeat the first one's and are acked as resends.
        self.sockets = sockets
        self.rng = random.Random(seed)
        self.prefix = prefix
        self.n = 0
        self.used: dict[int, int] = {}

    async def step(self, count: int = 1) -> int:
        """Make ``count`` random legal actions (whoever is prompted); returns the last seq."""
        seq = 0
        for _ in range(count):
            found = await self.prompted()
            if found is None:
                return seq  # the game has ended
            prompt, sock = found
            self.n += 1
            aid = f"{self.prefix}{self.n}"
            await sock.send({"t": "action", "id": aid,
                             "action": self.rng.choice(prompt["legal_actions"])})
            ack = await sock.wait(lambda f, aid=aid: f["t"] == "ack" and f["id"] == aid)
            seq = ack["seq"]
        return seq

    async def prompted(self) -> tuple[dict[str, Any], Socket] | None:
        """The next prompt not yet answered at the table's latest seq and its socket (at
        most 30 s; AssertionError after that), or None once the game has ended. With every
        other seat a bot, its return is the barrier after which nothing moves until the
        test does."""
        async def find() -> tuple[dict[str, Any], Socket] | None:
            while True:
                if any(ended(f) for s in self.sockets for f in s.frames):
                    return None
                latest = max(current_seq(s) for s in self.sockets)
                for s in self.sockets:
                    prompts = [f for f in s.frames if f["t"] == "prompt"]
                    if (prompts and prompts[-1]["seq"] == latest
                            and self.used.get(id(s)) != len(prompts)):
                        self.used[id(s)] = len(prompts)
                        return prompts[-1], s
                await asyncio.sleep(0.005)  # polling: the pause between two scans of frames
        try:
            return await asyncio.wait_for(find(), 30)
        except TimeoutError:
            tails = [[(f["t"], f.get("seq"), f.get("id"), f.get("code"),
                       [e["event"]["type"] for e in f.get("events", ())]) for f in s.frames[-6:]]
                     for s in self.sockets]
            raise AssertionError(f"no prompt to answer; last frames: {tails}") from None


def current_seq(s: Socket) -> int:
    """The seq a socket's client has reached (its welcome, then its deltas)."""
    seq = 0
    for f in s.frames:
        if f["t"] in ("welcome", "deltas"):
            seq = f["seq"]
    return seq


class ClockFile:
    """The injectable clock of server processes (``CARDTABLE_CLOCK_FILE``): seconds added
    to the system clock, shared by every process started with ``env``."""

    def __init__(self, path: Any) -> None:
        self.path = path
        self.offset = 0.0
        self.set(0.0)

    @property
    def env(self) -> dict[str, str]:
        return {"CARDTABLE_CLOCK_FILE": str(self.path)}

    def set(self, offset: float) -> None:
        self.offset = offset
        self._write(repr(offset))

    def stop_at(self, at_ms: int) -> None:
        """Stop the servers' clock at ``at_ms`` (it shows that time until set again)."""
        self._write(f"@{at_ms}")

    def _write(self, text: str) -> None:
        import os

        tmp = f"{self.path}.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        # The servers reread the file when its mtime changes: two writes within one tick
        # of the file system's clock (a few ms) would share one, and the second be missed.
        self._mtime = max(getattr(self, "_mtime", 0) + 1, os.stat(tmp).st_mtime_ns)
        os.utime(tmp, ns=(self._mtime, self._mtime))
        os.replace(tmp, self.path)  # readers never see a half-written file

    def now_ms(self) -> int:
        """The servers' clock now (ms)."""
        return int((time.time() + self.offset) * 1000)

    def reach(self, at_ms: int, past: int = 20) -> None:
        """Move the servers' clock so that it shows ``at_ms + past`` now."""
        self.set((at_ms + past) / 1000 - time.time())


def one_hour(path: Any) -> dict[str, str]:
    """The env of server processes whose clock (a ``ClockFile`` at ``path``) is stopped
    half an hour into the current clock hour: the hourly rate windows (``Store.hit``)
    cannot turn while a test counts requests against a limit."""
    clock = ClockFile(path)
    clock.stop_at((int(time.time()) // 3600) * 3_600_000 + 1_800_000)
    return clock.env


def unique(prefix: str = "u") -> str:
    """A fresh username (tests share one Redis)."""
    return f"{prefix}{random.getrandbits(40):x}"[:20]
