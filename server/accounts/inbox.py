"""An account's notifications in any open page: the ``/ws/me`` sockets this process holds
(docs/protocol.md §1, "Invitations by name").

Each socket gets ``{"t": "invitations", "invitations": [...]}`` (the account's pending
invitations, oldest first: ``server.store.invitations``) when it opens and again whenever
that list changes. A change made on this process is pushed at once (``changed``); one made
on another process is seen by this process's look at the inbox versions of its accounts
every ``poll`` seconds (one pipelined ``GET`` per look). Nothing is read from the client.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from redis.exceptions import RedisError
from starlette.websockets import WebSocket, WebSocketDisconnect

from server import metrics
from server.logging import get_logger
from server.store.invitations import InvitationStore

log = get_logger("inbox")


def frame(invitations: list[dict[str, Any]]) -> str:
    """The text frame of an account's pending invitations."""
    return json.dumps({"t": "invitations", "invitations": invitations},
                      separators=(",", ":"))


class Inbox:
    """Account uid → its ``/ws/me`` sockets on this process, and the inbox version each
    account's sockets last got. ``now_ms``: the service's clock (ms)."""

    def __init__(self, store: InvitationStore, poll: float,
                 now_ms: Callable[[], int]) -> None:
        self.store = store
        self.poll = poll
        self.now_ms = now_ms
        self.sockets: dict[str, set[WebSocket]] = {}
        self.versions: dict[str, int] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """End the looks and close the sockets (1001: the page opens another). The flag
        too, and a bounded wait: a cancel that lands in a store call may come out as
        another exception, and the shutdown must not wait on the loop for ever."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait([self._task], timeout=5)
        for group in list(self.sockets.values()):
            for ws in list(group):
                with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                    await ws.close(1001, "server going away")

    async def serve(self, ws: WebSocket, uid: str) -> None:
        """Serve one accepted socket of ``uid`` until it closes: the pending invitations
        first, then every change."""
        self.sockets.setdefault(uid, set()).add(ws)
        metrics.INBOX_SOCKETS.inc()
        try:
            await self._send(uid, [ws])
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    return
        except (WebSocketDisconnect, RuntimeError):
            return  # the client left (or the server closed it) mid-frame
        finally:
            metrics.INBOX_SOCKETS.dec()
            group = self.sockets.get(uid)
            if group is not None:
                group.discard(ws)
                if not group:
                    del self.sockets[uid]
                    self.versions.pop(uid, None)

    async def changed(self, uid: str) -> None:
        """``uid``'s invitations changed on this process: its local sockets hear it now."""
        if uid in self.sockets:
            await self._send(uid, list(self.sockets[uid]))

    async def _send(self, uid: str, sockets: list[WebSocket]) -> None:
        try:
            (version,) = await self.store.versions([uid])
            pending = await self.store.pending(uid, self.now_ms())
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("inbox read failed", error=str(e))
            return
        self.versions[uid] = max(version, self.versions.get(uid, 0))
        text = frame(pending)
        for ws in sockets:
            with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                await ws.send_text(text)

    async def _run(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self.poll)  # the look's period (a cross-process change)
            try:
                await self.look()
            except RedisError as e:
                metrics.REDIS_ERRORS.inc()
                log.warning("inbox look failed", error=str(e))

    async def look(self) -> None:
        """Push the inboxes whose version moved since their sockets last got them.
        Raises ``RedisError``."""
        uids = list(self.sockets)
        for uid, version in zip(uids, await self.store.versions(uids), strict=True):
            if version > self.versions.get(uid, 0) and uid in self.sockets:
                await self._send(uid, list(self.sockets[uid]))
