"""The process's sharded pub/sub: one ``SSUBSCRIBE`` per followed table channel.

On one Redis, one pub/sub connection carries every channel: given the Redis's address
(``raw``: the store's lane's, server/store/lane.py) this module reads it itself
(``SSUBSCRIBE`` written as the tables are followed, each ``smessage`` parsed by hiredis
and handed over), without redis-py's PubSub (its message dispatch, locks and read
timeouts cost some 35 Python calls per message); without one, through redis-py. On a
Redis Cluster, redis-py's
``ClusterPubSub`` keeps one connection per node that owns a followed channel's slot, and
this module runs one reader task per such node (``get_sharded_message(target_node=…)``
with a short timeout), so a quiet node never delays a busy one. Channels are subscribed
one per command (a multi-channel ``SSUBSCRIBE`` is refused with ``CROSSSLOT`` once they
span slots).

Losing a node's connection (a killed master, a restart) or an ``sunsubscribe`` that Redis
sends by itself (the slot moved to another node) is repaired here: a keyed command on the
channel's slot makes the cluster client refresh its slot map (it does so on connection
errors and ``MOVED``), ``ssubscribe`` again routes the channel to its current owner (the
client moves it off the old node), and ``on_reconnect()`` is awaited so the caller
resyncs its tables from the event lists: whatever was published while nothing listened is
read back from there, so no delta is lost with the subscription. A command written to a
connection whose transport was closed under redis-py's feet (after a node failed, its
cluster client closes the node's connections while another task may be about to write to
one) is a lost connection as well (``lost_connection``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import Any

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisClusterException, RedisError

from server import metrics
from server.logging import get_logger
from server.store import streams as store
from server.store.lane import READ_CHUNK, open_raw

log = get_logger("subscriber")

Handler = Callable[[str, dict[str, Any]], None]

ERRORS = (RedisError, RedisClusterException, OSError)
"""What a lost node, a slot not covered mid-failover or a closed socket raise."""

READ_TIMEOUT = 1.0
"""Seconds a cluster node's reader waits for a message before it looks whether its node
still owns a followed channel."""

SINGLE = ""  # the one "node" of a single Redis


def lost_connection(error: BaseException) -> bool:
    """Whether ``error`` means a Redis connection was lost (the caller reconnects or
    repairs): one of ``ERRORS``, or the ``RuntimeError`` uvloop raises for a command
    written to a transport that was closed under redis-py's connection ("unable to perform
    operation on <TCPTransport closed=True …>; the handler is closed"). asyncio's own loop
    drops such a write and fails the drain with ``ConnectionResetError``, which redis-py
    turns into a ``ConnectionError``; uvloop raises at the write, and redis-py passes that
    on as it is. It is told from any other ``RuntimeError`` by where it was raised: inside
    redis-py's ``send_packed_command``, which has disconnected the connection before
    re-raising, so the next command on it connects afresh instead of writing to the
    closed transport again (tests/server/test_seams.py holds both)."""
    if isinstance(error, ERRORS):
        return True
    return isinstance(error, RuntimeError) and any(
        frame.f_code.co_name == "send_packed_command"
        and frame.f_globals.get("__name__") == "redis.asyncio.connection"
        for frame, _ in traceback.walk_tb(error.__traceback__))


class Subscriber:
    """Delivers every published message of the followed tables to ``handler(table_id,
    message)``; awaits ``on_reconnect()`` after a subscription was lost and restored (the
    caller resyncs its tables). ``client``: ``redis.asyncio.Redis`` or ``RedisCluster``."""

    def __init__(self, client: aioredis.Redis | RedisCluster, handler: Handler,
                 on_reconnect: Callable[[], Awaitable[None]], own_echo: bytes = b"",
                 raw: dict[str, Any] | None = None) -> None:
        self.client = client
        self.raw = None if isinstance(client, RedisCluster) else raw
        """The one Redis's address (``parse_url``) to read the subscription from directly."""
        self._raw_writer: asyncio.StreamWriter | None = None
        self.own_echo = own_echo
        """Messages holding these bytes right after their map header are this process's own
        appends (``Store.own_echo``): dropped unread."""
        self.cluster = isinstance(client, RedisCluster)
        self.handler = handler
        self.on_reconnect = on_reconnect
        self.channels: set[str] = set()
        self.pubsub: Any = None
        self.readers: dict[str, asyncio.Task[None]] = {}
        self.ready = asyncio.Event()
        self.closing = False
        self._resyncs: set[asyncio.Task[None]] = set()
        self._asked: dict[str, int] = {}  # channel -> our sunsubscribes not yet confirmed
        self._repair_lock = asyncio.Lock()
        self._repairs = 0

    # ---- life cycle ----------------------------------------------------------------------

    async def start(self) -> None:
        """Start reading (on one Redis: open the connection first)."""
        if self.cluster:
            with contextlib.suppress(*ERRORS):
                await self.client.initialize()  # the slot map; a repair refreshes it later
            self.pubsub = self.client.pubsub()
            self.ready.set()
            return
        run = self._run_raw() if self.raw is not None else self._run_single()
        self.readers[SINGLE] = asyncio.get_running_loop().create_task(run)
        await asyncio.wait_for(self.ready.wait(), 10)

    async def stop(self) -> None:
        """Stop reading and close the connections."""
        self.closing = True
        for task in list(self.readers.values()):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self.readers.clear()
        if self.pubsub is not None:
            with contextlib.suppress(Exception):
                await self.pubsub.aclose()

    # ---- following -----------------------------------------------------------------------

    async def follow(self, table_id: str) -> None:
        """``SSUBSCRIBE`` the table's channel (idempotent). A failure is repaired in the
        background (then the caller's tables are resynced)."""
        ch = store.channel(table_id)
        if ch in self.channels:
            return
        self.channels.add(ch)
        if self.raw is not None:
            writer = self._raw_writer
            if writer is not None and not writer.is_closing():
                writer.write(hiredis.pack_command(("SSUBSCRIBE", ch)))
            return  # else the reader subscribes it once connected
        if self.pubsub is None:
            return  # the single reader subscribes it once connected
        try:
            await self.pubsub.ssubscribe(ch)
        except Exception as e:
            if not lost_connection(e):
                raise
            metrics.REDIS_ERRORS.inc()
            if self.cluster:
                self._spawn_repair(ch, e)
            return  # one node: its reader reconnects and subscribes everything again
        if self.cluster:
            self._ensure_reader(ch)

    async def unfollow(self, table_id: str) -> None:
        """``SUNSUBSCRIBE`` the table's channel."""
        ch = store.channel(table_id)
        if ch not in self.channels:
            return
        self.channels.discard(ch)
        if self.raw is not None:
            writer = self._raw_writer
            if writer is not None and not writer.is_closing():
                writer.write(hiredis.pack_command(("SUNSUBSCRIBE", ch)))
            return
        if self.pubsub is not None:
            try:
                await self.pubsub.sunsubscribe(ch)
            except Exception as e:
                if not lost_connection(e):
                    raise
                return  # not sent: no confirmation of ours to expect
            # Its confirmation is ours, not a slot that moved (the table may be followed
            # again before the confirmation arrives).
            if self.cluster:
                self._asked[ch] = self._asked.get(ch, 0) + 1

    def _deliver(self, msg: dict[str, Any]) -> None:
        self._deliver_data(msg["data"])

    def _deliver_data(self, raw: bytes) -> None:
        if self.own_echo and raw.startswith(self.own_echo, 1):
            return
        try:
            data = store.unpack(raw)
            self.handler(data["table"], data)
        except Exception:
            log.exception("bad published message")

    # ---- one Redis -----------------------------------------------------------------------

    async def _run_raw(self) -> None:
        """Read the subscription from one connection of our own; after a lost one, connect
        again (every 0.2 s), subscribe everything again and await ``on_reconnect``."""
        assert self.raw is not None
        first = True
        while not self.closing:
            writer: asyncio.StreamWriter | None = None
            try:
                reader, writer, parser = await open_raw(self.raw, 2.0)
                # A private channel keeps the connection subscribed while no table is.
                subscribe = [f"einauge:{{proc}}:{id(self)}", *self.channels]
                writer.write(b"".join(hiredis.pack_command(("SSUBSCRIBE", ch))
                                      for ch in subscribe))
                self._raw_writer = writer
                if not first:
                    log.warning("subscription reconnected")
                    await self.on_reconnect()
                first = False
                self.ready.set()
                deliver = self._deliver_data
                while True:
                    data = await reader.read(READ_CHUNK)
                    if not data:
                        raise ConnectionResetError("Redis closed the subscription")
                    parser.feed(data)
                    while (msg := parser.gets()) is not False:
                        if type(msg) is list and len(msg) == 3 and msg[0] == b"smessage":
                            deliver(msg[2])
                        elif isinstance(msg, Exception):
                            log.warning("subscription error reply", error=str(msg))
            except asyncio.CancelledError:
                raise
            except ERRORS as e:
                metrics.REDIS_ERRORS.inc()
                log.warning("subscription lost", error=str(e))
                await asyncio.sleep(0.2)
            finally:
                self._raw_writer = None
                if writer is not None:
                    writer.close()

    async def _connect_single(self) -> None:
        self.pubsub = self.client.pubsub()
        # A private channel keeps the connection subscribed while no table is followed.
        await self.pubsub.ssubscribe(f"cardtable:{{proc}}:{id(self)}")
        for ch in list(self.channels):
            await self.pubsub.ssubscribe(ch)
        if self.pubsub.connection is not None:
            self.pubsub.connection.register_connect_callback(self._reconnected)

    def _reconnected(self, _connection: Any) -> None:
        # redis-py's retry reconnected the subscription by itself (and resubscribed) after
        # a short outage: whatever was published meanwhile never arrives, and the Redis may
        # have come back with less than it had. Resync every table, as after a lost one.
        if self.closing:
            return
        log.warning("subscription reconnected")
        task = asyncio.get_running_loop().create_task(self.on_reconnect())
        self._resyncs.add(task)
        task.add_done_callback(self._resyncs.discard)

    async def _run_single(self) -> None:
        first = True
        while not self.closing:
            try:
                await self._connect_single()
                if not first:
                    await self.on_reconnect()
                first = False
                self.ready.set()
                while True:
                    msg = await self.pubsub.get_message(timeout=None)
                    if msg is not None and msg.get("type") == "smessage":
                        self._deliver(msg)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if not lost_connection(e):
                    raise
                metrics.REDIS_ERRORS.inc()
                log.warning("subscription lost", error=str(e))
                with contextlib.suppress(Exception):
                    await self.pubsub.aclose()
                self.pubsub = None
                await asyncio.sleep(0.2)

    # ---- a cluster -----------------------------------------------------------------------

    def _node_name(self, ch: str) -> str | None:
        try:
            return self.client.get_node_from_key(ch).name
        except ERRORS:
            return None  # a slot not covered at the moment (mid-failover)

    def _ensure_reader(self, ch: str) -> None:
        name = self._node_name(ch)
        if name is not None and name not in self.readers and not self.closing:
            self.readers[name] = asyncio.get_running_loop().create_task(self._read(name))

    def _wanted(self, name: str) -> bool:
        return any(self._node_name(ch) == name for ch in self.channels)

    async def _read(self, name: str) -> None:
        try:
            idle_since = time.monotonic()
            while not self.closing:
                node = self.client.get_node(node_name=name)
                if node is None:
                    break  # gone from the topology: the repair moved its channels
                try:
                    msg = await self.pubsub.get_sharded_message(target_node=node,
                                                                timeout=READ_TIMEOUT)
                except Exception as e:
                    if not lost_connection(e):
                        raise
                    metrics.REDIS_ERRORS.inc()
                    mine = [c for c in self.channels if self._node_name(c) in (name, None)]
                    if not mine:
                        break  # its channels live elsewhere now
                    await self._repair(mine, e)
                    continue
                if msg is None:
                    if not self._wanted(name):
                        break
                    if time.monotonic() - idle_since < READ_TIMEOUT / 2:
                        await asyncio.sleep(0.05)  # no pubsub for the node (yet)
                    idle_since = time.monotonic()
                    continue
                idle_since = time.monotonic()
                kind = msg.get("type")
                if kind == "smessage":
                    self._deliver(msg)
                elif kind == "sunsubscribe":
                    ch = msg["channel"]
                    ch = ch.decode() if isinstance(ch, bytes) else ch
                    if self._asked.get(ch):
                        self._asked[ch] -= 1
                        if not self._asked[ch]:
                            del self._asked[ch]
                    elif ch in self.channels:  # not asked for: Redis moved the slot away
                        await self._repair([ch], None)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("subscription reader failed", node=name)
        finally:
            if self.readers.get(name) is asyncio.current_task():
                del self.readers[name]
            # Channels of this node that moved elsewhere need a reader there.
            for ch in list(self.channels):
                if not self.closing:
                    self._ensure_reader(ch)

    def _spawn_repair(self, ch: str, error: BaseException) -> None:
        task = asyncio.get_running_loop().create_task(self._repair([ch], error))
        self.readers[f"repair:{id(task)}"] = task
        task.add_done_callback(lambda t: self.readers.pop(f"repair:{id(t)}", None))

    async def _repair(self, channels: list[str] | None, error: BaseException | None) -> None:
        """Route ``channels`` (None: every followed one) to their current owners, then
        await ``on_reconnect``. Retries until Redis answers or the subscriber stops."""
        seen = self._repairs
        async with self._repair_lock:
            if self._repairs != seen and channels is None:
                return  # another repair finished meanwhile and covered everything
            log.warning("subscription lost", error=str(error) if error else "slot moved")
            while not self.closing:
                try:
                    for ch in list(channels if channels is not None else self.channels):
                        if ch not in self.channels:
                            continue
                        # A keyed command on the channel's slot: on a dead or moved owner
                        # the cluster client refreshes its slot map and retries.
                        await self.client.exists(ch)
                        await self.pubsub.ssubscribe(ch)
                    break
                except Exception as e:
                    if not lost_connection(e):
                        raise
                    metrics.REDIS_ERRORS.inc()
                    log.warning("subscription repair failed", error=str(e))
                    await asyncio.sleep(0.2)
            self._repairs += 1
        if self.closing:
            return
        for ch in list(self.channels):
            self._ensure_reader(ch)
        await self.on_reconnect()
