"""The service's Redis client: one node, or a Redis Cluster found behind the same URL.

``connect(url)`` asks the node at ``url`` whether it runs in cluster mode (``INFO
cluster``); a cluster node gets ``redis.asyncio.cluster.RedisCluster`` (which learns the
other nodes and the slot map from it and follows failovers and slot moves), anything
else ``redis.asyncio.Redis`` on a blocking pool. So pointing ``--redis-url`` at any node
of a cluster is enough. Every command of the service names keys of one slot (docs/
protocol.md §3), so both clients run the same code.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.connection import HiredisRespSerializer
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.maint_notifications import MaintNotificationsConfig

from server.logging import get_logger

log = get_logger("redis")

Client = aioredis.Redis | RedisCluster

REDIS_CONNECTIONS = 64
"""Pooled Redis connections per process (per node on a cluster; on one node a command
beyond them waits for a free one, within the call's time bound)."""

PROBE_SECONDS = 3.0
"""How long the start-up probe waits for the node at the URL to answer."""


_HIREDIS = HiredisRespSerializer()


@functools.cache
def hiredis_packing(cls: type[AbstractConnection]) -> type[AbstractConnection]:
    """``cls`` (an asyncio connection class of redis-py) packing its commands with
    ``hiredis.pack_command``, as redis-py's blocking client does whenever hiredis is
    installed (``redis.connection.HiredisRespSerializer``); the asyncio client packs in
    Python: 20 µs for the append's 16 arguments against 7 µs (docs/benchmarks.md, "CPU
    per action, part 3"). The bytes are the same (tests/server/test_store.py). Raises
    ``redis.DataError`` for an argument hiredis cannot pack, as redis-py's encoder does.
    The cluster client keeps redis-py's packer: it builds its connection classes itself."""

    def pack_command(self: Any, *args: Any) -> list[bytes]:
        return _HIREDIS.pack(*args)

    return type(f"Hiredis{cls.__name__}", (cls,), {"pack_command": pack_command})


def is_cluster(url: str, wait: float = PROBE_SECONDS) -> bool:
    """True when the node at ``url`` has ``cluster_enabled:1``. A node that does not answer
    within ``wait`` seconds is taken as a single node (logged): the service then starts
    and reports ``unavailable`` until it answers, as it always did."""
    deadline = time.monotonic() + wait
    while True:
        probe = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1,
                                     driver_info=None)
        try:
            return int(probe.info("cluster").get("cluster_enabled", 0)) == 1
        except (redis.RedisError, OSError) as e:
            if time.monotonic() >= deadline:
                log.warning("redis did not answer the cluster probe; taken as one node",
                            error=str(e))
                return False
            time.sleep(0.1)
        finally:
            probe.close()


def connect_sync(url: str) -> redis.Redis | redis.RedisCluster:
    """A blocking client for ``url`` (one node or, detected, a cluster): for tools and
    tests that read the store from outside the service."""
    if not url.startswith("unix://") and is_cluster(url):
        return redis.RedisCluster.from_url(url, driver_info=None)
    return redis.Redis.from_url(url, driver_info=None)


def connect(url: str, cluster: bool | None = None, timeout: float = 2.0) -> Client:
    """A client for ``url`` (``redis://``, ``rediss://`` or ``unix://``); ``cluster``
    None: probe (``is_cluster``). Bytes responses; ``timeout`` (s) bounds a socket read,
    a connect and the wait for a pooled connection. Neither client connects yet."""
    if cluster is None:
        cluster = not url.startswith("unix://") and is_cluster(url)
    # A restarted Redis (or a failed-over master) closes every pooled connection: retry on
    # a fresh one. Retrying is safe: the append script deduplicates by action id and
    # checks the seq. No CLIENT SETINFO and no CLIENT MAINT_NOTIFICATIONS on connect:
    # Redis before 7.2 refuses the first and any Redis outside Redis Cloud the second;
    # redis-py swallows the errors, but each new connection paid three refused round trips
    # and left the exceptions in reference cycles (tests/server/test_garbage.py).
    common = dict(socket_timeout=timeout, socket_connect_timeout=min(timeout, 2.0),
                  driver_info=None,
                  maint_notifications_config=MaintNotificationsConfig(enabled=False))
    if cluster:
        # A master's failover takes about cluster-node-timeout plus an election (1-2 s with
        # a 1 s node timeout): the retries (each refreshing the slot map) span about 3 s,
        # beyond which the action gets `unavailable` and the client resends it.
        retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), 8)
        return RedisCluster.from_url(
            url, max_connections=REDIS_CONNECTIONS, retry=retry,
            retry_on_error=[RedisConnectionError, RedisTimeoutError], **common)
    retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), 4)
    # Every command in flight holds a pooled connection. redis-py's default pool refuses
    # the 101st at once ("Too many connections": `unavailable` for every table beyond 100
    # acting at the same moment); this one makes it wait for a free connection. More
    # connections would not make the one Redis thread any faster.
    pool = aioredis.BlockingConnectionPool.from_url(
        url, max_connections=REDIS_CONNECTIONS, timeout=timeout, health_check_interval=30,
        retry=retry, retry_on_error=[RedisConnectionError, RedisTimeoutError], **common)
    pool.connection_class = hiredis_packing(pool.connection_class)  # per scheme: TCP, TLS, unix
    client = aioredis.Redis(connection_pool=pool)
    client.auto_close_connection_pool = True  # aclose() closes the pool too
    return client


T = TypeVar("T")


def bounded(method: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """Run a store coroutine method within ``self.timeout`` seconds in total; raises
    ``redis.TimeoutError`` (a ``RedisError``) when Redis did not answer in time. redis-py
    drops the connection of a cancelled command, so no late reply is read by another."""

    @functools.wraps(method)
    async def run(self: Any, *args: Any, **kwargs: Any) -> T:
        try:
            async with asyncio.timeout(self.timeout):
                return await method(self, *args, **kwargs)
        except TimeoutError:
            raise RedisTimeoutError(f"Redis did not answer within {self.timeout:g} s") from None

    return run


def bounded_off_lane(method: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """``bounded`` for a store method whose commands go on ``self.lane`` when it has one
    (server/store/lane.py), each sent ``within=self.timeout``: there the lane's one timer
    keeps the bound (``redis.TimeoutError``), without an ``asyncio.timeout`` per call
    (a timer handle, a cancel scope and a task lookup: docs/benchmarks.md, "CPU per
    action, part 6"); without a lane (a cluster, TLS, replica waits) as ``bounded``. A
    method that sends several round trips on the lane is bounded per round trip."""
    pooled = bounded(method)

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Awaitable[T]:
        # Returns the method's own coroutine on the lane: no wrapping frame to resume.
        return (method if self.lane is not None else pooled)(self, *args, **kwargs)

    return run
