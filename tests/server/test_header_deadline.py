"""The header deadline of server/http/header_deadline.py on uvicorn's httptools protocol,
over real sockets to uvicorn in this process: it closes a connection whose request headers
did not come (on a new connection, after a response), and never one whose request is
being served, pipelined or not. Each test brings the deadline itself (``expire``) instead
of waiting for it; tests/server/test_limits.py waits for the real one, against a server
process."""

from __future__ import annotations

import asyncio

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from server.http.header_deadline import MAX_HEAD, HeaderDeadline
from tests.server.client import in_process
from tests.waiting import until

WAIT = 20.0  # seconds any one expected answer may take on a busy machine


class Recorded(HeaderDeadline):
    """``HeaderDeadline`` whose timer never fires by itself, recording each connection and
    how many requests it began to read."""

    header_timeout = 3600.0
    made: list[Recorded] = []

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        Recorded.made.append(self)
        self.begun = 0
        super().connection_made(transport)

    def on_message_begin(self) -> None:
        self.begun += 1
        super().on_message_begin()


def expire(proto: HeaderDeadline) -> asyncio.TimerHandle:
    """The deadline armed last arrives now; returns its timer."""
    timer = proto._header_timer
    assert timer is not None, "no deadline armed"
    timer.cancel()
    proto._expired()
    return timer


class Slow:
    """An app whose ``GET /slow/{n}`` answers ``n`` once ``release(n)`` is called."""

    def __init__(self) -> None:
        self.started: dict[str, asyncio.Event] = {}
        self.go: dict[str, asyncio.Event] = {}
        self.app = Starlette(routes=[Route("/slow/{n}", self.slow)])

    def event(self, table: dict[str, asyncio.Event], n: str) -> asyncio.Event:
        return table.setdefault(n, asyncio.Event())

    async def slow(self, request: Request) -> PlainTextResponse:
        n = request.path_params["n"]
        self.event(self.started, n).set()
        await self.event(self.go, n).wait()
        return PlainTextResponse(n)

    def release_all(self) -> None:
        for n in list(self.go) + list(self.started):
            self.event(self.go, n).set()


def get(n: str) -> bytes:
    return f"GET /slow/{n} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


async def answer(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """The next response's status line and body (``Content-Length`` long)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)
    lines = head.split(b"\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in lines
                  if line.lower().startswith(b"content-length:"))
    return lines[0], await asyncio.wait_for(reader.readexactly(length), WAIT)


async def closed(reader: asyncio.StreamReader) -> bytes:
    """What the server wrote before it closed the connection (EOF)."""
    return await asyncio.wait_for(reader.read(), WAIT)


async def test_a_connection_without_a_request_is_closed_at_the_deadline():
    Recorded.made = []
    slow = Slow()
    async with in_process(slow.app, http=Recorded) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            [proto] = await until(lambda: Recorded.made, timeout=WAIT, what="connection made")
            expire(proto)
            assert await closed(reader) == b""
            assert proto._header_timer is None
        finally:
            writer.close()


async def test_requests_being_served_are_not_closed_and_an_idle_one_is():
    """Two requests in one write (the second pipelined behind the first): neither is cut
    off by a deadline that comes while it is served; the deadline is armed again after
    each response; after the last response, a request whose headers stop half-way is
    closed at the deadline, without an answer."""
    Recorded.made = []
    slow = Slow()
    # uvicorn's own keep-alive timeout must not close the connection first.
    async with in_process(slow.app, http=Recorded, timeout_keep_alive=3600) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(get("1") + get("2"))
            await asyncio.wait_for(slow.event(slow.started, "1").wait(), WAIT)
            [proto] = Recorded.made
            await until(lambda: proto.pipeline, timeout=WAIT, what="the second request queued")
            first = expire(proto)  # armed at the opening; request 1 being served
            slow.event(slow.go, "1").set()
            assert await answer(reader) == (b"HTTP/1.1 200 OK", b"1")
            await asyncio.wait_for(slow.event(slow.started, "2").wait(), WAIT)
            assert proto._header_timer not in (None, first)  # armed again at the response
            expire(proto)  # request 2 (pipelined) being served
            slow.event(slow.go, "2").set()
            assert await answer(reader) == (b"HTTP/1.1 200 OK", b"2")
            writer.write(get("3")[:-2])  # its headers never end
            # read by the server before the deadline (else closing with unread bytes
            # would reset the connection)
            await until(lambda: proto.begun == 3, timeout=WAIT, what="request 3 begun")
            expire(proto)
            assert await closed(reader) == b""
            assert not slow.event(slow.started, "3").is_set()
        finally:
            slow.release_all()
            writer.close()


async def size(request: Request) -> PlainTextResponse:
    return PlainTextResponse(str(len(await request.body())))


SIZED = Starlette(routes=[Route("/size", size, methods=["GET", "POST"])])


def padded(total: int) -> bytes:
    """A request head without its blank line, ``total`` bytes long, ending in a whole
    header line."""
    head = b"GET /size HTTP/1.1\r\nHost: x\r\n"
    line = b"X-Pad: " + b"p" * 990 + b"\r\n"
    head += line * ((total - len(head)) // len(line))
    return head + b"X-End: " + b"e" * (total - len(head) - 9) + b"\r\n"


async def test_a_head_over_the_bound_is_refused_and_one_under_it_is_served():
    """An unfinished head over ``MAX_HEAD`` bytes, written a line at a time, is answered
    400 and closed (uvicorn's httptools protocol read on without bound); a complete head
    just under it is served on the same kind of connection."""
    async with in_process(SIZED) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            head = padded(MAX_HEAD - 2)
            assert len(head) == MAX_HEAD - 2
            for i in range(0, len(head), 1000):
                writer.write(head[i:i + 1000])
                await writer.drain()
            writer.write(b"\r\n")
            assert await answer(reader) == (b"HTTP/1.1 200 OK", b"0")
        finally:
            writer.close()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            head = padded(MAX_HEAD + 1000)  # never finished
            for i in range(0, len(head), 1000):
                writer.write(head[i:i + 1000])
            reply = await closed(reader)
            assert reply.startswith(b"HTTP/1.1 400 Bad Request\r\n"), reply[:100]
            assert reply.endswith(b"Request headers too large.")
        finally:
            writer.close()


async def test_the_end_of_a_pipelined_body_is_not_counted_as_the_next_head():
    """A request with a 200 KB body and the start of the next request in one write: the
    read that holds the body's end and the next head's start is no head over the bound;
    both requests are served once the second head is finished."""
    body = b"b" * 200_000
    first = b"POST /size HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body)
    second = b"GET /size HTTP/1.1\r\nHost: x\r\n"
    async with in_process(SIZED) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(first + body + second)
            assert await answer(reader) == (b"HTTP/1.1 200 OK", str(len(body)).encode())
            writer.write(b"\r\n")
            assert await answer(reader) == (b"HTTP/1.1 200 OK", b"0")
        finally:
            writer.close()
