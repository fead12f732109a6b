"""Who may open a websocket at all, before what it is for: every socket of the service
(a table's, a seek's, a tournament's standings, an account's ``/ws/me``) passes here
first.

- **Origin**: no ``Origin`` header (a program, not a page), the page's own host, or one of
  ``CARDTABLE_ALLOWED_ORIGINS`` (``*``: any). Another site's page is closed with 1008, so
  that it cannot act with its visitor's cookie.
- **Per address**: at most ``CARDTABLE_CONNS_PER_ADDR`` open sockets per client address
  (the balancer's forwarded one), all kinds counted together; one more is closed with
  4029.

A refused socket is accepted and then closed, so the client reads the code and reason.
An admitted one is counted until ``release``; its endpoint accepts it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from starlette.websockets import WebSocket

from server import metrics

if TYPE_CHECKING:  # the service type only: server.app imports the endpoints
    from server.app import Service


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """No Origin (non-browser client), the page's own host, or a listed origin (``*``)."""
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    return bool(host) and urlsplit(origin).netloc == host


async def _refused(ws: WebSocket, svc: Service, addr: str) -> bool:
    """Close ``ws`` (1008 for its origin, 4029 past its address's count) and say so;
    False when it may go on."""
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host"),
                          svc.settings.allowed_origins):
        metrics.REJECTED_SOCKETS.labels("origin").inc()
        code, reason = 1008, "origin not allowed"
    elif svc.addr_count.get(addr, 0) >= svc.settings.conns_per_addr:
        metrics.REJECTED_SOCKETS.labels("per_address").inc()
        code, reason = 4029, "too many connections from your address"
    else:
        return False
    await ws.accept()
    await ws.close(code, reason)
    return True


@asynccontextmanager
async def admitted(ws: WebSocket, svc: Service) -> AsyncIterator[str | None]:
    """``async with admitted(ws, svc) as addr``: ``addr`` is the client's address while
    the socket counts against it (until the block ends), or ``None`` when the socket was
    refused and is already closed (the block should return at once)."""
    addr = ws.client.host if ws.client else "?"
    if await _refused(ws, svc, addr):
        yield None
        return
    svc.addr_count[addr] = svc.addr_count.get(addr, 0) + 1
    try:
        yield addr
    finally:
        left = svc.addr_count.get(addr, 1) - 1
        if left > 0:
            svc.addr_count[addr] = left
        else:
            svc.addr_count.pop(addr, None)
