"""A table's first socket loads the table from the meta its private-table check just
peeked, not from a read of its own (``Tables.get(…, seen=…)``; issue 27): the follow's
sync reads the meta after subscribing, so what changed since the peek is in the table
before the socket is served. On a real Redis (and a server of this module's own, whose
``MONITOR`` shows every read)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from server.config import Settings
from server.store.streams import Store, meta_key
from server.table.meta import Seat, TableMeta, token_hash
from server.table.tables import Tables
from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Lobby, Socket, prompt_actions
from tests.server.test_private_timing import Commands


@pytest.fixture
async def tables(redis_url: str) -> AsyncIterator[Tables]:
    store = Store.from_url(redis_url)
    t = Tables(Settings(redis_url=redis_url), store)
    await t.start()
    yield t
    await t.stop()
    await store.close()


def seat(i: int, name: str) -> Any:
    """A lobby change: ``name`` sits at seat ``i`` with the token ``name``."""
    def change(m: TableMeta) -> dict[str, str]:
        m.seats[i], m.tokens[i] = Seat(name=name, kind="human"), token_hash(name)
        return {"seats": m.seats_json(), f"tok:{i}": m.tokens[i]}
    return change


async def test_a_table_loaded_from_a_peek_holds_what_changed_since(tables: Tables):
    meta, _, _ = await tables.lobby.create("einauge", 2, {}, "seen", private=True)
    await tables.lobby.change(meta.id, seat(0, "first"))
    seen = await tables.peek(meta.id, fresh=True)
    assert seen is not None and seen.seats[1].kind is None
    # Changed after the peek (its notice goes to nobody: nothing here follows the table).
    await tables.lobby.change(meta.id, seat(1, "second"))
    table = await tables.get(meta.id, watch=True, seen=seen)
    assert table is not None and table.subscribed
    assert table.meta.seats[1].name == "second"  # not the peeked meta
    assert table.meta.tokens[1] == token_hash("second")
    assert table.meta.version == (await tables.store.load_meta(meta.id))["version"]
    # The peek's meta (shared with its other callers) is left as it was read.
    assert seen.seats[1].kind is None and table.meta is not seen
    await tables.unwatch(table)


async def test_a_socket_arriving_during_the_first_follow_waits_for_its_sync(tables: Tables):
    """The table is cached (and subscribed) before its follow's sync: a second socket
    finding it so is served only once that sync is done, never the peeked meta."""
    meta, _, _ = await tables.lobby.create("einauge", 2, {}, "second")
    seen = await tables.peek(meta.id, fresh=True)
    assert seen is not None
    await tables.lobby.change(meta.id, seat(0, "after-the-peek"))
    first = asyncio.create_task(tables.get(meta.id, watch=True, seen=seen))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while True:  # every turn of the loop until the first get is following the table
        table = tables.cache.get(meta.id)
        if table is not None and table.following is not None:
            break
        if first.done() or loop.time() > deadline:
            pytest.fail("the first get never was seen following the table")
        await asyncio.sleep(0)
    second = await tables.get(meta.id, watch=True)
    assert second is table and table.following is None
    assert table.meta.seats[0].name == "after-the-peek"
    assert await first is table
    await tables.unwatch(table)


async def test_a_table_gone_since_the_peek_is_not_served(tables: Tables):
    meta, _, _ = await tables.lobby.create("einauge", 2, {}, "gone")
    seen = await tables.peek(meta.id, fresh=True)
    assert seen is not None
    await tables.store.redis.delete(meta_key(meta.id))  # expired, or dropped
    assert await tables.get(meta.id, watch=True, seen=seen) is None
    assert meta.id not in tables.cache


async def test_a_peek_does_not_start_a_get_that_does_not_follow(tables: Tables):
    meta, _, _ = await tables.lobby.create("einauge", 2, {}, "unwatched")
    seen = await tables.peek(meta.id, fresh=True)
    assert seen is not None
    await tables.lobby.change(meta.id, seat(0, "late"))
    table = await tables.get(meta.id, seen=seen)  # no watch: no sync after it
    assert table is not None and table.meta.seats[0].name == "late"


async def test_a_running_table_loaded_from_a_peek_leaves_the_peek_alone(
        tables: Tables, redis_url: str):
    """A load from a peek older than the stored stream replays all that is stored and
    ends at the stored seq; the peek's other callers keep the meta as read."""
    meta, owner, _ = await tables.lobby.create("einauge", 2, {}, "running")
    await tables.lobby.change(meta.id, seat(0, "a"))
    await tables.lobby.change(meta.id, seat(1, "b"))
    await tables.lobby.start_game(meta.id, owner)
    seen = await tables.peek(meta.id, fresh=True)
    assert seen is not None and seen.status == "running"
    read = (seen.seq, seen.head, seen.version)
    # Another process plays a move after the peek.
    other_store = Store.from_url(redis_url)
    other = Tables(Settings(redis_url=redis_url), other_store)
    try:
        mover = await other.get(meta.id)
        assert mover is not None
        who = mover.to_move()[0]
        action = prompt_actions(mover.prompt(who), "einauge")[0]
        after = await other.actions.act(mover, who, "after-the-peek", action, mover.seq)
    finally:
        await other_store.close()
    assert after == seen.seq + 1
    table = await tables.get(meta.id, watch=True, seen=seen)
    assert table is not None and table.seq == after and table.meta.seq == after
    assert (seen.seq, seen.head, seen.version) == read
    await tables.unwatch(table)


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisProcess, ServerProcess]]:
    r = RedisProcess(tmp_path_factory.mktemp("redis"))
    r.start()
    s = ServerProcess(r.url).start()
    yield r, s
    s.stop()
    r.stop()


async def test_a_tables_first_socket_reads_its_meta_twice(own):
    redis, server = own
    lobby = Lobby(server.url)
    try:
        made = await lobby.create(2)
        tid = made["id"]
        token = (await lobby.join(tid, "Ann", seat=0, token=made["owner_token"]))["token"]
        async with Commands(redis.url) as commands, commands.during() as ran:
            sock = await Socket(server.ws_url, tid).connect(token=token)
            welcome = await sock.wait(lambda f: f["t"] == "welcome")
        await sock.close()
        assert welcome["seat"] == 0
        reads = [c for c in ran if c[0] == "hgetall" and meta_key(tid) in c[1]]
        # The private-table check's peek and the follow's sync; the load read it too.
        assert len(reads) == 2, ran
    finally:
        await lobby.close()
