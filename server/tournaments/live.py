"""The sockets that follow a tournament on this process (``/ws/tournaments/{id}``): each
gets the public state when it comes and again whenever the stored version moves, whoever
moved it (this process or another: the runner's pass reads the version of every watched
tournament, so a change made elsewhere arrives within one ``tournament_scan``).

Messages (JSON text frames): ``{"t": "tournament", "version", "tournament": <public
form>}``. Nothing is read from the client; it closes when it likes.
"""

from __future__ import annotations

import contextlib
import json

from starlette.websockets import WebSocket, WebSocketDisconnect

from server import metrics
from server.tournaments.model import Tournament


class Watchers:
    """Tournament id → the local sockets following it, and the version each last got."""

    def __init__(self) -> None:
        self.sockets: dict[str, set[WebSocket]] = {}
        self.sent: dict[str, str] = {}

    def ids(self) -> list[str]:
        return list(self.sockets)

    def add(self, tid: str, ws: WebSocket) -> None:
        self.sockets.setdefault(tid, set()).add(ws)
        metrics.TOURNAMENT_WATCHERS.inc()

    def remove(self, tid: str, ws: WebSocket) -> None:
        group = self.sockets.get(tid)
        if group is not None and ws in group:
            group.discard(ws)
            metrics.TOURNAMENT_WATCHERS.dec()
            if not group:
                del self.sockets[tid]
                self.sent.pop(tid, None)

    @staticmethod
    def frame(t: Tournament, version: str) -> str:
        return json.dumps({"t": "tournament", "version": int(version),
                           "tournament": t.public()}, separators=(",", ":"))

    async def send_one(self, ws: WebSocket, t: Tournament, version: str) -> None:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await ws.send_text(self.frame(t, version))

    async def publish(self, t: Tournament, version: str) -> None:
        """Every local socket of ``t`` gets this version unless it has it (or a later
        one) already."""
        if t.id not in self.sockets or int(self.sent.get(t.id, "0")) >= int(version):
            return
        self.sent[t.id] = version
        text = self.frame(t, version)
        for ws in list(self.sockets.get(t.id, ())):
            with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                await ws.send_text(text)

    async def follow(self, ws: WebSocket, tid: str, first: tuple[Tournament, str]) -> None:
        """Serve one socket until it closes: the current state first, then pushes."""
        await ws.accept()
        self.add(tid, ws)
        try:
            await self.send_one(ws, *first)
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    return
        except WebSocketDisconnect:
            return
        finally:
            self.remove(tid, ws)
