"""The store's set-up commands on its lane (server/store/route.py) against a real Redis:
each answers exactly as through the pooled client (two stores on the same Redis, one
with a lane and one without), goes out on the lane's connection, fails within the
store's bound while Redis is paused, and is retried on a fresh connection when its
connection is lost."""

from __future__ import annotations

import asyncio
import secrets
import signal

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.play.chat import CHANNELS, PLAYERS, SPECTATORS
from server.store import client as redis_client
from server.store import streams as st
from server.store.presence import PresenceHashes, presence_key
from server.store.sealing import SeedSeal
from server.store.streams import Store
from server.table.meta import PACKED, compact
from tests.server.test_store import new_meta


@pytest.fixture
def single(redis_mode):
    if redis_mode == "cluster":
        pytest.skip("a lane is for one Redis; a cluster keeps the pooled client")


@pytest.fixture
async def both(redis_mode, redis_url, tmp_path):
    """``(on the lane, pooled, a blocking client)`` on one Redis, sealing with one key; on
    a cluster both stores are pooled (the same assertions then hold for its client)."""
    seal = SeedSeal.at(tmp_path / "seal.key")
    lane = Store.from_url(redis_url, seal=seal)
    pooled = Store(redis_client.connect(redis_url), seal=seal)
    assert pooled.lane is None and (lane.lane is None) == (redis_mode == "cluster")
    plain = redis_client.connect_sync(redis_url)
    yield lane, pooled, plain
    plain.close()
    await lane.close()
    await pooled.close()


def lane_client(plain: redis.Redis, lane_id: int) -> dict[str, str]:
    """Redis's ``CLIENT LIST`` entry of the lane's connection (``cmd``: its last command)."""
    line = plain.execute_command("CLIENT", "LIST", "ID", lane_id)
    line = line.decode() if isinstance(line, bytes) else line
    return dict(f.split("=", 1) for f in line.split())


