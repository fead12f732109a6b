"""Memory per idle socket (issue 27): the lean receive queue and write gate of the service's
websocket protocol, the frame parser freed of the opening request, and the HTTP protocol
let go at the upgrade. Each is checked against the library code it replaces or relies
on, so an upgrade that changes what it calls fails here."""

from __future__ import annotations

import asyncio
import gc
import inspect
import re
import weakref
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN, Protocol
from websockets.server import ServerProtocol

from protocol.connection import dial
from server.fanout.frames import SCOPE_KEY, DirectSocket, RawSend, fresh_parser
from server.http.header_deadline import HeaderDeadline
from server.logging import ACCEPTED_LINE, socket_log
from server.store.embedded import free_port
from server.ws.lean_protocol import LEAN_SEAM, Gate, LeanWebSocketProtocol, ReceiveQueue
from tests.server.client import in_process

HANDSHAKE = (b"GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
             b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             b"Sec-WebSocket-Version: 13\r\n\r\n")


def masked(payload: bytes) -> bytes:
    """A client's binary frame (masked, as RFC 6455 requires of a client)."""
    return Frame(Opcode.BINARY, payload).serialize(mask=True, extensions=[])


def opened() -> tuple[ServerProtocol, Any]:
    conn = ServerProtocol()
    conn.receive_data(HANDSHAKE)
    [request] = conn.events_received()
    conn.send_response(conn.accept(request))
    assert conn.state is OPEN
    return conn, request


def test_uvicorn_logs_an_accepted_socket_as_the_log_expects():
    """server/logging.py writes uvicorn's line per accepted socket as the service's own:
    it knows the line by uvicorn's text and arguments, through the protocol's logger."""
    source = Path(inspect.getsourcefile(WebSocketsSansIOProtocol) or "").read_text()
    assert re.search(r"self\.logger\.info\(\s*'" + re.escape(ACCEPTED_LINE) + r"',\s*"
                     r"get_client_addr\(self\.scope\),\s*"
                     r"get_path_with_query_string\(self\.scope\),\s*\)", source), (
        f"uvicorn {uvicorn.__version__} logs an accepted socket otherwise")
    assert re.search(r"self\.logger = logging\.getLogger\(\"uvicorn\.error\"\)", source)
    used = set(re.findall(r"self\.logger\.(\w+)", source))
    assert used and all(hasattr(socket_log(), name) for name in used), (
        f"uvicorn {uvicorn.__version__} uses {sorted(used)} of its logger")


def test_uvicorn_calls_only_what_the_lean_objects_have():
    """uvicorn's protocol uses its queue and write gate only through ``LEAN_SEAM``'s
    methods, which ``ReceiveQueue`` and ``Gate`` have."""
    # The module's text, not ``inspect.getsource`` of the class: that parses the module
    # with ``ast``, which Python 3.11.7 failed on in one test order ("AST constructor
    # recursion depth mismatch").
    source = Path(inspect.getsourcefile(WebSocketsSansIOProtocol) or "").read_text()
    for attr, methods in LEAN_SEAM.items():
        used = set(re.findall(rf"self\.{attr}\.(\w+)", source))
        assert used and used <= set(methods), (
            f"uvicorn {uvicorn.__version__} calls {sorted(used - set(methods))} on "
            f"self.{attr}: server/ws/lean_protocol.py must provide them")
    for cls, attr in ((ReceiveQueue, "queue"), (Gate, "writable")):
        assert all(callable(getattr(cls, m, None)) for m in LEAN_SEAM[attr])
    assert re.search(r"self\.queue\b.*= asyncio\.Queue\(\)", source)
    assert re.search(r"self\.writable = asyncio\.Event\(\)", source)


UVICORN_DATA_RECEIVED = """
    def data_received(self, data: bytes) -> None:
        self._unset_keepalive_if_required()

        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
"""
"""uvicorn 0.54's ``HttpToolsProtocol.data_received``, which ``HeaderDeadline`` repeats but
for the bytes after an upgrade request."""


