"""An account's notifications in any open page: the ``/ws/me`` sockets this process holds
(docs/protocol.md §1, "Invitations by name").

Each socket gets ``{"t": "invitations", "invitations": [...]}`` (the account's pending
invitations, oldest first: ``server.store.invitations``) when it opens and again whenever
that list changes. A change made on this process is pushed at once (``changed``); one made
on another process is seen by this process's look at the inbox versions of its accounts
every ``poll`` seconds (one pipelined ``GET`` per look). Nothing is read from the client.

A socket lives no longer than its session: when the account's sessions change (logout,
password change or reset, ban, suspension, deletion: ``sessions_changed``, or the
version gone with the account) every process checks the session of each of the
account's sockets it holds at once (this process) or at its next look (the others) and
closes with 4001 those whose session ended or whose account is banned or suspended
(the page does not reconnect after 4001).
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
from server.accounts import sessions
from server.accounts.accounts import Accounts
from server.logging import get_logger
from server.store.invitations import InvitationStore

log = get_logger("inbox")


def frame(invitations: list[dict[str, Any]]) -> str:
    """The text frame of an account's pending invitations."""
    return json.dumps({"t": "invitations", "invitations": invitations},
                      separators=(",", ":"))


SESSION_ENDED = 4001
"""The close code of a ``/ws/me`` socket whose session is gone (or never was) or whose
account may not use it (banned, suspended)."""


def refusal(session: sessions.Session | None, now: float) -> str | None:
    """Why a ``/ws/me`` socket of ``session`` (``None``: ended or unknown) may not stay
    open at ``now`` (seconds), the close reason; ``None`` when it may."""
    if session is None:
        return "no session"
    if session.account.banned:
        return "account banned"
    if session.account.suspended_until > now:
        return "account suspended"
    return None


class Inbox:
    """Account uid → its ``/ws/me`` sockets on this process (each with its session's
    cookie value), and the inbox version each account's sockets last got. ``accounts``
    loads a socket's session again; ``keep``: seconds a version set here is kept (a
    session's lifetime); ``now_ms``: the service's clock (ms)."""

    def __init__(self, store: InvitationStore, accounts: Accounts, poll: float, keep: int,
                 now_ms: Callable[[], int]) -> None:
        self.store = store
        self.accounts = accounts
        self.poll = poll
        self.keep = keep
        self.now_ms = now_ms
        self.sockets: dict[str, set[WebSocket]] = {}
        self.sids: dict[WebSocket, str] = {}
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

    async def serve(self, ws: WebSocket, uid: str, sid: str) -> None:
        """Serve one accepted socket of ``uid`` (its session's cookie value ``sid``) until
        it closes: the pending invitations first, then every change."""
        self.sockets.setdefault(uid, set()).add(ws)
        self.sids[ws] = sid
        metrics.INBOX_SOCKETS.inc()
        try:
            await self._ensure(uid)
            await self._send(uid, [ws])
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    return
        except (WebSocketDisconnect, RuntimeError):
            return  # the client left (or the server closed it) mid-frame
        finally:
            metrics.INBOX_SOCKETS.dec()
            self._drop(uid, ws)

    def _drop(self, uid: str, ws: WebSocket) -> None:
        """``ws`` is no socket of ``uid`` here any more (closed, or being closed)."""
        self.sids.pop(ws, None)
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

    async def sessions_changed(self, uid: str) -> None:
        """A session of ``uid`` ended or the account may no longer use its sessions
        (``refusal``): this process's sockets of it are checked now, the other
        processes' at their next look (the version moves). Raises ``RedisError``."""
        await self.store.bump(uid, self.keep)
        await self.check(uid)

    async def _ensure(self, uid: str) -> None:
        """The account's inbox has a version while it has sockets here, so that its
        deletion (the version gone) is seen by the look."""
        try:
            await self.store.ensure(uid, self.keep)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("inbox version not set", error=str(e))

    async def check(self, uid: str) -> None:
        """Close (4001) this process's sockets of ``uid`` whose session ended or whose
        account is banned or suspended (``refusal``). Raises ``RedisError``."""
        now = self.now_ms() / 1000
        for ws in list(self.sockets.get(uid, ())):
            why = refusal(await sessions.load(self.accounts, self.sids.get(ws)), now)
            if why is not None:
                # Out of the lists at once: nothing more is sent to it, and a deleted
                # account's inbox gets no version again (``look``).
                self._drop(uid, ws)
                with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                    await ws.close(SESSION_ENDED, why)

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
        """Check the sessions of, then push, the inboxes whose version moved since their
        sockets last got them (up, or gone with the account or its expiry). Raises
        ``RedisError``."""
        uids = list(self.sockets)
        for uid, version in zip(uids, await self.store.versions(uids), strict=True):
            if version != self.versions.get(uid, 0) and uid in self.sockets:
                await self.check(uid)
                if uid in self.sockets:
                    await self._send(uid, list(self.sockets[uid]))
                    self.versions[uid] = version
            if version == 0 and uid in self.sockets:  # expired with its invitations
                await self.store.ensure(uid, self.keep)
