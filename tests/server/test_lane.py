"""The appends' held Redis connection (server/store/lane.py) against a real Redis: replies
in order for concurrent callers, errors as redis-py raises them, a caller that gives up
leaves the connection in step, and a restarted Redis is reconnected to."""

from __future__ import annotations

import asyncio
import gc
import secrets
import signal

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import streams as st
from server.store.lane import Lane
from server.store.streams import Store
from tests.server.test_store import new_meta
from tests.waiting import until


@pytest.fixture
def single(redis_mode):
    if redis_mode == "cluster":
        pytest.skip("a lane is for one Redis; a cluster keeps the pooled client")


async def test_concurrent_callers_each_get_their_own_reply(single, redis_url):
    lane = Lane(redis_url)
    key = f"lane:{secrets.token_hex(4)}"
    try:
        replies = await asyncio.gather(*(lane.call("ECHO", f"m{i}") for i in range(300)),
                                       *(lane.call("INCR", key) for _ in range(50)))
        assert replies[:300] == [f"m{i}".encode() for i in range(300)]
        assert sorted(replies[300:]) == list(range(1, 51))
    finally:
        await lane.close()


async def test_error_replies_are_redis_py_errors_and_the_lane_goes_on(single, redis_url):
    lane = Lane(redis_url)
    try:
        with pytest.raises(NoScriptError):
            await lane.call("EVALSHA", "0" * 40, 0)
        with pytest.raises(ResponseError):
            await lane.call("NOSUCHCOMMAND")
        assert await lane.call("PING") == b"PONG"
    finally:
        await lane.close()


async def test_a_caller_that_gives_up_leaves_the_connection_in_step(single, redis_url):
    lane = Lane(redis_url)
    key = f"lane:{secrets.token_hex(4)}"
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.1):
                await lane.call("BLPOP", key, 0.5)  # answered (nil) after 0.5 s
        # Sent behind the abandoned one: each reply still reaches its own caller.
        assert await lane.call("ECHO", "after") == b"after"
        assert await lane.call("SET", key, "v") == b"OK"
        assert await lane.call("GET", key) == b"v"
    finally:
        await lane.close()


async def test_a_connection_lost_mid_pipeline_leaves_no_unretrieved_error(single, redis_url):
    # QUIT is answered, then Redis closes the connection: the replies after it fail with
    # the lost connection, which the caller raises at the first of them. The later ones
    # must not each be logged as an exception nobody retrieved.
    loop = asyncio.get_running_loop()
    unretrieved: list[dict[str, object]] = []
    old = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: unretrieved.append(context))
    lane = Lane(redis_url)
    try:
        with pytest.raises(RedisConnectionError):
            await lane.pipeline(("QUIT",), ("PING",), ("PING",), ("PING",))
        assert await lane.call("PING") == b"PONG"  # reconnected
        gc.collect()  # a future's unretrieved exception is reported when it is collected
        await asyncio.sleep(0)
        assert unretrieved == []
    finally:
        loop.set_exception_handler(old)
        await lane.close()


async def test_the_url_database_is_selected(single, redis_url):
    base = redis_url.rsplit("/", 1)[0] if redis_url.count("/") > 2 else redis_url
    url = f"{base}/3"
    lane = Lane(url)
    key = f"lane:{secrets.token_hex(4)}"
    try:
        assert await lane.call("SET", key, "in3") == b"OK"
        assert redis.Redis.from_url(url).get(key) == b"in3"
        assert redis.Redis.from_url(f"{base}/0").get(key) is None
    finally:
        await lane.close()


async def test_a_restarted_redis_is_reconnected_to(single, own_redis):
    url = own_redis.url
    lane = Lane(url)
    try:
        assert await lane.call("PING") == b"PONG"
        await asyncio.to_thread(own_redis.restart)
        assert await lane.call("PING") == b"PONG"  # the lost connection, then a fresh one
        await asyncio.to_thread(own_redis.stop)
        with pytest.raises(RedisConnectionError):
            await lane.call("PING")
    finally:
        await lane.close()


