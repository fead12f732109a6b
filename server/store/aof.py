"""Rewriting Redis's append-only file after an account's personal data was deleted
(docs/operations.md, "Deleting personal data").

Redis's append-only file logs every write: the ``HSET`` that stored an account's name and
e-mail stays in it after the account's keys are deleted, until the file is rewritten from
the data in memory (``BGREWRITEAOF``: a new base file of what is there now, the older base
and increment files removed once it is done). ``AofScrub.request`` starts that rewrite on
every node the service knows (the Redis, or every master and replica of a cluster) after a
deletion; the rewrite must *start* after the deletion, so a rewrite already in progress
(its fork may predate the deletion) is waited out and another started. Requests that come
while one is being served are folded into one more rewrite. A node with the append-only
file off is skipped; a node that refuses the command (a managed Redis may rename it) is
logged as a warning: its operator must rewrite it by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError, ResponseError

from server.logging import get_logger

log = get_logger("aof")

POLL = 0.2
"""Seconds between two looks at a node whose rewrite is in progress."""

WAIT = 600.0
"""Seconds to wait for a node's rewrite in progress before giving up (logged)."""


def _auth(client: Any) -> dict[str, Any]:
    """The credentials and TLS settings of ``client``'s connections (for its replicas)."""
    if isinstance(client, RedisCluster):
        kwargs = dict(client.connection_kwargs)
    else:
        kwargs = dict(client.connection_pool.connection_kwargs)
    keep = ("username", "password", "socket_timeout", "socket_connect_timeout")
    out = {k: kwargs[k] for k in keep if kwargs.get(k) is not None}
    if kwargs.get("ssl") or "ssl_cert_reqs" in kwargs:
        out["ssl"] = True
        out["ssl_cert_reqs"] = kwargs.get("ssl_cert_reqs", "required")
    return out


async def _replicas_of(client: Any, node: Any) -> list[tuple[str, int]]:
    """(host, port) of every replica a node names in ``INFO replication``."""
    info = _info(await _on(client, node, "INFO", "replication"), node)
    out = []
    for key, value in info.items():
        if str(key).startswith("slave") and isinstance(value, dict) and "ip" in value:
            out.append((str(value["ip"]), int(value["port"])))
    return out


def _info(raw: Any, node: Any) -> dict[str, Any]:
    """A node's ``INFO persistence`` as a dict (a cluster client may key it by node)."""
    if isinstance(raw, dict) and getattr(node, "name", None) in raw \
            and isinstance(raw[node.name], dict):
        return raw[node.name]  # type: ignore[no-any-return]
    return raw if isinstance(raw, dict) else {}


async def _on(client: Any, node: Any, *args: Any) -> Any:
    if node is None:
        return await client.execute_command(*args)
    return await client.execute_command(*args, target_nodes=node)


async def rewrite_node(client: Any, node: Any = None, wait: float = WAIT) -> bool:
    """Start a rewrite of one node's append-only file that begins now (``node`` None: the
    client's one Redis; else a ``ClusterNode`` of a cluster client). Returns False when
    the node has no append-only file (nothing to rewrite). Raises ``RedisError`` (a
    refused command among them) and ``TimeoutError`` after ``wait`` s of rewrites in
    progress."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        info = _info(await _on(client, node, "INFO", "persistence"), node)
        if str(info.get("aof_enabled", "1")) == "0":
            return False
        try:
            # "started", or "scheduled" behind a BGSAVE: either forks after this moment.
            await _on(client, node, "BGREWRITEAOF")
            return True
        except ResponseError as e:
            if "already in progress" not in str(e):
                raise
        # A rewrite in progress forked before now, maybe before the deletion: wait it out.
        if loop.time() > deadline:
            raise TimeoutError("an append-only file rewrite stayed in progress")
        await asyncio.sleep(POLL)


async def rewrite_everywhere(client: Any, wait: float = WAIT) -> int:
    """``rewrite_node`` on every node of ``client`` (a cluster's masters) and on every
    replica each names in ``INFO replication`` (reached with the client's credentials);
    returns how many rewrites started. A node that fails is logged, the others still
    served; raises ``RedisError`` when no master could be asked."""
    nodes: list[Any] = [None]
    if isinstance(client, RedisCluster):
        await client.initialize()  # the node list is empty until the first command
        nodes = list(client.get_nodes())
    started, failed, asked = 0, 0, 0
    for node in nodes:
        where = getattr(node, "name", "redis")
        try:
            started += await rewrite_node(client, node, wait)
            replicas = await _replicas_of(client, node)
        except (RedisError, OSError, TimeoutError) as e:
            failed += 1
            log.warning("append-only file not rewritten: rewrite it by hand "
                        "(redis-cli BGREWRITEAOF)", node=where, error=str(e))
            continue
        asked += 1
        for host, port in replicas:  # they replicated the deletion; their files log it too
            replica = aioredis.Redis(host=host, port=port, **_auth(client))
            try:
                started += await rewrite_node(replica, None, wait)
            except (RedisError, OSError, TimeoutError) as e:
                failed += 1
                log.warning("append-only file of a replica not rewritten: rewrite it by "
                            "hand (redis-cli BGREWRITEAOF)", node=f"{host}:{port}",
                            error=str(e))
            finally:
                await replica.aclose()
    if not asked:
        raise RedisError("no node's append-only file could be rewritten")
    log.info("append-only file rewrite started", nodes=started, failed=failed)
    return started


class AofScrub:
    """Rewrites the append-only files after deletions of personal data, one rewrite
    (per node) for any number of deletions that come while one is being started."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._due = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def request(self) -> None:
        """A deletion just happened: a rewrite that starts after it follows (in the
        background)."""
        self._due.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._serve())

    async def _serve(self) -> None:
        while self._due.is_set():
            self._due.clear()
            try:
                await rewrite_everywhere(self.client)
            except (RedisError, OSError) as e:
                log.warning("append-only file not rewritten after a deletion", error=str(e))

    async def drain(self, timeout: float = WAIT) -> None:
        """Wait until every requested rewrite has started (the command line, before it
        exits; a stopping service, bounded)."""
        task = self._task
        if task is not None and not task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), timeout)
