"""The service's refusals: ``LobbyError`` carries the HTTP status and the stable code of
docs/protocol.md §1 (``server.http.common.guarded`` turns it into
``{"error": {"code", "message"}}``); ``Unavailable`` is a store that did not confirm."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from redis.exceptions import RedisError

from server import metrics
from server.logging import get_logger

log = get_logger("store")
T = TypeVar("T")


class LobbyError(Exception):
    """A lobby request that cannot be done: ``status`` (HTTP), ``code``, ``message``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class Unavailable(Exception):
    """Redis did not confirm: nothing is acknowledged (error ``unavailable``, HTTP 503)."""


async def confirmed(call: Awaitable[T]) -> T:
    """``await call`` (a store call); a ``RedisError`` becomes ``Unavailable`` (counted in
    ``cardtable_redis_errors_total`` and logged)."""
    try:
        return await call
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        log.warning("redis failed", error=str(e))
        raise Unavailable(str(e)) from None
