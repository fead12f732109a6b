"""Hostile and unlucky clients of a table socket, against a real server process: the
websocket layer of server/ws/lean_protocol.py (one-reader receive queue, write gate),
server/fanout/frames.py ``fresh_parser`` (the frame parser swapped after the handshake)
and server/http/header_deadline.py (its timer cancelled at the upgrade).

Raw TCP sockets write what no well-behaved client would (the handshake and the first frame
in one write, a frame split at every byte, fragments and control frames across the parser
swap, resets in the middle of the handshake); the frames are built and read by
``protocol.connection`` (``upgrade_request``, ``client_frame``, ``RawFrames``)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import re
import socket
import struct
import weakref
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from protocol.connection import RawFrames, client_frame, upgrade_request
from server import config
from server.app import create_app
from server.fanout.frames import SCOPE_KEY, DirectSocket, RawSend
from server.ws.lean_protocol import LeanWebSocketProtocol
from tests.conftest import TEST_ENV, ServerProcess
from tests.server.client import Lobby, Socket, ended, in_process, pack, unpack
from tests.server.test_garbage import server_side
from tests.waiting import until

HELLO = pack({"t": "hello", "token": None, "last_seq": None})
WAIT = 20.0  # seconds any one expected frame may take on a busy machine


class Raw:
    """One raw TCP connection to a table socket: writes bytes as given, reads the 101
    answer and then the server's frames."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.parser = RawFrames()
        self.frames: list[tuple[str, bytes]] = []

    @classmethod
    async def open(cls, port: int, first: bytes = b"", sndbuf: int | None = None,
                   rcvbuf: int | None = None) -> Raw:
        sock = socket.socket()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
        reader, writer = await asyncio.open_connection(sock=sock)
        raw = cls(reader, writer)
        if first:
            await raw.write(first)
        return raw

    async def write(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def answer(self) -> bytes:
        """The status line of the HTTP answer (what follows it is read as frames)."""
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), WAIT)
        return head.split(b"\r\n", 1)[0]

    async def frame(self, timeout: float = WAIT) -> tuple[str, bytes]:
        """The next frame the server sent; ``EOFError`` if the connection ended first."""
        async with asyncio.timeout(timeout):
            while not self.frames:
                data = await self.reader.read(65536)
                self.frames += self.parser.feed(data)
                if not data and not self.frames:
                    raise EOFError("the server ended the connection")
        return self.frames.pop(0)

    async def message(self, timeout: float = WAIT) -> dict[str, Any]:
        """The next data frame, decoded (control frames are skipped)."""
        while True:
            opcode, payload = await self.frame(timeout)
            if opcode in ("binary", "text"):
                msg: dict[str, Any] = unpack(payload if opcode == "binary" else payload.decode())
                return msg

    async def welcome(self) -> dict[str, Any]:
        """The next ``welcome`` (what comes before it, e.g. the previous welcome's
        ``chat_history``, passed over)."""
        while (msg := await self.message())["t"] != "welcome":
            pass
        return msg

    def reset(self) -> None:
        """Drop the connection with a TCP reset (linger 0), as a crashed client."""
        sock = self.writer.get_extra_info("socket")
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()

    def close(self) -> None:
        self.writer.close()


async def open_table(url: str) -> tuple[Lobby, str]:
    lobby = Lobby(url)
    table = await lobby.create(2)
    return lobby, table["id"]


async def sockets_metric(lobby: Lobby) -> int:
    text = (await lobby.get("/metrics")).text
    found = re.search(r"^cardtable_sockets (\d+)\.0$", text, re.M)
    assert found, text
    return int(found.group(1))


async def test_the_handshake_and_the_hello_in_one_write(server):
    lobby, tid = await open_table(server.url)
    try:
        raw = await Raw.open(server.port,
                             upgrade_request(f"/ws/tables/{tid}") + client_frame(HELLO))
        assert await raw.answer() == b"HTTP/1.1 101 Switching Protocols"
        welcome = await raw.welcome()
        assert welcome["t"] == "welcome" and welcome["table"]["id"] == tid
        # The socket goes on working after the parser swap: a sync is answered.
        await raw.write(client_frame(pack({"t": "sync"})))
        assert (await raw.welcome())["t"] == "welcome"
        raw.close()
    finally:
        await lobby.close()


