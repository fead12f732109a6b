"""A seated socket's frames of one turn of the loop go out in one write, in order
(server/fanout/cork.py), on uvicorn's real socket: the client reads them in one chunk; a
close after them still sends them first; a spectator's frames are not held."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from protocol.reads import reads
from server.fanout.cork import Cork
from server.fanout.frames import SCOPE_KEY, DirectSocket, RawSend
from server.fanout.room import Connection
from server.ws import protocol
from tests.server.client import in_process


def served(script: Any) -> RawSend:
    """An app whose socket runs ``script(conn)`` on a ``Connection`` with a direct writer
    and a ``Cork``, then waits for the client to close."""

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()

        async def send(frame: protocol.Frame) -> None:
            await ws.send_bytes(frame) if isinstance(frame, bytes) else await ws.send_text(frame)

        async def close(code: int, reason: str) -> None:
            await ws.close(code, reason)

        direct = DirectSocket.of(ws.scope[SCOPE_KEY])
        assert direct is not None
        conn = Connection(send, close, "test", True, rate_burst=10, outbox_limit=100,
                          direct=direct, cork=Cork())
        await script(conn)
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass

    return RawSend(Starlette(routes=[WebSocketRoute("/ws", endpoint)]))


async def test_a_players_frames_of_one_turn_arrive_in_one_write_in_order():
    async def script(conn: Connection) -> None:
        conn.seat = 0
        conn.push(b"delta")
        conn.push_many([b"ack", b"prompt"])
        assert conn.held is not None  # nothing written yet: the turn is not over
        await asyncio.sleep(0)  # the end of the turn
        assert conn.held is None
        conn.push(b"next turn")

    async with in_process(served(script)) as port:
        got = await reads(f"ws://127.0.0.1:{port}/ws", 2)
    assert got == [
        [b"delta", b"ack", b"prompt"], [b"next turn"]]


async def test_frames_held_before_a_close_are_sent_before_it():
    async def script(conn: Connection) -> None:
        conn.seat = 1
        conn.push(b"error: too slow")
        conn.shut(4000, "bye")
        conn.push(b"after the close")  # dropped: the socket is closing

    async with in_process(served(script)) as port:
        got = await reads(f"ws://127.0.0.1:{port}/ws", 1)
    assert got[0][0] == b"error: too slow"
    assert b"after the close" not in got[0]


async def test_a_spectators_frames_are_written_at_once():
    async def script(conn: Connection) -> None:
        conn.push(b"delta")  # a spectator: seat None
        assert conn.held is None

    async with in_process(served(script)) as port:
        got = await reads(f"ws://127.0.0.1:{port}/ws", 1)
    assert got == [[b"delta"]]
