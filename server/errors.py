"""The service's refusals: ``LobbyError`` carries the HTTP status and the stable code of
docs/protocol.md §1 (``server.http.common.guarded`` turns it into
``{"error": {"code", "message"}}``); ``Unavailable`` is a store that did not confirm."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence, Set
from typing import Any, TypeVar

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


def refuse_unknown(unknown: Sequence[str]) -> None:
    """Raise 400 ``bad_message`` naming the ``unknown`` fields of a body, if any: a field
    the call does not take is refused, not ignored (as by the API's pydantic bodies)."""
    if unknown:
        raise LobbyError(400, "bad_message", f"unknown field(s): {', '.join(unknown)[:100]}")


def unknown_fields(data: Any, allowed: Set[str]) -> list[str]:
    """The fields of the object ``data`` not in ``allowed``, sorted; raises 400
    ``bad_message`` when ``data`` is no object."""
    if not isinstance(data, dict):
        raise LobbyError(400, "bad_message", "the body must be an object")
    return sorted(str(k) for k in data if k not in allowed)


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