def method_text(source: str, cls: str, name: str) -> str:
    """The text of method ``name`` of class ``cls`` in a module's ``source`` (up to the next
    definition at the same depth), or "" without one."""
    parts = re.split(rf"\nclass {cls}\b", source, maxsplit=1)
    if len(parts) < 2:
        return ""
    body = parts[1].split("\nclass ", 1)[0]
    found = re.search(rf"\n    (?:async )?def {name}\(.*?(?=\n    (?:async def |def |@|# )|\Z)",
                      body, re.S)
    return found.group(0).strip() if found else ""


def test_the_header_deadline_relies_on_what_uvicorn_has():
    """server/http/header_deadline.py repeats uvicorn's ``data_received`` (to keep the
    offset of the bytes after an upgrade request, and to bound a request's head), calls
    its other methods, extends its parser callbacks, and reads its request cycle to know whether
    a request is being served: an upgrade of uvicorn that changes any of them fails
    here."""
    source = Path(inspect.getsourcefile(HttpToolsProtocol) or "").read_text()
    assert method_text(source, "HttpToolsProtocol", "data_received") == (
        UVICORN_DATA_RECEIVED.strip()), (
        f"uvicorn {uvicorn.__version__} changed HttpToolsProtocol.data_received: "
        "HeaderDeadline.data_received repeats it")
    for method in ("_unset_keepalive_if_required", "send_400_response", "_should_upgrade",
                   "_unsupported_upgrade_warning", "on_response_complete", "on_message_begin",
                   "on_headers_complete", "on_message_complete"):
        assert method_text(source, "HttpToolsProtocol", method), method
    # The upgrade takes no arguments and hands the transport to the websocket protocol
    # (``_pass_on`` finds that protocol with ``transport.get_protocol()``).
    upgrade = method_text(source, "HttpToolsProtocol", "handle_websocket_upgrade")
    assert upgrade.startswith("def handle_websocket_upgrade(self) -> None:")
    assert "self.transport.set_protocol(protocol)" in upgrade
    assert "self.connections.discard(self)" in upgrade
    # A request's cycle is made when its headers are complete, pipelined or not; its
    # ``response_complete`` is set when the response's last byte is written.
    assert re.search(r"self\.cycle = RequestResponseCycle\(",
                     method_text(source, "HttpToolsProtocol", "on_headers_complete"))
    assert "on_response=self.on_response_complete" in source
    assert "self.response_complete = True" in method_text(source, "RequestResponseCycle",
                                                           "send")
    # uvicorn breaks the protocol-parser cycle here; after an upgrade this protocol
    # never gets ``connection_lost``, so ``HeaderDeadline`` breaks it itself.
    assert "self.parser = None" in method_text(source, "HttpToolsProtocol", "connection_lost")


async def test_receive_queue_is_a_fifo_for_one_reader():
    q = ReceiveQueue()
    assert q.empty() and q.qsize() == 0
    q.put_nowait(1)
    q.put_nowait(2)
    assert q.qsize() == 2 and not q.empty()
    assert await q.get() == 1
    assert await q.get() == 2
    assert q.empty() and q._items is None  # an idle socket keeps no deque
    reader = asyncio.create_task(q.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError):
        await q.get()  # a second reader at once
    q.put_nowait(3)
    assert await asyncio.wait_for(reader, 5) == 3


async def test_receive_queue_survives_a_cancelled_get():
    q = ReceiveQueue()
    reader = asyncio.create_task(q.get())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    q.put_nowait("x")  # no waiter left: kept for the next get
    assert await q.get() == "x"


