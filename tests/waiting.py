"""Waiting for an event the test cannot be told of directly (a Redis key, an HTTP state, a
log line, a mail): ``until`` asks ``predicate`` again and again until it holds or the
deadline passes, then fails naming what never happened. The pause between two asks is
the only sleep a test needs for waiting; a test that checks that something did *not*
happen first awaits a later event that must come after it (a barrier), never a pause.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

INTERVAL = 0.05
"""Seconds between two asks: short against every deadline, long against a Redis call."""


TIMEOUT = 30.0
"""The default deadline (s): most waits involve a server process, a socket or Redis on a
loaded 2-core machine, and a generous deadline costs time only when the test fails."""


async def until(predicate: Callable[[], T | Awaitable[T]], timeout: float = TIMEOUT,
                what: str = "condition", interval: float = INTERVAL) -> T:
    """The first truthy value of ``predicate()`` (a function or a coroutine function),
    asked every ``interval`` s for at most ``timeout`` s; AssertionError after that, with
    ``what`` and the last value."""
    deadline = time.monotonic() + timeout
    while True:
        got: Any = predicate()
        if inspect.isawaitable(got):
            got = await got
        if got:
            return got  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached in {timeout} s (last: {got!r})")
        await asyncio.sleep(interval)  # polling: the pause between two asks


def until_sync(predicate: Callable[[], T], timeout: float = TIMEOUT, what: str = "condition",
               interval: float = INTERVAL) -> T:
    """``until`` for synchronous code (browser tests, fixtures)."""
    deadline = time.monotonic() + timeout
    while True:
        got = predicate()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached in {timeout} s (last: {got!r})")
        time.sleep(interval)  # polling: the pause between two asks


def logged(server: Any, pattern: str) -> Callable[[], bool]:
    """A predicate for ``until``: ``server`` (a ``ServerProcess``) logged a line matching
    the regular expression ``pattern``."""
    rx = re.compile(pattern)
    return lambda: any(rx.search(line) for line in server.read_log().splitlines())
