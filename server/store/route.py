"""Where a store command goes: on the store's lane when it has one (server/store/lane.py:
one held connection, each call bounded by the lane's one timer), else through redis-py's
pooled client (a Redis Cluster, TLS, replica waits), bounded by ``bounded``'s
``asyncio.timeout``. One function per command shape, so a store method is written once
and runs on either path with the same replies and errors; its method carries
``bounded_off_lane`` (server/store/client.py).
"""

from __future__ import annotations

from typing import Any

from server.store.client import Client
from server.store.lane import Lane


class Route:
    """The commands of one store (``Store``, ``PresenceHashes``, ``DeadlineIndex``) on
    ``lane`` within ``timeout`` seconds each, or on ``client`` when ``lane`` is None.
    Replies as the pooled client gives them with bytes responses, but HGETALL's (a flat
    list on the lane: ``hash_reply`` reads either); error replies as redis-py's
    exceptions on both; a lost connection retried on both (``redis.ConnectionError`` once
    the retries are spent); past the bound ``redis.TimeoutError``. Every route on one
    lane gives the same ``timeout`` (the store's): the lane's one timer looks at its
    bounds in sending order (``Lane._bound``)."""

    __slots__ = ("lane", "redis", "timeout")

    def __init__(self, client: Client, lane: Lane | None, timeout: float) -> None:
        self.redis = client
        self.lane = lane
        self.timeout = timeout

    async def command(self, *command: Any) -> Any:
        """One command's reply (``execute_command`` off the lane: its response callbacks
        apply)."""
        if self.lane is not None:
            (reply,) = await self.lane.pipeline(command, within=self.timeout)
            return reply
        return await self.redis.execute_command(*command)

    async def commands(self, *commands: tuple[Any, ...]) -> list[Any]:
        """Several commands in one round trip (not atomic: a cluster client splits them
        by node), their replies in order; the first error reply is raised once all
        arrived (the commands after it still ran)."""
        if self.lane is not None:
            return await self.lane.pipeline(*commands, within=self.timeout)
        pipe = self.redis.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        return list(await pipe.execute())

    async def script(self, script: Any, keys: list[Any], args: list[Any]) -> Any:
        """The reply of ``script`` (registered with the pooled client: its ``sha`` and
        ``script``) on ``keys`` and ``args``: ``EVALSHA``, then ``EVAL`` when Redis lost
        its script cache (on the lane each of the two within the bound)."""
        if self.lane is not None:
            return await self.lane.script(script.sha, script.script, keys, args,
                                          within=self.timeout)
        return await script(keys=keys, args=args)


def hash_reply(raw: Any) -> dict[bytes, bytes]:
    """An HGETALL reply as the pooled client gives it (``bytes → bytes``): its dict as it
    is, the lane's flat ``[field, value, …]`` list paired up."""
    if isinstance(raw, dict):
        return raw
    it = iter(raw)
    return dict(zip(it, it, strict=True))
