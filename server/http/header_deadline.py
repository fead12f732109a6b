"""A deadline for an HTTP request's headers, which uvicorn does not have (slowloris).

uvicorn's HTTP protocols keep a connection whose request headers never end open for ever:
their keep-alive timer runs only between requests and stops at the first byte of the next.
``HeaderDeadline`` is uvicorn's own ``HttpToolsProtocol`` (the one ``http="auto"`` picks
when ``httptools``, the C parser of uvicorn[standard], is installed) with one timer: armed
when the connection opens and after each response, it closes the connection if by then
no request is being served (no request's headers were complete since; a request whose
headers are complete is served by uvicorn, or waits, pipelined, behind the one being
served). HTTP itself stays uvicorn's and httptools'. The deadline is per request, not per
byte, so a client trickling one header line every few seconds is dropped too. A reverse
proxy in front (nginx ``client_header_timeout``, ``limit_conn``) is still required in
production: it bounds connections per address, which this does not
(docs/reliability.md, "Slow clients").

A request's head (its request line and headers) is bounded too, as under uvicorn's h11
protocol (h11 refused a head over 16 KB): httptools has no bound, and a client could
otherwise fill memory within the deadline. A head still unfinished after a read of the
socket and longer than ``MAX_HEAD`` bytes is answered 400 and the connection closed; so
a head takes at most ``MAX_HEAD`` bytes plus one read (asyncio and uvloop read at most
256 KB at a time).

At a websocket upgrade the timer is cancelled and the bytes the client wrote after the
upgrade request in the same read (its first frames, when it did not wait for the 101
answer) are passed on to the websocket protocol: uvicorn's ``data_received`` drops them
(it ignores the offset ``httptools.HttpParserUpgrade`` carries).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_TIMEOUT = 10.0
"""Seconds a connection gets to complete a request's headers (nginx's default is 60 s)."""

MAX_HEAD = 16 * 1024
"""Bytes an unfinished request head may take (h11's default bound, which uvicorn's h11
protocol kept; nginx answers 400 to a head over 32 KB, or a line over 8 KB)."""


class HeaderDeadline(HttpToolsProtocol):
    """``HttpToolsProtocol`` that closes a connection whose request headers are not complete
    within ``header_timeout`` s of its opening or of the previous response, answers 400
    to an unfinished request head over ``max_head`` bytes, and hands the websocket
    protocol the bytes that came after the upgrade request."""

    header_timeout = HEADER_TIMEOUT
    max_head = MAX_HEAD

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        # Bytes of the current request's head read so far; None outside a head.
        self._head: int | None = None
        self._reading = 0  # bytes in the read being parsed
        self._ended_in_read = False  # a request ended in the read being parsed

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        # uvicorn 0.54's ``data_received`` (tests/server/test_lean_socket.py holds its
        # text), but the upgrade's offset is kept (uvicorn drops it, and with it the
        # client's first frames) and an unfinished head is bounded.
        self._unset_keepalive_if_required()
        self._reading = len(data)
        self._ended_in_read = False
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        except httptools.HttpParserUpgrade as upgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
                self._pass_on(data[upgrade.args[0]:])
            else:
                self._unsupported_upgrade_warning()
            return
        if self._head is not None:
            # The head is still unfinished after this read: all of the read is head
            # (what was not, the end of a request before it, was subtracted at its start).
            self._head += len(data)
            if self._head > self.max_head:
                self._head = None
                msg = "Request headers too large."
                self.logger.warning(msg)
                self.send_400_response(msg)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        # The end of a pipelined request before this one in the same read is of unknown
        # length: this read then does not count (the head is bounded one read later).
        self._head = -self._reading if self._ended_in_read else 0

    def on_headers_complete(self) -> None:
        self._head = None
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._ended_in_read = True
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        # The websocket's own protocol takes the connection over: a timer still armed
        # would keep this protocol (its parser, the request's scope and headers: a few KB)
        # alive for up to ``header_timeout`` s after every socket's opening.
        self._disarm()
        super().handle_websocket_upgrade()

    def _pass_on(self, rest: bytes) -> None:
        """Give ``rest`` (the bytes after the upgrade request, maybe empty) to the
        protocol that now owns the transport, then drop the parser."""
        websocket = self.transport.get_protocol()
        if (rest and websocket is not self and isinstance(websocket, asyncio.Protocol)
                and not self.transport.is_closing()):
            websocket.data_received(rest)
        # The parser refers to this protocol (its callbacks) and this protocol to the
        # parser: a cycle that only the rarely run cyclic collector would free
        # (cli/serve.py ``_tune_gc``). uvicorn breaks it in ``connection_lost``, which
        # this protocol no longer gets once the websocket owns the transport.
        self.parser = None  # type: ignore[assignment]

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._expired)

    def _expired(self) -> None:
        self._header_timer = None
        # uvicorn makes a request's cycle when its headers are complete (and serves it
        # then, or after the one before it when pipelined): a cycle whose response is not
        # complete is a request being served (or its body on its way, which the app's own
        # limits bound). Otherwise no request's headers came in time.
        serving = self.cycle is not None and not self.cycle.response_complete
        if not serving and not self.transport.is_closing():
            self.transport.close()