async def test_the_hello_split_at_every_byte_across_the_upgrade(server):
    """Each split of the hello frame: its first part in the handshake's write (the parser
    holds half a frame when the socket is accepted) or written after the 101 answer (the
    parser was swapped, or not yet, when it comes); the rest after the answer."""
    lobby, tid = await open_table(server.url)
    hello = client_frame(HELLO)
    try:
        for cut in range(1, len(hello)):
            for with_handshake in (True, False):
                head = upgrade_request(f"/ws/tables/{tid}")
                raw = await Raw.open(server.port, head + hello[:cut] if with_handshake else head)
                assert await raw.answer() == b"HTTP/1.1 101 Switching Protocols"
                if not with_handshake:
                    await raw.write(hello[:cut])
                await raw.write(hello[cut:])
                assert (await raw.welcome())["t"] == "welcome", (cut, with_handshake)
                raw.close()
        # Every one was counted out again once closed (none left behind).
        await until(lambda: _is(sockets_metric(lobby), 0), timeout=WAIT,
                    what="no table socket left open")
    finally:
        await lobby.close()


async def _is(value: Any, expected: Any) -> bool:
    return await value == expected


async def test_a_fragmented_hello_across_the_upgrade_with_pings_between(server):
    """The hello in three fragments: the first in the handshake's write, a ping and the
    second after the 101 answer, another ping and the last one after the pong. Pings are
    answered at once with their payload, and the fragments make one message."""
    lobby, tid = await open_table(server.url)
    try:
        for opcode in ("binary", "text"):
            body = HELLO if opcode == "binary" else b'{"t":"hello","token":null,"last_seq":null}'
            parts = [body[:5], body[5:9], body[9:]]
            raw = await Raw.open(server.port, upgrade_request(f"/ws/tables/{tid}")
                                 + client_frame(parts[0], opcode, fin=False))
            assert await raw.answer() == b"HTTP/1.1 101 Switching Protocols"
            await raw.write(client_frame(b"p1", "ping") + client_frame(parts[1], "cont", fin=False))
            assert await raw.frame() == ("pong", b"p1")
            await raw.write(client_frame(b"p2", "ping"))
            assert await raw.frame() == ("pong", b"p2")
            await raw.write(client_frame(parts[2], "cont"))
            welcome = await raw.welcome()
            assert welcome["t"] == "welcome" and welcome["table"]["id"] == tid
            # A close frame in the middle of the next fragmented message: the websockets
            # library takes it as the message left incomplete (1002), and the server
            # ends the connection.
            await raw.write(client_frame(pack({"t": "sync"})[:2], "binary", fin=False)
                            + client_frame(struct.pack("!H", 1000), "close"))
            while (got := await raw.frame())[0] != "close":
                assert got[0] in ("binary", "text")  # what followed the welcome
            assert got[1] == struct.pack("!H", 1002) + b"incomplete fragmented message"
            with pytest.raises(EOFError):
                await raw.frame()
            raw.close()
    finally:
        await lobby.close()


