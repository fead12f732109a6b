"""The Redis layout and scripts (server/store/streams.py) against a real Redis."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import time

import pytest
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import streams as st
from server.store.presence import PresenceHashes
from server.store.streams import Store
from server.table.meta import Seat, TableMeta, token_hash
from tests.waiting import until


@pytest.fixture
async def store(redis_url):
    s = Store.from_url(redis_url)
    yield s
    await s.close()


def new_meta(seats: int = 2) -> TableMeta:
    return TableMeta(id=secrets.token_urlsafe(6), game="einauge", status="open", name="t",
                     options={"end_rule": "round", "color_bonus": False},
                     seats=[Seat() for _ in range(seats)], contributions=[""] * seats,
                     commitment="c" * 64, server_seed="s" * 64, created_at=1.0,
                     tokens=[""] * seats, head="a" * 64)


async def next_published(pubsub) -> dict:
    """The next ``smessage`` of a pub/sub (a cluster's reads the sharded way)."""
    get = getattr(pubsub, "get_sharded_message", pubsub.get_message)
    msg = None
    while msg is None or msg["type"] != "smessage":
        msg = await get(timeout=2)
    return msg


def test_every_key_of_a_table_shares_its_hash_tag():
    keys = [st.meta_key("ab"), st.events_key("ab"), st.acts_key("ab"), st.channel("ab")]
    assert all("{ab}" in k for k in keys) and len(set(keys)) == 4


async def test_append_checks_seq_and_action_id_and_publishes(store):
    meta = new_meta()
    await store.create(meta.id, meta.to_fields(), ttl=60)
    pubsub = store.redis.pubsub()
    await pubsub.ssubscribe(st.channel(meta.id))

    entries = [{"e": {"type": "x", "n": i}, "h": f"{i:064x}"} for i in range(3)]
    ok = await store.append(meta.id, 0, entries, head="f" * 64, act_key="0:a1",
                            prev=meta.head)
    assert (ok.status, ok.seq) == ("ok", 3)
    msg = await next_published(pubsub)
    published = st.unpack(msg["data"])
    assert published == {"by": store.origin, "table": meta.id, "from": 1, "prev": meta.head,
                         "entries": entries, "meta": False}
    # Marked as this store's: its own subscriber drops it unread (the bytes after the map
    # header), another process's reads it.
    assert msg["data"].startswith(store.own_echo, 1)
    assert await store.load_entries(meta.id) == entries
    assert await store.load_entries(meta.id, 2) == entries[2:]
    fields = await store.load_meta(meta.id)
    assert fields["seq"] == "3" and fields["head"] == "f" * 64

    dup = await store.append(meta.id, 3, entries[:1], head="0" * 64, act_key="0:a1")
    assert (dup.status, dup.seq) == ("dup", 3)
    stale = await store.append(meta.id, 1, entries[:1], head="0" * 64, act_key="0:a2")
    assert (stale.status, stale.seq) == ("stale", 3)
    # The right seq on another stream (built on another head) is stale too.
    other = await store.append(meta.id, 3, entries[:1], head="0" * 64, act_key="0:a2",
                               prev="e" * 64)
    assert (other.status, other.seq) == ("stale", 3)
    assert len(await store.load_entries(meta.id)) == 3
    assert await store.act_seq(meta.id, "0:a1") == 3
    assert await store.act_seq(meta.id, "0:a2") is None
    missing = await store.append("nope-" + meta.id, 0, entries, head="0" * 64)
    assert missing.status == "missing"
    await pubsub.aclose()


PACKED_ARGS = [
    ("EVALSHA", "a" * 40, 4, "t:{x}:meta", "t:{x}:events", 17, "", "0:a1", "f" * 64,
     st.pack({"entries": [{"e": {"n": 1}}]}), 2, -1, 2**70, 0.1, 1e300, float("inf")),
    ("CONFIG GET", "maxmemory"),
    ("HSET", "k", "ünïcödé name", b"\x00\xff", memoryview(b"ab"), bytearray(b"cd")),
    ("SET", "k", "x" * 10_000),  # beyond redis-py's buffer cutoff (6,000 bytes)
]


async def test_commands_go_out_exactly_as_redis_pys_own_packer_writes_them(store, redis_mode):
    """The service's connections pack commands with hiredis (server/store/client.py):
    byte for byte what redis-py's Python packer writes, the same errors for what it
    refuses, and an append still stores and reads back."""
    from redis.asyncio.connection import Connection
    from redis.exceptions import DataError

    if redis_mode == "cluster":
        pytest.skip("the cluster client keeps redis-py's packer")
    cls = store.redis.connection_pool.connection_class
    assert cls.__name__.startswith("Hiredis") and issubclass(cls, Connection)
    ours, theirs = cls(), Connection()
    for args in PACKED_ARGS:
        assert b"".join(ours.pack_command(*args)) == b"".join(
            bytes(c) for c in theirs.pack_command(*args)), args[0]
    commands = [("SET", "a", 1), ("GET", "a"), ("SET", "b", "x" * 7_000)]
    assert b"".join(ours.pack_commands(commands)) == b"".join(
        bytes(c) for c in theirs.pack_commands(commands))
    for bad in (True, None, object()):
        for conn in (ours, theirs):
            with pytest.raises(DataError):
                conn.pack_command("SET", "k", bad)
    meta = new_meta()
    await store.create(meta.id, meta.to_fields(), ttl=60)
    entries = [{"e": {"type": "x", "name": "ünï"}, "h": "0" * 64}]
    ok = await store.append(meta.id, 0, entries, head="1" * 64, act_key="0:b", prev=meta.head)
    assert (ok.status, ok.seq) == ("ok", 1)
    assert await store.load_entries(meta.id) == entries


async def test_meta_updates_check_the_version_and_open_tables_expire(store):
    meta = new_meta()
    await store.create(meta.id, meta.to_fields(), ttl=60)
    v = await store.update_meta(meta.id, {"name": "new"}, expected_version="0", ttl=60)
    assert v == 1
    assert await store.update_meta(meta.id, {"name": "lost"}, expected_version="0") is None
    assert (await store.load_meta(meta.id))["name"] == "new"
    assert 0 < await store.redis.ttl(st.meta_key(meta.id)) <= 60

    # The start (an append with the lobby version) removes the expiry for good.
    ok = await store.append(meta.id, 0, [{"e": {"type": "x"}, "h": "0" * 64}], head="0" * 64,
                            expected_version="0", meta_fields={"status": "running"})
    assert ok.status == "stale"  # the version moved on to 1
    ok = await store.append(meta.id, 0, [{"e": {"type": "x"}, "h": "0" * 64}], head="0" * 64,
                            expected_version="1", meta_fields={"status": "running"})
    assert ok.status == "ok"
    assert await store.redis.ttl(st.meta_key(meta.id)) == -1
    assert (await store.load_meta(meta.id))["status"] == "running"

    idle = new_meta()
    await store.create(idle.id, idle.to_fields(), ttl=1)
    await asyncio.sleep(1.6)  # Redis expires the key itself (1 s TTL): its clock, not ours
    assert await store.load_meta(idle.id) == {}


def summary(meta: TableMeta, status: str, created: float) -> dict:
    meta.status, meta.created_at = status, created
    return meta.summary()


async def test_lobby_index_moves_rows_keeps_the_newest_version_and_drops_expired(store):
    from server.store.lobby_index import LobbyIndex

    # The index's clock is the ``now`` each listing is given: the test sets it, so b's
    # expiry neither passes early (a slow call between two steps) nor needs a pause.
    lobby = LobbyIndex(store.redis, tag=secrets.token_hex(4))
    a, b = new_meta(), new_meta()
    base = 1_700_000_000.0
    assert await lobby.put(summary(a, "open", base + 1), 0, expires_at=base + 50)
    assert await lobby.put(summary(b, "open", base + 2), 0, expires_at=base + 0.5)
    listed = await lobby.listing(["open"], 2, base)
    assert [r["id"] for r in listed] == [b.id, a.id]
    assert listed[1] == summary(a, "open", base + 1)

    # a start (version 1) moves the row; an older write arriving late changes nothing
    assert await lobby.put(summary(a, "running", base + 1), 1)
    assert not await lobby.put(summary(a, "open", base + 1), 0, expires_at=base + 50)
    assert a.id not in {r["id"] for r in await lobby.listing(["open"], 1000, base)}
    running = await lobby.listing(["running"], 1000, base)
    assert [r for r in running if r["id"] == a.id] == [summary(a, "running", base + 1)]

    # b's meta expired: the listing drops its row
    assert b.id in {r["id"] for r in await lobby.listing(["open"], 1000, base + 0.4)}
    assert b.id not in {r["id"] for r in await lobby.listing(["open"], 1000, base + 0.6)}
    assert await lobby.put(summary(b, "open", base + 2), 1)  # its version went with it


async def test_lobby_index_keeps_only_the_newest_ended_rows(store):
    import time

    from server.store.lobby_index import LobbyIndex

    lobby = LobbyIndex(store.redis, tag=secrets.token_hex(4), keep_ended=3)
    metas = [new_meta() for _ in range(5)]
    for i, m in enumerate(metas):
        await lobby.put(summary(m, "ended", 100.0 + i), 5)
    listed = await lobby.listing(["ended"], 10, time.time())
    assert [r["id"] for r in listed] == [m.id for m in reversed(metas[2:])]


async def test_rate_counter(store):
    key = secrets.token_hex(4)
    assert [await store.hit(key, 3600) for _ in range(3)] == [1, 2, 3]


@pytest.mark.parametrize("lane", [True, False], ids=["lane", "pool"])
async def test_presence_of_many_tables_in_one_call(store, lane):
    """Writes with the hash read back and renewals (written only), on the store's lane
    and through redis-py's pipeline (a Redis Cluster's way), alike."""
    if lane and store.lane is None:
        pytest.skip("no lane on a Redis Cluster")
    hashes = PresenceHashes(store.redis, store.timeout, store.lane if lane else None)
    pa, pb, pc, pd = (f"p{x}-{lane}" for x in "abcd")
    await hashes.write(pa, {"on:0:p1": "5", "spec:p1": "2 5"}, [], 60, False)
    await hashes.write(pd, {"on:0:p1": "5", "seen:0": "1"}, [], 60, False)
    got = await hashes.write_many([(pa, {"on:1:p1": "7"}, ["spec:p1"], True),
                                   (pb, {"seen:0": "3"}, [], True), (pc, {}, [], True),
                                   (pd, {"on:0:p1": "9", "seen:0": "4"}, [], False)], 60)
    assert got == [{"on:0:p1": "5", "on:1:p1": "7"}, {"seen:0": "3"}, {}, None]
    assert await hashes.write(pa, {}, [], 60, False) == got[0]
    assert await hashes.write(pd, {}, [], 60, False) == {"on:0:p1": "9", "seen:0": "4"}
    assert await hashes.write_many([(pd, {}, [], False)], 60) == [None]


async def test_own_notices_are_marked_for_the_writers_subscriber_to_drop(store):
    """A presence notice carries the store's origin first: its own process's subscriber
    drops it (that process read the hash in the same round trip), every other process
    reads it (server/fanout/subscriber.py)."""
    meta = new_meta()
    await store.create(meta.id, meta.to_fields(), ttl=60)
    pubsub = store.redis.pubsub()
    await pubsub.ssubscribe(st.channel(meta.id))
    try:
        for lane in {None, store.lane}:  # redis-py's pipeline, and the lane when there is one
            await PresenceHashes(store.redis, store.timeout, lane, origin=store.origin).write(
                meta.id, {"on:0:p1": "5"}, [], 60, True)
            msg = await next_published(pubsub)
            assert msg["data"].startswith(store.own_echo, 1)
            assert st.unpack(msg["data"]) == {"by": store.origin, "table": meta.id,
                                              "from": 0, "entries": [], "presence": True}
        # Without an origin (another writer): read by every process, this one too.
        await PresenceHashes(store.redis, store.timeout).write(meta.id, {}, [], 60, True)
        assert not (await next_published(pubsub))["data"].startswith(store.own_echo, 1)

    finally:
        await pubsub.aclose()


def test_meta_round_trip_keeps_secrets_out_of_the_summary():
    meta = new_meta(3)
    token = secrets.token_urlsafe(16)
    meta.seats[1] = Seat(name="Ben", kind="human")
    meta.tokens[1] = token_hash(token)
    meta.contributions[1] = "abc"
    back = TableMeta.from_fields(meta.id, meta.to_fields())
    assert back == meta
    assert back.seat_of(token) == 1 and back.seat_of("forged") is None
    assert back.seat_of(None) is None
    summary = back.summary()
    text = repr(summary)
    assert meta.server_seed not in text and meta.tokens[1] not in text
    assert summary["seats"][1] == {"seat": 1, "name": "Ben", "kind": "human", "seeded": True}


def test_a_parsed_meta_owns_its_empty_lists_and_dicts():
    """Empty options, clock, accounts and name commitments are parsed without the JSON
    parser: each parse still gets objects of its own, and full ones parse as before."""
    empty = new_meta(2)
    empty.options = {}
    fields = empty.to_fields()
    assert (fields["options"], fields["time_control"]) == ("{}", "{}")
    first = TableMeta.from_fields("t", fields)
    first.options["x"] = 1
    first.time_control["base"] = 5
    first.accounts.append("a")
    first.name_commitments.append("c")
    again = TableMeta.from_fields("t", fields)
    assert (again.options, again.time_control, again.accounts, again.name_commitments) == (
        {}, {}, [], [])
    full = new_meta(2)
    full.options, full.time_control = {"target": 50}, {"base": 60, "increment": 2}
    full.accounts, full.name_commitments = ["u1", "u2"], ["c1", "c2"]
    back = TableMeta.from_fields(full.id, {**full.to_fields(), "accounts": '["u1", "u2"]',
                                           "name_commitments": '["c1", "c2"]'})
    assert back == full


async def test_every_call_fails_within_its_bound_when_redis_is_frozen(own_redis, redis_mode):
    """A stopped (SIGSTOP) Redis accepts connections and never answers: each call gives
    up after the store's bound, retries and pool wait included, with a RedisError."""
    if redis_mode == "cluster":
        pytest.skip("freezes one redis-server; tests/server/test_failover.py pauses a node")
    frozen = Store.from_url(own_redis.url, timeout=0.5)
    await frozen.ping()
    os.kill(own_redis.process.pid, signal.SIGSTOP)
    try:
        for call in (frozen.ping(), frozen.load_meta("x"), frozen.hit("frozen", 60),
                     frozen.append("x", 0, [], head="0" * 64)):
            started = time.monotonic()
            with pytest.raises(RedisTimeoutError):
                await call
            assert time.monotonic() - started < 0.5 + 1.0  # not 5 s per attempt, retried
    finally:
        os.kill(own_redis.process.pid, signal.SIGCONT)
    assert await frozen.ping()
    await frozen.close()


async def test_wait_acknowledges_only_what_a_replica_holds(redis_url, redis_mode):
    from server import metrics

    # WAIT returns once the replicas hold the write: a long bound only matters to a
    # replica that acknowledges late (a loaded machine); under the 2 s bound of a call.
    s = Store.from_url(redis_url, wait_replicas=1, wait_ms=1500)
    meta = new_meta()
    await s.create(meta.id, meta.to_fields(), ttl=60)
    pubsub = s.redis.pubsub()
    await pubsub.ssubscribe(st.channel(meta.id))
    entries = [{"e": {"type": "x"}, "h": "1" * 64}]
    unreplicated = metrics.UNREPLICATED._value.get()
    try:
        ok = await s.append(meta.id, 0, entries, head="1" * 64, act_key="0:w")
        assert (ok.status, ok.seq) == ("ok", 1)
        assert st.unpack((await next_published(pubsub))["data"])["entries"] == entries
        dup = await s.append(meta.id, 0, entries, head="1" * 64, act_key="0:w")
        assert (dup.status, dup.seq) == ("dup", 1)
        if redis_mode == "cluster":  # a replica per master: it confirmed both
            assert metrics.UNREPLICATED._value.get() == unreplicated
        else:  # no replica at all: the master's word is all there is, and it is counted
            assert metrics.UNREPLICATED._value.get() == unreplicated + 2
    finally:
        await pubsub.aclose()
        await s.close()


@pytest.mark.parametrize("reader", ["raw", "redis-py"])
async def test_the_subscriber_skips_its_own_appends_only(store, redis_url, reader):
    """A process applies its own appends itself: their echo on the channel is dropped
    unread. Another store's appends, and an append that changes the meta (its notice
    makes the table sync), are delivered; by the subscriber's own reader of one Redis
    (``raw``) and by redis-py's PubSub (a cluster's, or without the address)."""
    from server.fanout.subscriber import Subscriber

    other = Store.from_url(redis_url)
    meta = new_meta()
    await store.create(meta.id, meta.to_fields(), ttl=60)
    got: list[dict] = []

    async def nothing() -> None:
        pass

    raw = store.lane.params if reader == "raw" and store.lane is not None else None
    if reader == "raw" and raw is None:
        pytest.skip("no lane (a cluster): the subscriber reads through redis-py")
    sub = Subscriber(store.redis, lambda _t, msg: got.append(msg), nothing, store.own_echo,
                     raw)
    await sub.start()
    try:
        await sub.follow(meta.id)
        entries = [{"e": {"type": "x", "n": i}, "h": f"{i:064x}"} for i in range(4)]
        assert (await store.append(meta.id, 0, entries[:1], "1" * 64, "0:a",
                                   prev=meta.head)).status == "ok"
        assert (await other.append(meta.id, 1, entries[1:2], "2" * 64, "0:b",
                                   prev="1" * 64)).status == "ok"
        assert (await store.append(meta.id, 2, entries[2:3], "3" * 64, "0:c", prev="2" * 64,
                                   meta_changed=True)).status == "ok"
        assert (await store.append(meta.id, 3, entries[3:], "4" * 64, "0:d",
                                   prev="3" * 64)).status == "ok"
        # A last append by the other process is the barrier: published after the others
        # on the same channel, it comes after whatever they sent.
        assert (await other.append(meta.id, 4, [{"e": {"type": "x", "n": 4}, "h": "5" * 64}],
                                   "5" * 64, "0:e", prev="4" * 64)).status == "ok"
        await until(lambda: any(m["from"] == 5 for m in got), timeout=5, interval=0.02,
                    what="the last append's message")
        assert [(m["from"], m.get("by"), m["meta"]) for m in got] == [
            (2, other.origin, False), (3, None, True), (5, other.origin, False)]
    finally:
        await sub.stop()
        await other.close()
