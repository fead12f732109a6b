"""A process keeps a table in memory only while someone (a socket or a bot) watches it."""

from __future__ import annotations

import asyncio
import contextlib
import re

import pytest

from tests.conftest import ServerProcess
from tests.server.client import Lobby, Seats, Socket, apply_deltas, current_seq, ended
from tests.waiting import until


def cached(metrics_text: str) -> float:
    """The ``cardtable_tables_cached`` gauge."""
    return float(re.search(r"^cardtable_tables_cached (\S+)$", metrics_text, re.M).group(1))


async def wait_cached(lobby: Lobby, count: int) -> float:
    """Poll the gauge until it shows ``count`` (10 s at most); returns the last reading."""
    last: list[float] = []

    async def shows() -> bool:
        last.append(cached((await lobby.get("/metrics")).text))
        return last[-1] == count

    # The callers compare the last reading themselves, to name it.
    with contextlib.suppress(AssertionError):
        await until(shows, what=f"{count} tables cached")
    return last[-1]


@pytest.fixture
async def fresh(own_redis):
    """A server process of its own on a Redis of its own (the cache gauge counts only this
    test's tables: a process resumes every running bot game of its Redis when it starts)
    and its lobby client."""
    srv = ServerProcess(own_redis.url).start()
    lobby = Lobby(srv.url)
    yield srv, lobby
    await lobby.close()
    srv.stop()


async def test_finished_unwatched_table_leaves_the_cache_and_is_rebuilt_on_demand(fresh):
    srv, lobby = fresh
    table = await lobby.create(2)
    tid = table["id"]
    for seat in range(2):
        await lobby.bot(tid, seat, "random")
    watcher = await Socket(srv.ws_url, tid).connect()
    await watcher.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid, table["owner_token"])
    await watcher.wait(ended, timeout=60)
    assert cached((await lobby.get("/metrics")).text) == 1  # watched: kept
    await watcher.close()
    assert await wait_cached(lobby, 0) == 0
    record = await lobby.get(f"/api/tables/{tid}/record")  # rebuilt from Redis
    assert record.status_code == 200 and record.json()["result"]["winners"]


async def test_an_abandoned_lobby_leaves_the_cache_and_still_serves(fresh):
    srv, lobby = fresh
    table = await lobby.create(2)
    tid = table["id"]
    watcher = await Socket(srv.ws_url, tid).connect()
    await watcher.wait(lambda f: f["t"] == "welcome")
    assert await wait_cached(lobby, 1) == 1
    await watcher.close()
    assert await wait_cached(lobby, 0) == 0
    joined = await lobby.join(tid, "Late")  # the table is still there, from Redis
    assert joined["seat"] == 0
    back = await Socket(srv.ws_url, tid).connect(token=joined["token"])
    welcome = await back.wait(lambda f: f["t"] == "welcome")
    assert welcome["seat"] == 0 and welcome["table"]["seats"][0]["name"] == "Late"
    await back.close()


async def test_a_running_game_nobody_watches_leaves_the_cache_and_resumes(fresh):
    srv, lobby = fresh
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{i}"))["token"] for i in range(2)]
    sockets = [await Socket(srv.ws_url, tid).connect(token=t) for t in tokens]
    for s in sockets:
        await s.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid, table["owner_token"])
    seats = Seats(sockets, seed=3)
    seq = await seats.step(6)
    assert seq > 6
    first = sockets[0]
    await first.wait(lambda f: f["t"] == "deltas" and f["seq"] == seq)
    view = apply_deltas(dict(next(f for f in first.frames if f["t"] == "welcome")["view"]
                             or {}), first.deltas())
    for s in sockets:
        await s.close()
    assert await wait_cached(lobby, 0) == 0
    # Reconnecting rebuilds the table by replay; the deltas missed are none, and
    # play goes on from the same seq.
    again = [await Socket(srv.ws_url, tid).connect(token=t, last_seq=current_seq(s))
             for t, s in zip(tokens, sockets, strict=True)]
    welcome = await again[0].wait(lambda f: f["t"] == "welcome")
    assert welcome["seq"] == seq and welcome["view"] is None
    assert await wait_cached(lobby, 1) == 1
    state = (await lobby.get(f"/api/tables/{tid}/view")).json()
    assert state == view  # the view rebuilt by replay is the one the players had
    more = Seats(again, seed=4)
    more.n = seats.n  # fresh action ids: a repeated one would get its first outcome
    later = await more.step(2)
    assert later == 0 or later > seq
    for s in again:
        await s.close()


