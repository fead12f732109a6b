"""The fan-out subscriber on a Redis Cluster (server/fanout/subscriber.py) when the
transport of a node's pub/sub connection is closed under redis-py, which still takes the
connection for connected, and a repair or a follow writes to it. On uvloop, the loop
``cardtable serve`` runs, that write raises ``RuntimeError`` ("the handler is closed";
asyncio's own loop gives a ``ConnectionError``): these tests run on uvloop. They reach the
transport through redis-py's private ``Connection._writer`` (tests/server/test_seams.py
checks it)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis
from structlog.testing import capture_logs

from server import metrics
from server.fanout.subscriber import Subscriber
from server.store import streams as st
from server.store.client import connect
from tests.cluster import LocalCluster
from tests.waiting import until

CLOSED = "the handler is closed"
"""What uvloop's ``RuntimeError`` says of a write to a closed transport."""


class CloseOnce:
    """A connect callback (redis-py keeps it as a weak method: hold the object) that
    closes the transport of the connection it was called for, the first time only: the
    connection is then closed under redis-py, which still takes it for connected."""

    def __init__(self) -> None:
        self.closed = 0

    def close(self, connection: Any) -> None:
        if not self.closed:
            self.closed += 1
            connection._writer.transport.close()


def test_a_repair_that_writes_to_a_closed_transport_retries_and_delivers_on(
        cluster: LocalCluster) -> None:
    """Redis drops the subscription's connection; the node's reader reconnects it (and the
    new transport is closed right after, under redis-py), then repairs: its
    ``SSUBSCRIBE`` goes to the closed transport. The repair counts that as a lost
    connection and retries on a fresh one: the reader goes on, ``on_reconnect`` is
    awaited, later messages arrive, and no reader fails."""
    uvloop = pytest.importorskip("uvloop")
    uvloop.run(_repair_on_a_closed_transport(cluster))


async def _repair_on_a_closed_transport(cluster: LocalCluster) -> None:
    ch = st.channel("a")
    node = redis.Redis(port=cluster.master_of(ch), socket_timeout=5)
    client = connect(cluster.url, cluster=True)
    publisher = connect(cluster.url, cluster=True)
    got: list[int] = []
    reconnected = asyncio.Event()

    async def on_reconnect() -> None:
        reconnected.set()

    def subscribed() -> bool:
        """Redis counts one subscriber of the channel (the ``SSUBSCRIBE``s are written,
        not awaited)."""
        return bool(node.execute_command("PUBSUB", "SHARDNUMSUB", ch)[1] == 1)

    async def delivered(n: int) -> None:
        await until(subscribed, what="the channel subscribed")
        await publisher.spublish(ch, st.pack({"table": "a", "n": n}))
        await until(lambda: n in got, what=f"message {n} delivered (got {got})")

    def failed(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [e for e in logs if e["event"] == "subscription reader failed"]

    sub = Subscriber(client, lambda _t, msg: got.append(msg["n"]), on_reconnect)
    closer = CloseOnce()
    errors = metrics.REDIS_ERRORS._value.get()
    try:
        with capture_logs() as logs:
            await sub.start()
            await sub.follow("a")
            await delivered(1)
            name = client.get_node_from_key(ch).name
            sub.pubsub.node_pubsub_mapping[name].connection.register_connect_callback(
                closer.close)
            [ours] = [c["id"] for c in node.client_list() if int(c.get("ssub", 0))]
            assert node.client_kill_filter(_id=ours) == 1
            await until(lambda: reconnected.is_set() or failed(logs), timeout=15,
                        what="the repair done or the reader failed")
            assert not failed(logs), failed(logs)
            assert closer.closed == 1
            # The repair met the closed transport (this is what the test is about) and
            # retried: one failure only, since the connection is a fresh one after it.
            repairs = [e["error"] for e in logs if e["event"] == "subscription repair failed"]
            assert len(repairs) == 1 and CLOSED in repairs[0], repairs
            await delivered(2)
            assert got == [1, 2]
        assert not failed(logs), failed(logs)
        # The lost read and the write to the closed transport, counted as Redis errors.
        assert metrics.REDIS_ERRORS._value.get() >= errors + 2
    finally:
        await sub.stop()
        await client.aclose()
        await publisher.aclose()
        node.close()


def test_following_a_table_on_a_closed_transport_subscribes_it_by_a_repair(
        cluster: LocalCluster) -> None:
    """The transport of a node's pub/sub connection is closed under redis-py just as
    another table on that node is followed: its ``SSUBSCRIBE`` meets the closed
    transport. ``follow`` does not raise (the caller is a table being opened); a repair
    subscribes the table, and both tables' messages arrive."""
    uvloop = pytest.importorskip("uvloop")
    uvloop.run(_follow_on_a_closed_transport(cluster))


async def _follow_on_a_closed_transport(cluster: LocalCluster) -> None:
    port = cluster.master_of(st.channel("a"))
    other = next(t for t in (f"b{i}" for i in range(10_000))
                 if cluster.master_of(st.channel(t)) == port)  # a table on the same node
    node = redis.Redis(port=port, socket_timeout=5)
    client = connect(cluster.url, cluster=True)
    publisher = connect(cluster.url, cluster=True)
    got: list[str] = []
    reconnected = asyncio.Event()

    async def on_reconnect() -> None:
        reconnected.set()

    def subscribed(table: str) -> bool:
        return bool(node.execute_command("PUBSUB", "SHARDNUMSUB", st.channel(table))[1] == 1)

    sub = Subscriber(client, lambda t, _msg: got.append(t), on_reconnect)
    try:
        with capture_logs() as logs:
            await sub.start()
            await sub.follow("a")
            await until(lambda: subscribed("a"), what="a subscribed")
            name = client.get_node_from_key(st.channel("a")).name
            sub.pubsub.node_pubsub_mapping[name].connection._writer.transport.close()
            await sub.follow(other)
            # The follow met the closed transport (what the test is about): its repair says so.
            await until(lambda: [e for e in logs if e["event"] == "subscription lost"
                                 and CLOSED in e["error"]], what="the follow's repair")
            await asyncio.wait_for(reconnected.wait(), 15)
            for table in ("a", other):
                await until(lambda t=table: subscribed(t), what=f"{table} subscribed")
                await publisher.spublish(st.channel(table), st.pack({"table": table}))
            await until(lambda: sorted(got) == sorted(["a", other]),
                        what=f"both tables' messages (got {got})")
        assert not [e for e in logs if e["event"] == "subscription reader failed"]
    finally:
        await sub.stop()
        await client.aclose()
        await publisher.aclose()
        node.close()
