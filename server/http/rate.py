"""The hourly count of one kind of request per client address (and per account): the one
rate limit that table creation, seeks, analyses, branches, passkey logins and password
resets share (docs/protocol.md §1: each route's ``429 rate_limited``).

Each request of a kind is counted in Redis (``Store.hit``: ``rl:<name>:<addr>:<hour>``,
and ``rl:<name>:a:<uid>:<hour>`` per account) in a fixed window of one clock hour (of the
service's clock, ``Settings.now_ms``, which tests may stop); past
``limit`` in the window the request is refused with 429 ``rate_limited``. A counter that
cannot be read refuses the request (503 ``unavailable``) rather than letting it through
uncounted: it is counted in ``cardtable_redis_errors_total`` and logged as a warning
(``rate counter failed``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from redis.exceptions import RedisError
from starlette.requests import Request

from server import metrics
from server.errors import LobbyError, Unavailable
from server.http import csrf
from server.logging import get_logger

if TYPE_CHECKING:  # the service type only: server.app imports this module's users
    from server.app import Service

log = get_logger("rate")

WINDOW_S = 3600
"""The counting window (seconds): one clock hour."""


def address(request: Request) -> str:
    """The request's client address as the counters key it (``?`` when unknown)."""
    return request.client.host if request.client else "?"


async def _count(svc: Service, key: str) -> int:
    """``Store.hit`` of ``key`` in the window; ``Unavailable`` when Redis fails."""
    try:
        return await svc.store.hit(key, WINDOW_S, svc.settings.now_ms() / 1000)
    except RedisError as e:
        metrics.REDIS_ERRORS.inc()
        log.warning("rate counter failed", error=str(e))
        raise Unavailable("rate counter") from None


async def per_hour(svc: Service, request: Request, name: str, limit: int, what: str, *,
                   per_account: bool = False) -> None:
    """Count this request as one of kind ``name`` for its address (and, with
    ``per_account``, for its session's account too, when it has one).

    Raises ``LobbyError`` 429 ``rate_limited`` with ``"at most {limit} {what} per hour per
    address"`` (``… per account``) once the count passes ``limit`` in the window, and
    ``Unavailable`` (503) when a counter cannot be reached; the address is counted (and
    checked) before the account."""
    if await _count(svc, f"{name}:{address(request)}") > limit:
        raise LobbyError(429, "rate_limited", f"at most {limit} {what} per hour per address")
    if not per_account:
        return
    session = csrf.session_of(request)
    if session is not None and await _count(svc, f"{name}:a:{session.account.uid}") > limit:
        raise LobbyError(429, "rate_limited", f"at most {limit} {what} per hour per account")
