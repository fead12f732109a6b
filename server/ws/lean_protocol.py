"""The websocket protocol the service runs under uvicorn: its ``websockets-sansio`` one with
a lighter receive queue and write gate.

uvicorn's ``WebSocketsSansIOProtocol`` gives every socket an ``asyncio.Queue`` of received
messages and an ``asyncio.Event`` for back-pressure. Each holds ``collections.deque``
objects allocated whole (about 760 bytes each, empty): the queue three (getters, putters,
items) and an ``Event`` of its own, the gate one, about 3.8 KB per socket of the 20-odd KB
an idle socket costs (docs/benchmarks.md, "Memory per idle connection"). A table socket has
one reader (its ASGI task) and nothing waits to put, so ``ReceiveQueue`` keeps one waiter
and a deque only while messages wait; ``Gate`` keeps its waiters only while the socket
cannot write.

uvicorn uses ``queue.put_nowait``, ``queue.get`` and ``queue.empty``, and ``writable``'s
``set``, ``clear``, ``is_set`` and ``wait``; tests/server/test_seams.py checks that those
are all it calls on them (``LEAN_SEAM``), on the uvicorn release pyproject.toml allows.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from server.logging import socket_log

LEAN_SEAM = {"queue": ("put_nowait", "get", "empty"),
             "writable": ("set", "clear", "is_set", "wait")}
"""The methods uvicorn's protocol calls on the two objects replaced here."""


class ReceiveQueue:
    """``asyncio.Queue`` (unbounded) for one consumer: ``put_nowait``, ``get``, ``empty``,
    ``qsize``. A second concurrent ``get`` raises ``RuntimeError``."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[Any] | None = None
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        """Add ``item`` and wake the reader."""
        if self._items is None:
            self._items = deque()
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Any:
        """The oldest item, once there is one."""
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("ReceiveQueue has one reader")
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        items = self._items
        item = items.popleft()
        if not items:
            self._items = None  # an idle socket keeps no deque
        return item

    def empty(self) -> bool:
        """True when no item waits."""
        return not self._items

    def qsize(self) -> int:
        """How many items wait."""
        return len(self._items) if self._items else 0


class Gate:
    """``asyncio.Event`` whose waiters exist only while it is clear."""

    __slots__ = ("_open", "_waiters")

    def __init__(self) -> None:
        self._open = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        """True while open."""
        return self._open

    def set(self) -> None:
        """Open, waking every waiter."""
        if self._open:
            return
        self._open = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        """Close."""
        self._open = False

    async def wait(self) -> bool:
        """Return ``True`` once open."""
        if self._open:
            return True
        if self._waiters is None:
            self._waiters = []
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
            return True
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's ``websockets-sansio`` protocol with ``ReceiveQueue`` and ``Gate``, it and
    its websockets protocol logging through ``server.logging.socket_log``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = ReceiveQueue()  # type: ignore[assignment]
        gate = Gate()
        if self.writable.is_set():
            gate.set()
        self.writable = gate  # type: ignore[assignment]
        # uvicorn's logger, minus the records of the library's "connection open" and
        # "connection closed" lines, which the log's configuration drops anyway, and
        # with the line per accepted socket written without a record.
        self.logger = self.conn.logger = socket_log()  # type: ignore[assignment]