async def test_each_set_up_command_answers_on_the_lane_as_through_the_pool(both):
    lane, pooled, plain = both
    lane_id = None if lane.lane is None else await lane.lane.call("CLIENT", "ID")

    async def on_lane(call, command: str):
        """``call()``'s result, checking that it went out on the lane: the connection's
        last command was a PING, and is ``command`` afterwards (a script's EVALSHA, or
        its EVAL the first time this Redis runs it)."""
        if lane.lane is None:  # a cluster
            return await call()
        assert await lane.lane.call("PING") == b"PONG"
        got = await call()
        ran = lane_client(plain, lane_id)["cmd"]
        assert ran == command or (command, ran) == ("evalsha", "eval"), (call, ran)
        return got

    a, b = new_meta(), new_meta()
    # create: the same fields (the seed sealed) and an expiry, whichever path wrote them.
    assert await on_lane(lambda: lane.create(a.id, a.to_fields(), ttl=60), "evalsha") is None
    assert await pooled.create(b.id, a.to_fields(), ttl=60) is None
    assert sorted(plain.hkeys(st.meta_key(a.id))) == sorted(plain.hkeys(st.meta_key(b.id)))
    assert 0 < plain.ttl(st.meta_key(a.id)) <= 60 and 0 < plain.ttl(st.meta_key(b.id)) <= 60
    assert await lane.load_meta(a.id) == await pooled.load_meta(b.id) == a.to_fields()
    # create_new: exactly one of the two creates it, either way round.
    for first, second in ((lane, pooled), (pooled, lane)):
        c = new_meta()
        assert await first.create_new(c.id, c.to_fields(), ttl=60) is True
        assert await second.create_new(c.id, c.to_fields(), ttl=60) is False
    # load_meta: a table, a gone one, a compacted one.
    for table in (a.id, "gone-" + a.id):
        assert (await on_lane(lambda t=table: lane.load_meta(t), "hgetall")
                == await pooled.load_meta(table))
    assert await lane.load_meta("gone-" + a.id) == {}
    packed = new_meta()
    plain.hset(st.meta_key(packed.id),
               mapping={PACKED: compact({"game": "einauge", "x": "1"}), "status": "ended"})
    assert (await lane.load_meta(packed.id) == await pooled.load_meta(packed.id)
            == {"game": "einauge", "x": "1", "status": "ended"})
    # update_meta: the new version, then None for a stale version and a gone table.
    assert await on_lane(lambda: lane.update_meta(a.id, {"name": "n"}), "evalsha") == 1
    assert await pooled.update_meta(b.id, {"name": "n"}) == 1
    for store, table in ((lane, a.id), (pooled, b.id)):
        assert await store.update_meta(table, {"name": "m"}, expected_version="7") is None
        assert await store.update_meta("gone-" + table, {"name": "m"}) is None
    assert await lane.load_meta(a.id) == await pooled.load_meta(b.id)
    # The events, their action ids and the stored seq of one table, read both ways.
    entries = [{"e": {"type": "x", "n": i}, "h": f"{i:064x}"} for i in range(3)]
    ok = await lane.append(a.id, 0, entries, "1" * 64, "0:a", prev=a.head)
    assert (ok.status, ok.seq) == ("ok", 3)
    for after in (0, 2, 5):
        assert (await on_lane(lambda n=after: lane.load_raw(a.id, n), "lrange")
                == await pooled.load_raw(a.id, after))
        assert await lane.load_entries(a.id, after) == await pooled.load_entries(a.id, after)
    assert await lane.load_entries(a.id) == entries
    for key in ("0:a", "0:b"):
        assert (await on_lane(lambda k=key: lane.act_seq(a.id, k), "hget")
                == await pooled.act_seq(a.id, key))
    assert await lane.act_seq(a.id, "0:a") == 3
    for table in (a.id, "gone-" + a.id):
        assert (await on_lane(lambda t=table: lane.stored_seq(t), "hget")
                == await pooled.stored_seq(table))
    assert await lane.stored_seq(a.id) == 3 and await lane.stored_seq("gone-" + a.id) is None
    # The chat history of each channel.
    for i in range(2):
        msg = {"id": f"m{i}", "channel": PLAYERS, "at": 1.0, "text": f"t{i}"}
        assert await lane.append_chat(a.id, PLAYERS, msg, 10, 60, (f"p{i}",)) == 0.0
    history = await on_lane(lambda: lane.load_chat(a.id, CHANNELS), "lrange")
    assert history == await pooled.load_chat(a.id, CHANNELS)
    assert [m["id"] for m in history[0]] == ["m0", "m1"] and history[1] == []
    assert await lane.load_chat(a.id, (SPECTATORS,)) == [[]]
    # The archive: none, then the stored bytes.
    assert await on_lane(lambda: lane.load_archive(a.id), "get") is None
    assert await pooled.load_archive(a.id) is None
    plain.set(st.archive_key(a.id), b"\x00blob")
    assert await lane.load_archive(a.id) == await pooled.load_archive(a.id) == b"\x00blob"
    # hit: one window counted by both, with its expiry.
    key = f"route:{secrets.token_hex(4)}"
    assert await on_lane(lambda: lane.hit(key, 60), "expire") == 1
    assert await pooled.hit(key, 60) == 2
    assert await lane.hit(key, 60) == 3
    # The deadline index and the stored seq in one round trip.
    for store in (lane, pooled):
        assert await store.settle_deadline(a.id, 7_000) == 3
        assert plain.zscore(st.DEADLINES, a.id) == 7_000
        await store.deadlines.lower(a.id, 9_000)
        assert plain.zscore(st.DEADLINES, a.id) == 7_000
        await store.deadlines.set(a.id, 5_000)
        assert plain.zscore(st.DEADLINES, a.id) == 5_000
        assert await store.settle_deadline(a.id, None) == 3
        assert plain.zscore(st.DEADLINES, a.id) is None
    # A presence write returns the whole hash either way.
    hashes = [PresenceHashes(s.redis, s.timeout, s.lane) for s in (lane, pooled)]
    for i, h in enumerate(hashes):
        got = await h.write(a.id, {f"p{i}": "x"}, [], 60, notify=True)
        assert got == {f"p{j}": "x" for j in range(i + 1)}
    assert await hashes[0].write_many([(a.id, {}, ["p1"], True)], 60) == [{"p0": "x"}]
    assert plain.ttl(presence_key(a.id)) > 0


