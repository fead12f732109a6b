"""The sockets that follow a tournament on this process (``/ws/tournaments/{id}``): each
gets the public state when it comes and again whenever the stored version moves, whoever
moved it (this process or another: the runner's pass reads the version of every watched
tournament, so a change made elsewhere arrives within one ``tournament_scan``).

The runner's pass never writes to a socket: ``Watchers.publish`` only offers the frame
to each socket's ``Follower``, a one-frame box (a newer version replaces an unsent one:
every frame is the whole state, so only the newest matters) that the socket's own task
writes. A reader that does not take a frame within ``send_timeout`` seconds is closed
(1013) and dropped, so one slow or stalled reader delays nobody else.

Messages (JSON text frames): ``{"t": "tournament", "version", "tournament": <public
form>}``. Nothing is read from the client; it closes when it likes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import MutableMapping
from typing import Any, Protocol

from starlette.websockets import WebSocketDisconnect

from server import metrics
from server.logging import get_logger
from server.tournaments.model import Tournament

log = get_logger("tournaments")

SEND_TIMEOUT = 10.0
"""Seconds one frame may take to be written before its reader counts as too slow."""


class Socket(Protocol):
    """What a follower needs of its websocket (Starlette's ``WebSocket`` is one)."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...

    async def receive(self) -> MutableMapping[str, Any]: ...


class Follower:
    """One socket's outbox: the newest frame not yet written (at most one) and the task
    that writes it. ``offer`` never waits."""

    def __init__(self, ws: Socket, send_timeout: float = SEND_TIMEOUT) -> None:
        self.ws = ws
        self.send_timeout = send_timeout
        self.version = 0
        """The newest version offered (written or waiting)."""
        self._frame: str | None = None
        self._wake = asyncio.Event()

    def offer(self, version: int, frame: str) -> None:
        """Queue ``frame`` of ``version`` unless this socket has it or a later one; a
        frame still waiting is replaced."""
        if version <= self.version:
            return
        self.version, self._frame = version, frame
        self._wake.set()

    async def write(self) -> None:
        """Write the offered frames until the socket fails; returns (after closing it
        1013) when one took longer than ``send_timeout``, or when the socket is gone."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            frame, self._frame = self._frame, None
            if frame is None:
                continue
            try:
                await asyncio.wait_for(self.ws.send_text(frame), self.send_timeout)
            except TimeoutError:
                metrics.REJECTED_SOCKETS.labels("slow").inc()
                log.info("tournament watcher too slow: closed")
                with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError,
                                         TimeoutError):
                    await asyncio.wait_for(self.ws.close(1013, "too slow"), 1.0)
                return
            except (RuntimeError, WebSocketDisconnect, OSError):
                return


class Watchers:
    """Tournament id → the local sockets following it."""

    def __init__(self, send_timeout: float = SEND_TIMEOUT) -> None:
        self.send_timeout = send_timeout
        self.followers: dict[str, set[Follower]] = {}

    def ids(self) -> list[str]:
        return list(self.followers)

    def add(self, tid: str, follower: Follower) -> None:
        self.followers.setdefault(tid, set()).add(follower)
        metrics.TOURNAMENT_WATCHERS.inc()

    def remove(self, tid: str, follower: Follower) -> None:
        group = self.followers.get(tid)
        if group is not None and follower in group:
            group.discard(follower)
            metrics.TOURNAMENT_WATCHERS.dec()
            if not group:
                del self.followers[tid]

    @staticmethod
    def frame(t: Tournament, version: str) -> str:
        return json.dumps({"t": "tournament", "version": int(version),
                           "tournament": t.public()}, separators=(",", ":"))

    def publish(self, t: Tournament, version: str) -> None:
        """Offer this version to every local socket of ``t`` that lacks it (encoded once,
        and only when one lacks it); writes nothing itself."""
        group = self.followers.get(t.id, ())
        v = int(version)
        lacking = [f for f in group if f.version < v]
        if not lacking:
            return
        text = self.frame(t, version)
        for f in lacking:
            f.offer(v, text)

    async def follow(self, ws: Socket, tid: str, first: tuple[Tournament, str]) -> None:
        """Serve one accepted socket until it closes or is too slow: the current state
        first, then pushes. Its reader runs apart from its writer, so a client's silence
        never holds a write and a stalled write never holds the close."""
        follower = Follower(ws, self.send_timeout)
        self.add(tid, follower)
        writer = asyncio.ensure_future(follower.write())
        reader = asyncio.ensure_future(_until_closed(ws))
        try:
            follower.offer(int(first[1]), self.frame(*first))
            await asyncio.wait([writer, reader], return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.remove(tid, follower)
            writer.cancel()
            reader.cancel()
            await asyncio.gather(writer, reader, return_exceptions=True)


async def _until_closed(ws: Socket) -> None:
    """Read (and ignore) the client's frames until it disconnects."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass
