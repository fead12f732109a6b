"""A deadline for an HTTP request's headers, which uvicorn does not have (slowloris).

uvicorn's h11 protocol keeps a connection whose request headers never end open for ever:
its keep-alive timer runs only between requests and stops at the first byte of the next.
``HeaderDeadline`` is uvicorn's own ``H11Protocol`` (the one ``http="auto"`` picks without
``httptools``) with one timer: armed when the connection opens and after each response,
it closes the connection if by then no request's headers were complete (h11's
``their_state`` still ``IDLE``). HTTP itself stays uvicorn's and h11's. The deadline is
per request, not per byte, so a client trickling one header line every few seconds is
dropped too. A reverse proxy in front (nginx ``client_header_timeout``,
``limit_conn``) is still required in production: it bounds connections per address,
which this does not (docs/reliability.md, "Slow clients").
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT = 10.0
"""Seconds a connection gets to complete a request's headers (nginx's default is 60 s)."""


class HeaderDeadline(H11Protocol):
    """``H11Protocol`` that closes a connection whose request headers are not complete
    within ``HEADER_TIMEOUT`` s of its opening or of the previous response."""

    header_timeout = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # The websocket's own protocol takes the connection over: a timer still armed
        # would keep this protocol (its h11 state, the request's scope and headers: about
        # 3 KB) alive for up to ``header_timeout`` s after every socket's opening.
        self._disarm()
        super().handle_websocket_upgrade(event)
        # uvicorn hands the websocket protocol only the request it rebuilt from h11's
        # event: bytes the client wrote after the request in the same read (its first
        # frames, when it did not wait for the 101 answer) stay in h11's buffer and were
        # lost otherwise, and its hello never came ("no hello in time").
        data, _ = self.conn.trailing_data
        websocket = self.transport.get_protocol()
        if (data and websocket is not self and isinstance(websocket, asyncio.Protocol)
                and not self.transport.is_closing()):
            websocket.data_received(data)

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
        # Not IDLE: a request's headers arrived (being served, upgraded to a websocket, or
        # a body on its way, which the app's own limits bound).
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()