async def test_error_replies_are_the_same_on_both_paths(both):
    lane, pooled, plain = both
    table = new_meta().id
    plain.set(st.meta_key(table), "not a hash")
    plain.set(st.events_key(table), "not a list")
    raised = []
    for store in (lane, pooled):
        for call in (lambda s=store: s.load_meta(table), lambda s=store: s.load_raw(table),
                     lambda s=store: s.stored_seq(table),
                     lambda s=store: s.update_meta(table, {"name": "n"})):
            with pytest.raises(ResponseError) as e:
                await call()
            raised.append((type(e.value), str(e.value).split(" script:")[0]))
    assert raised[:4] == raised[4:]
    assert "WRONGTYPE" in raised[0][1]


async def test_a_paused_redis_fails_each_call_within_the_bound(single, own_redis):
    # A Redis that stops answering (SIGSTOP: its sockets stay open; CLIENT PAUSE would hold
    # the UNPAUSE too): the calls on the lane fail with redis-py's TimeoutError after the
    # store's bound (the lane's timer: up to SWEEP s late), not at the first reply after
    # SIGCONT; afterwards the lane is in step again.
    store = Store.from_url(own_redis.url, timeout=0.3)
    proc = own_redis.process
    assert proc is not None and store.lane is not None
    meta = new_meta()
    try:
        await store.create(meta.id, meta.to_fields(), ttl=60)
        loop = asyncio.get_running_loop()
        proc.send_signal(signal.SIGSTOP)
        try:
            t0 = loop.time()
            async with asyncio.timeout(10):  # an unbounded call fails the test, not hangs it
                got = await asyncio.gather(
                    store.load_meta(meta.id), store.update_meta(meta.id, {"name": "n"}),
                    store.create_new(meta.id, meta.to_fields(), ttl=60),
                    store.load_chat(meta.id, CHANNELS), store.load_entries(meta.id),
                    store.act_seq(meta.id, "0:a"), store.stored_seq(meta.id),
                    store.hit("route", 60), store.settle_deadline(meta.id, 1),
                    return_exceptions=True)
            waited = loop.time() - t0
        finally:
            proc.send_signal(signal.SIGCONT)
        assert all(isinstance(g, RedisTimeoutError) for g in got), got
        assert waited >= 0.3
        # The late replies are read and dropped: each caller gets its own reply again.
        assert await store.stored_seq(meta.id) == 0
        assert (await store.load_meta(meta.id))["game"] == "einauge"
        assert await store.load_chat(meta.id, CHANNELS) == [[], []]
    finally:
        await store.close()


async def test_a_lost_connection_is_retried_on_a_fresh_one(single, both):
    # The lane's connection is killed while the lane still holds it: each call is written
    # to it, fails with the lost connection and is sent again on a new one.
    lane, pooled, plain = both
    assert lane.lane is not None
    meta = new_meta()
    await pooled.create(meta.id, meta.to_fields(), ttl=60)
    calls = [(lambda: lane.load_meta(meta.id), lambda r: r["game"] == "einauge"),
             (lambda: lane.update_meta(meta.id, {"name": "n"}), lambda r: r == 1),
             (lambda: lane.load_chat(meta.id, CHANNELS), lambda r: r == [[], []]),
             (lambda: lane.stored_seq(meta.id), lambda r: r == 0)]
    for call, right in calls:
        old = await lane.lane.call("CLIENT", "ID")
        writer = lane.lane._writer
        plain.execute_command("CLIENT", "KILL", "ID", old)  # blocking: the loop sees it later
        assert writer is not None and not writer.is_closing()
        assert right(await call())
        assert await lane.lane.call("CLIENT", "ID") != old


async def test_a_gone_redis_is_a_connection_error_on_both_paths(single, own_redis):
    lane = Store.from_url(own_redis.url)
    pooled = Store(redis_client.connect(own_redis.url, cluster=False))
    table = new_meta().id
    try:
        assert await lane.load_meta(table) == await pooled.load_meta(table) == {}
        await asyncio.to_thread(own_redis.stop)
        for store in (lane, pooled):
            with pytest.raises(RedisConnectionError):
                await store.load_meta(table)
    finally:
        await lane.close()
        await pooled.close()
