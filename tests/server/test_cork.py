"""A seated socket's frames of one turn of the loop go out in one write, in order
(server/fanout/cork.py), on uvicorn's real socket: the client reads them in one chunk; a
close after them still sends them first; a spectator's frames are not held."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from websockets.client import ClientProtocol
from websockets.frames import Frame
from websockets.uri import parse_uri

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


async def chunks(port: int, count: int) -> list[list[Frame]]:
    """The frames of each of the first ``count`` reads (of data that held a frame) of a
    websocket client of ``ws://127.0.0.1:port/ws``, read as its bytes arrive."""
    client = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/ws"))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        client.send_request(client.connect())
        for data in client.data_to_send():
            writer.write(data)
        got: list[list[Frame]] = []
        while len(got) < count:
            data = await asyncio.wait_for(reader.read(65536), 10)
            assert data, f"the server closed after {got}"
            client.receive_data(data)
            frames = [e for e in client.events_received() if isinstance(e, Frame)]
            if frames:
                got.append(frames)
        return got
    finally:
        writer.close()


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
        got = await chunks(port, 2)
    assert [[f.data for f in chunk] for chunk in got] == [
        [b"delta", b"ack", b"prompt"], [b"next turn"]]


async def test_frames_held_before_a_close_are_sent_before_it():
    async def script(conn: Connection) -> None:
        conn.seat = 1
        conn.push(b"error: too slow")
        conn.shut(4000, "bye")
        conn.push(b"after the close")  # dropped: the socket is closing

    async with in_process(served(script)) as port:
        got = await chunks(port, 1)
    frames = got[0]
    assert frames[0].data == b"error: too slow"
    assert all(f.data != b"after the close" for f in frames)


async def test_a_spectators_frames_are_written_at_once():
    async def script(conn: Connection) -> None:
        conn.push(b"delta")  # a spectator: seat None
        assert conn.held is None

    async with in_process(served(script)) as port:
        got = await chunks(port, 1)
    assert [f.data for f in got[0]] == [b"delta"]