async def test_the_store_appends_on_its_lane_and_reloads_a_flushed_script(single, redis_url):
    store = Store.from_url(redis_url)
    assert store.lane is not None
    meta = new_meta()
    try:
        await store.create(meta.id, meta.to_fields(), ttl=60)
        entries = [{"e": {"type": "x", "n": i}, "h": f"{i:064x}"} for i in range(2)]
        ok = await store.append(meta.id, 0, entries[:1], "1" * 64, "0:a", prev=meta.head)
        assert (ok.status, ok.seq) == ("ok", 1)
        await store.redis.script_flush()  # as after a restart without the script cache
        ok = await store.append(meta.id, 1, entries[1:], "2" * 64, "0:b", prev="1" * 64)
        assert (ok.status, ok.seq) == ("ok", 2)
        dup = await store.append(meta.id, 2, entries[1:], "3" * 64, "0:b", prev="2" * 64)
        assert (dup.status, dup.seq) == ("dup", 2)
        assert await store.load_entries(meta.id) == entries
        assert st.unpack(await store.redis.lindex(st.events_key(meta.id), 1)) == entries[1]
    finally:
        await store.close()


async def test_the_subscribers_own_reader_follows_and_survives_a_restart(single, own_redis):
    """server/fanout/subscriber.py reads one Redis's subscription itself: followed and
    unfollowed channels, and after a restart of Redis it subscribes everything again and
    awaits ``on_reconnect`` (the tables resync from the event lists)."""
    from server.fanout.subscriber import Subscriber

    store = Store.from_url(own_redis.url)
    assert store.lane is not None
    got: list[tuple[str, int]] = []
    reconnected = asyncio.Event()

    async def on_reconnect() -> None:
        reconnected.set()

    sub = Subscriber(store.redis, lambda t, msg: got.append((t, msg["n"])), on_reconnect,
                     b"", store.lane.params)
    publisher = redis.Redis.from_url(own_redis.url)

    async def published(expected: list[tuple[str, int]]) -> None:
        await until(lambda: got == expected, timeout=30, interval=0.02,
                    what=f"{expected} received (got {got})")

    def subscribers(table: str) -> int:
        """Subscribers of the table's shard channel, as Redis counts them."""
        return publisher.execute_command("PUBSUB", "SHARDNUMSUB", st.channel(table))[1]

    try:
        await sub.start()
        await sub.follow("a")
        await sub.follow("b")
        # The SSUBSCRIBEs are written, not awaited: until Redis counts them.
        await until(lambda: subscribers("a") == 1 and subscribers("b") == 1,
                    what="both channels subscribed")
        publisher.spublish(st.channel("a"), st.pack({"table": "a", "n": 1}))
        publisher.spublish(st.channel("b"), st.pack({"table": "b", "n": 2}))
        await published([("a", 1), ("b", 2)])
        await sub.unfollow("b")
        await until(lambda: subscribers("b") == 0, what="b unsubscribed")
        publisher.spublish(st.channel("b"), st.pack({"table": "b", "n": 3}))
        publisher.spublish(st.channel("a"), st.pack({"table": "a", "n": 4}))
        await published([("a", 1), ("b", 2), ("a", 4)])
        await asyncio.to_thread(own_redis.restart)
        await asyncio.wait_for(reconnected.wait(), 30)
        publisher = redis.Redis.from_url(own_redis.url)
        publisher.spublish(st.channel("a"), st.pack({"table": "a", "n": 5}))
        await published([("a", 1), ("b", 2), ("a", 4), ("a", 5)])
    finally:
        await sub.stop()
        await store.close()