async def test_a_socket_refused_for_its_token_leaves_no_table_cached(fresh):
    srv, lobby = fresh
    table = await lobby.create(2)
    tid = table["id"]
    assert cached((await lobby.get("/metrics")).text) == 0  # HTTP loads are not cached
    sock = await Socket(srv.ws_url, tid).connect(token="not-a-seat-token")
    assert await sock.wait_closed() == 1008
    assert await wait_cached(lobby, 0) == 0


async def test_a_socket_joining_while_another_leaves_gets_a_followed_table(redis_url):
    """One socket's unwatch (the room empty) while another socket's ``get(watch=True)``
    is still subscribing must not drop the table: the second socket would be served a
    table nobody follows, and miss every change (it happened in test_limits' flooding
    test: the watcher never got the lobby change)."""
    from server.config import Settings
    from server.store.streams import Store
    from server.table.tables import Tables

    store = Store.from_url(redis_url)
    tables = Tables(Settings(redis_url=redis_url), store)
    await tables.start()
    try:
        meta, _, _ = await tables.lobby.create("einauge", 2, {}, "race")
        first = await tables.get(meta.id, watch=True)  # a socket that leaves at once
        assert first is not None and first.subscribed
        await tables.unwatch(first)  # it left: nothing watches, the table is dropped
        assert meta.id not in tables.cache
        joining = asyncio.create_task(tables.get(meta.id, watch=True))
        # Until the joining socket is subscribing (awaiting Redis). Every turn of the loop,
        # so the moment is not missed, for as long as a loaded Redis takes to answer the
        # load before it (a fixed count of turns, ~20 ms, was not always enough).
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while True:
            table = tables.cache.get(meta.id)
            if table is not None and table.subscribed and not joining.done():
                break
            if joining.done() or loop.time() > deadline:
                pytest.fail("the joining get never was seen subscribing")
            await asyncio.sleep(0)  # one turn of the loop: the moment lasts only a few
        await tables.unwatch(table)  # a third socket leaves: the room is still empty
        got = await joining
        assert got is table and tables.cache.get(meta.id) is table and table.subscribed
    finally:
        await tables.stop()
        await store.close()


async def test_peeks_in_flight_share_one_parse_and_a_later_peek_reads_again(redis_url):
    """Sockets arriving together share one read of the meta and its parse (the same
    object, read only); a peek after a change reads Redis again: a seat taken is seen,
    and a token no longer the seat's no longer admits to the private table."""
    from server.config import Settings
    from server.play import roles
    from server.store.streams import Store
    from server.table.meta import Seat, token_hash
    from server.table.tables import Tables

    store = Store.from_url(redis_url)
    tables = Tables(Settings(redis_url=redis_url), store)
    try:
        meta, _, _ = await tables.lobby.create("einauge", 2, {}, "peeks", private=True)

        def seat(token: str):
            def change(m):
                m.seats[0], m.tokens[0] = Seat(name=token, kind="human"), token_hash(token)
                return {"seats": m.seats_json(), "tok:0": m.tokens[0]}
            return change

        await tables.lobby.change(meta.id, seat("first"))
        a, b, c = await asyncio.gather(*(tables.peek(meta.id, fresh=True) for _ in range(3)))
        assert a is b is c and a.seats[0].name == "first"
        assert roles.may_see(a, "first", None)
        await tables.lobby.change(meta.id, seat("second"))  # the seat changed hands
        d = await tables.peek(meta.id, fresh=True)
        assert d is not a and d.seats[0].name == "second"
        assert roles.may_see(d, "second", None) and not roles.may_see(d, "first", None)
        assert await tables.peek("no-such-table", fresh=True) is None
    finally:
        await store.close()