async def test_gate_wakes_every_waiter_when_set():
    g = Gate()
    assert not g.is_set()
    waiters = [asyncio.create_task(g.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    g.set()
    assert await asyncio.wait_for(asyncio.gather(*waiters), 5) == [True, True, True]
    assert g._waiters is None and await g.wait() is True
    g.clear()
    late = asyncio.create_task(g.wait())
    await asyncio.sleep(0)
    late.cancel()
    with pytest.raises(asyncio.CancelledError):
        await late
    assert g._waiters == []  # a cancelled waiter is not kept


def test_fresh_parser_frees_the_opening_request_and_reads_the_next_frames():
    conn, request = opened()
    held = weakref.ref(request)
    del request
    assert held() is not None  # the parser's generator frame holds the request
    assert fresh_parser(conn)
    assert conn.parser.gi_code is Protocol.parse.__code__
    gc.collect()
    assert held() is None
    conn.receive_data(masked(b"hello") + masked(b"again"))
    assert [f.data for f in conn.events_received()] == [b"hello", b"again"]


def test_fresh_parser_leaves_a_frame_half_read():
    """Swapped between two frames only: half a frame read means the parser holds state."""
    conn, _ = opened()
    frame = masked(b"x" * 300)
    conn.receive_data(frame[:4])  # the header read, its payload still to come
    assert conn.events_received() == []
    assert not fresh_parser(conn)
    conn.receive_data(frame[4:])
    assert [f.data for f in conn.events_received()] == [b"x" * 300]
    assert fresh_parser(conn)  # between frames now


async def test_the_served_socket_gets_a_fresh_parser_and_keeps_working():
    """Through uvicorn with the service's protocol: after ``release_handshake`` the
    parser is ``Protocol.parse`` and frames still arrive."""
    found: dict[str, Any] = {}

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        direct = DirectSocket.of(ws.scope[SCOPE_KEY])
        assert direct is not None
        direct.release_handshake()
        found["parser"] = direct.proto.conn.parser.gi_code
        found["kind"] = type(direct.proto)
        found["got"] = [await ws.receive_bytes(), await ws.receive_bytes()]
        await ws.send_bytes(b"".join(found["got"])[::-1])
        await ws.close()

    app = RawSend(Starlette(routes=[WebSocketRoute("/ws/tables/x", endpoint)]))
    async with in_process(app) as port, dial(f"ws://127.0.0.1:{port}/ws/tables/x") as ws:
        await ws.send(b"abc")
        await ws.send(b"def")
        echoed = await asyncio.wait_for(ws.recv(), 10)
    assert found["kind"] is LeanWebSocketProtocol
    assert found["parser"] is Protocol.parse.__code__
    assert found["got"] == [b"abc", b"def"] and echoed == b"fedcba"


async def test_the_http_protocol_is_let_go_at_the_upgrade():
    """The header deadline's timer is cancelled when a websocket takes the connection
    over: an armed timer kept the HTTP protocol (its parser, scope, headers) alive for
    ``header_timeout`` s after each socket opened. Nor is it left in a cycle with its
    parser (freed only by the cyclic collector, which runs rarely in the service)."""
    made: list[weakref.ref[Any]] = []

    class Recorded(HeaderDeadline):
        header_timeout = 3600.0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            made.append(weakref.ref(self))
            super().connection_made(transport)

    opened_event = asyncio.Event()
    release = asyncio.Event()

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        opened_event.set()
        await release.wait()
        await ws.close()

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(
        Starlette(routes=[WebSocketRoute("/ws/tables/x", endpoint)]), host="127.0.0.1",
        port=port, ws=LeanWebSocketProtocol, http=Recorded, log_level="warning",
        lifespan="off"))
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)  # uvicorn announces its start by no event
        gc.collect()
        gc.disable()  # freed by reference counting alone: in no cycle
        async with dial(f"ws://127.0.0.1:{port}/ws/tables/x") as ws:
            await asyncio.wait_for(opened_event.wait(), 10)
            assert made and all(ref() is None for ref in made)
            release.set()
            await asyncio.wait_for(ws.wait_closed(), 10)
    finally:
        gc.enable()
        release.set()
        server.should_exit = True
        await serving