async def test_a_pipeline_is_one_write_and_its_replies_come_in_order(single, redis_url):
    lane = Lane(redis_url)
    key = f"lane:{secrets.token_hex(4)}"
    try:
        assert await lane.pipeline(("SET", key, "1"), ("INCR", key), ("GET", key)) == [
            b"OK", 2, b"2"]
        # An error reply is raised once all replies are in; the commands after it ran.
        with pytest.raises(ResponseError):
            await lane.pipeline(("INCR", key), ("HGET", key, "f"), ("INCR", key))
        assert await lane.call("GET", key) == b"4"
        # Interleaved with single calls of other callers.
        got = await asyncio.gather(lane.pipeline(("ECHO", "a"), ("ECHO", "b")),
                                   lane.call("ECHO", "c"),
                                   lane.pipeline(("ECHO", "d"),))
        assert got == [[b"a", b"b"], b"c", [b"d"]]
    finally:
        await lane.close()


async def test_the_deadline_index_on_the_lane(single, redis_url):
    """``deadlines.lower`` (every clocked action) and ``settle_deadline`` (set or drop the
    score, then read the stored seq: one round trip) go on the lane."""
    store = Store.from_url(redis_url)
    meta = new_meta()
    try:
        await store.create(meta.id, meta.to_fields(), ttl=60)
        await store.deadlines.set(meta.id, 5_000)
        assert store.deadlines.lane is store.lane  # the index's writes on the lane too
        await store.deadlines.lower(meta.id, 9_000)  # never raised
        assert await store.redis.zscore(st.DEADLINES, meta.id) == 5_000
        await store.deadlines.lower(meta.id, 3_000)
        assert await store.redis.zscore(st.DEADLINES, meta.id) == 3_000
        assert await store.settle_deadline(meta.id, 7_000) == await store.stored_seq(meta.id)
        assert await store.redis.zscore(st.DEADLINES, meta.id) == 7_000
        assert await store.settle_deadline("gone-" + meta.id, None) is None
        assert await store.settle_deadline(meta.id, None) is not None
        assert await store.redis.zscore(st.DEADLINES, meta.id) is None
    finally:
        await store.close()


async def test_a_bounded_call_fails_in_time_and_its_late_reply_is_dropped(single, own_redis):
    # A Redis that stops answering (SIGSTOP: its socket stays open): the bounded calls fail
    # with redis-py's TimeoutError after their bound, not before; once Redis answers again
    # the late replies are read and dropped and the next call gets its own reply.
    lane = Lane(own_redis.url)
    proc = own_redis.process
    assert proc is not None
    try:
        assert await lane.call("PING") == b"PONG"
        key = f"lane:{secrets.token_hex(4)}"
        proc.send_signal(signal.SIGSTOP)
        try:
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            got = await asyncio.gather(
                lane.pipeline(("INCR", key), within=0.3),
                lane.script("0" * 40, "return 1", [key], [], within=0.3),
                return_exceptions=True)
            waited = loop.time() - t0
        finally:
            proc.send_signal(signal.SIGCONT)
        assert all(isinstance(g, RedisTimeoutError) for g in got), got
        assert waited >= 0.3
        # The unbounded caller and the stopped calls' late replies: in step again.
        assert await lane.call("ECHO", "after") == b"after"
        assert await lane.call("GET", key) == b"1"  # the timed-out INCR still ran
    finally:
        await lane.close()


async def test_the_commands_of_one_turn_go_out_in_one_write(single, own_redis):
    # Fifty callers in the same turn of the loop: Redis reads them in one read event
    # (``total_reads_processed`` counts every client's reads; the only other client is the
    # one that reads the counter, once per look).
    lane = Lane(own_redis.url)
    info = redis.Redis.from_url(own_redis.url)
    try:
        assert await lane.call("PING") == b"PONG"
        before = int(info.info("stats")["total_reads_processed"])
        got = await asyncio.gather(*(lane.call("ECHO", str(i)) for i in range(50)))
        after = int(info.info("stats")["total_reads_processed"])
        assert got == [str(i).encode() for i in range(50)]
        # One read of the fifty, one of the first look's INFO (counted after it was read).
        assert after - before <= 2, after - before
    finally:
        info.close()
        await lane.close()