async def test_resets_and_closes_during_and_right_after_the_handshake(server):
    """Sixty connections at once, each dropping at another point: half a request line,
    the request without its blank line, the whole request unanswered, right after the
    101 answer, with the hello half written, after the welcome; by a close or a reset.
    The server logs no error (the fixture fails the test otherwise), counts every socket
    out, and a well-behaved client is served as before."""
    lobby, tid = await open_table(server.url)
    head = upgrade_request(f"/ws/tables/{tid}")
    hello = client_frame(HELLO)

    async def one(i: int) -> None:
        stage = i % 6
        first = {0: head[:7], 1: head[:-2], 2: head, 3: head, 4: head + hello[:3],
                 5: head + hello}[stage]
        raw = await Raw.open(server.port, first)
        if stage >= 3:
            assert await raw.answer() == b"HTTP/1.1 101 Switching Protocols"
        if stage == 5:
            assert (await raw.welcome())["t"] == "welcome"
        if (i // 6) % 2:
            raw.reset()
        else:
            raw.close()

    try:
        before = await sockets_metric(lobby)
        await asyncio.gather(*(one(i) for i in range(60)))
        await until(lambda: _is(sockets_metric(lobby), before), timeout=WAIT,
                    what="every dropped socket counted out")
        good = await Socket(server.ws_url, tid).connect()
        await good.wait(lambda f: f["t"] == "welcome")
        await good.close()
    finally:
        await lobby.close()


async def test_a_trickled_upgrade_request_and_hello(server):
    """A slowloris that writes the upgrade request and the hello a few bytes at a time
    (well within the header deadline) gets its socket and its welcome."""
    lobby, tid = await open_table(server.url)
    try:
        data = upgrade_request(f"/ws/tables/{tid}") + client_frame(HELLO)
        raw = await Raw.open(server.port)
        for i in range(0, len(data), 3):
            await raw.write(data[i:i + 3])
        assert await raw.answer() == b"HTTP/1.1 101 Switching Protocols"
        assert (await raw.welcome())["t"] == "welcome"
        raw.close()
    finally:
        await lobby.close()


@pytest.fixture
def roomy(redis_url):
    """A server whose sockets may fall far behind without being closed for it, and whose
    rate limit lets a client ask for hundreds of views at once."""
    s = ServerProcess(redis_url, env={
        "CARDTABLE_OUTBOX_LIMIT": "100000", "CARDTABLE_FLOOD_CLOSE": "1000000",
        "CARDTABLE_RATE_PER_S": "1000000", "CARDTABLE_RATE_BURST": "1000000"}).start()
    yield s
    s.stop()


async def test_a_client_that_stops_reading_gets_every_frame_in_order_later(roomy):
    """A spectator that does not read while a bot game is played and then asks for 300
    views of the finished game (megabytes: more than both ends' socket buffers hold, so
    the server's writes wait on the write gate) gets, once it reads again, every delta
    in order, the same as a reading spectator got, then all 300 welcomes."""
    lobby = Lobby(roomy.url)
    try:
        table = await lobby.create(2)
        tid = table["id"]
        for seat in range(2):
            await lobby.bot(tid, seat, "random")
        watcher = await Socket(roomy.ws_url, tid).connect()
        await watcher.wait(lambda f: f["t"] == "welcome")
        slow = await Raw.open(roomy.port, upgrade_request(f"/ws/tables/{tid}")
                              + client_frame(HELLO), rcvbuf=2048)
        assert await slow.answer() == b"HTTP/1.1 101 Switching Protocols"
        assert (await slow.message())["t"] == "welcome"
        await lobby.start(tid, table["owner_token"])
        await watcher.wait(ended, timeout=60)
        await slow.write(client_frame(pack({"t": "sync"})) * 300)
        seen: list[dict[str, Any]] = []
        while len([f for f in seen if f["t"] == "welcome"]) < 300:
            seen.append(await slow.message())
        expected = [(f["seq"], f["events"]) for f in watcher.deltas()]
        got = [(f["seq"], f["events"]) for f in seen if f["t"] == "deltas"]
        assert got == expected and ended([f for f in seen if f["t"] == "deltas"][-1])
        views = {f["seq"] for f in seen if f["t"] == "welcome"}
        assert views == {expected[-1][0]}
        await watcher.close()
        slow.close()
    finally:
        await lobby.close()


async def test_hostile_sockets_leave_no_protocol_alive_and_nothing_in_cycles(own_redis,
                                                                            monkeypatch):
    """The service in this process, the collector off and saving what it finds: after
    sockets dropped at every stage of the handshake and first frames (see above), no
    websocket protocol object is alive and no server object was left in a cycle."""
    for name, value in TEST_ENV.items():
        monkeypatch.setenv(name, value)
    app = create_app(config.from_env(redis_url=own_redis.url))
    svc = app.state.svc
    async with in_process(app, lifespan="on") as port:
        lobby, tid = await open_table(f"http://127.0.0.1:{port}")
        head = upgrade_request(f"/ws/tables/{tid}")
        hello = client_frame(HELLO)

        async def hostile(i: int) -> None:
            stage = i % 5
            first = {0: head[:-2], 1: head, 2: head + hello[:3],
                     3: head + client_frame(HELLO[:4], fin=False), 4: head + hello}[stage]
            raw = await Raw.open(port, first)
            if stage >= 1:
                assert await raw.answer() == b"HTTP/1.1 101 Switching Protocols"
            if stage == 4:
                assert (await raw.welcome())["t"] == "welcome"
            if i % 2:
                raw.reset()
            else:
                raw.close()

        async def quiet() -> bool:
            return (not svc.connections and not any(
                type(o) is LeanWebSocketProtocol for o in gc.get_objects()))

        try:
            await asyncio.gather(*(hostile(i) for i in range(10)))  # first use: imports
            await until(quiet, timeout=WAIT, what="no socket left")
            gc.collect()
            gc.disable()
            gc.set_debug(gc.DEBUG_SAVEALL)
            await asyncio.gather(*(hostile(i) for i in range(40)))
            await until(lambda: not svc.connections, timeout=WAIT, what="no socket left")
            gc.collect()
            left = sorted({name for obj in gc.garbage if (name := server_side(obj))})
            assert left == []
            alive = [weakref.ref(o) for o in gc.get_objects()
                     if type(o) is LeanWebSocketProtocol]
            assert alive == []
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
            await lobby.close()


async def test_a_hello_split_across_the_accept_still_frees_the_opening_request(own_redis,
                                                                              monkeypatch):
    """Part of the hello written with the handshake: the parser holds half a frame when
    the socket is accepted, where ``fresh_parser`` leaves it alone. Once the hello is in,
    the parser is swapped all the same (``Protocol.parse``, not the generator that read
    the opening request and keeps it)."""
    for name, value in TEST_ENV.items():
        monkeypatch.setenv(name, value)
    app = create_app(config.from_env(redis_url=own_redis.url))
    async with in_process(app, lifespan="on") as port:
        lobby, tid = await open_table(f"http://127.0.0.1:{port}")
        hello = client_frame(HELLO)
        try:
            for cut in (1, 3, len(hello) - 1):
                raw = await Raw.open(port, upgrade_request(f"/ws/tables/{tid}") + hello[:cut])
                assert await raw.answer() == b"HTTP/1.1 101 Switching Protocols"
                await raw.write(hello[cut:])
                assert (await raw.welcome())["t"] == "welcome"
                [proto] = [o for o in gc.get_objects() if type(o) is LeanWebSocketProtocol]
                parser = proto.conn.parser.gi_code.co_qualname
                del proto  # the wait below is for its release
                assert parser == "Protocol.parse", cut
                raw.close()
                await until(lambda: not any(type(o) is LeanWebSocketProtocol
                                            for o in gc.get_objects()),
                            timeout=WAIT, what="the closed socket's protocol let go")
        finally:
            await lobby.close()


async def test_the_write_gate_blocks_every_writer_and_wakes_them_all_when_drained():
    """Four tasks write 64 KB frames to one socket whose client does not read: the gate
    closes and all four wait on it (nothing is written past the transport's high-water
    mark); once the client reads, every writer is woken and every frame arrives, each
    writer's in its order, and the gate keeps no waiter list."""
    writers, frames_each, size = 4, 80, 65536  # 20 MB: more than both ends' buffers hold
    found: dict[str, Any] = {}

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        direct = DirectSocket.of(ws.scope[SCOPE_KEY])
        assert direct is not None
        found["proto"] = direct.proto
        await ws.receive_bytes()  # the client's go

        async def write(k: int) -> None:
            for n in range(frames_each):
                await ws.send_bytes(bytes([k]) + n.to_bytes(2, "big") + b"x" * size)

        # Bounded: a writer never woken must fail the test, not hang the server's stop.
        async with asyncio.timeout(3 * WAIT):
            await asyncio.gather(*(write(k) for k in range(writers)))
        found["done"] = True
        await ws.close()

    app = RawSend(Starlette(routes=[WebSocketRoute("/ws/tables/x", endpoint)]))
    async with in_process(app) as port:
        raw = await Raw.open(port, upgrade_request("/ws/tables/x"), rcvbuf=4096)
        assert await raw.answer() == b"HTTP/1.1 101 Switching Protocols"
        await raw.write(client_frame(b"go"))
        gate = await until(lambda: found.get("proto") and found["proto"].writable,
                           timeout=WAIT, what="the socket accepted")
        await until(lambda: not gate.is_set() and len(gate._waiters or ()) == writers,
                    timeout=WAIT, what="every writer waiting on the closed gate")
        assert "done" not in found
        got: dict[int, list[int]] = {k: [] for k in range(writers)}
        while True:
            opcode, payload = await raw.frame()
            if opcode == "close":
                break
            assert opcode == "binary" and len(payload) == size + 3
            got[payload[0]].append(int.from_bytes(payload[1:3], "big"))
        assert got == {k: list(range(frames_each)) for k in range(writers)}
        assert found.get("done") and gate.is_set() and gate._waiters is None
        raw.close()
