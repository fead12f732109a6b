"""The start of a watched table decides on the meta its sockets keep cached, and reads the
meta only for what it refuses (server/table/lobby.py ``start_game``; issue 27): a real
server and a Redis of this module's own, whose ``MONITOR`` shows every read.

The cached meta is never what an accepted start rests on: the append stores only while
the stored version is the cached one. Here the meta is changed in Redis behind the
server's back (no notice published, as when a join's or a token renewal's notice is
still on its way), so the cached table is stale for sure (its ``GET`` shows it), and
the start is answered as on a fresh read: a seat filled meanwhile is seen, an old host
token and an emptied seat are refused, and nothing is stored for them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.store.streams import events_key, meta_key
from server.table.meta import token_hash
from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Lobby, Socket, auth
from tests.server.test_private_timing import Commands


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisProcess, ServerProcess]]:
    """A Redis and a server of this module alone: MONITOR sees every command, whatever
    ``--redis`` says."""
    r = RedisProcess(tmp_path_factory.mktemp("redis"))
    r.start()
    s = ServerProcess(r.url).start()
    yield r, s
    s.stop()
    r.stop()


@pytest.fixture
async def lobby(own) -> AsyncIterator[Lobby]:
    lb = Lobby(own[1].url)
    yield lb
    await lb.close()


@pytest.fixture
async def rds(own) -> AsyncIterator[aioredis.Redis]:
    r = aioredis.Redis.from_url(own[0].url)
    yield r
    await r.aclose()


async def watched(own: Any, lobby: Lobby, seats: int, seated: int
                  ) -> tuple[str, str, list[str], list[Socket]]:
    """A table of ``seats`` seats, the first ``seated`` taken (seat 0 by the creator with
    its owner token), a socket on each taken seat past its welcome: the server caches it.
    Returns the id, the owner token, the seat tokens and the sockets."""
    made = await lobby.create(seats)
    tid, owner = made["id"], made["owner_token"]
    tokens = [(await lobby.join(tid, "Host", seat=0, token=owner))["token"]]
    tokens += [(await lobby.join(tid, f"P{i}", seat=i))["token"] for i in range(1, seated)]
    sockets = []
    for token in tokens:
        s = await Socket(own[1].ws_url, tid).connect(token=token)
        await s.wait(lambda f: f["t"] == "welcome")
        sockets.append(s)
    return tid, owner, tokens, sockets


async def behind_its_back(rds: aioredis.Redis, tid: str, **fields: str) -> None:
    """Change the stored meta as a lobby change does (the version bumped) without the
    notice: the server's cached table keeps the old meta."""
    await rds.hset(meta_key(tid), mapping=fields)
    await rds.hincrby(meta_key(tid), "version", 1)


async def seats_of(rds: aioredis.Redis, tid: str) -> list[dict[str, Any]]:
    return list(json.loads(await rds.hget(meta_key(tid), "seats")))


async def stored(rds: aioredis.Redis, tid: str) -> tuple[dict[bytes, bytes], int]:
    return await rds.hgetall(meta_key(tid)), await rds.llen(events_key(tid))


async def close(sockets: list[Socket]) -> None:
    for s in sockets:
        await s.close()


async def test_a_watched_tables_start_does_not_read_its_meta(own, lobby):
    tid, owner, _, sockets = await watched(own, lobby, 2, 2)
    try:
        async with Commands(own[0].url) as commands, commands.during() as ran:
            assert (await lobby.start(tid, owner))["status"] == "running"
        reads = [c for c in ran if c[0] == "hgetall" and meta_key(tid) in c[1]]
        # The start's own notice makes the table sync once (it may come before the
        # answer); the start itself read it twice (its decision, then its table's sync).
        assert len(reads) <= 1, ran
        for s in sockets:  # the sockets see the game start
            await s.wait(lambda f: f["t"] == "table" and f["table"]["status"] == "running")
    finally:
        await close(sockets)


async def test_a_seat_taken_behind_the_cache_is_seen_by_the_start(own, lobby, rds):
    tid, owner, _, sockets = await watched(own, lobby, 3, 2)
    try:
        seats = await seats_of(rds, tid)
        seats[2] = {**seats[1], "name": "Late"}
        await behind_its_back(rds, tid, seats=json.dumps(seats),
                              **{"tok:2": token_hash("late-token")})
        cached = (await lobby.get(f"/api/tables/{tid}")).json()
        assert cached["seats"][2]["kind"] is None  # the server's cache did not see it
        started = await lobby.start(tid, owner)
        assert started["status"] == "running"
        assert [s["name"] for s in started["seats"]] == ["Host", "P1", "Late"]
        # The game was dealt to the seats read, not to the cached ones.
        watcher = await Socket(own[1].ws_url, tid).connect()
        sockets.append(watcher)
        view = (await watcher.wait(lambda f: f["t"] == "welcome"))["view"]
        assert "Late" in json.dumps(view), view
    finally:
        await close(sockets)


async def test_a_seat_renamed_behind_the_cache_is_dealt_as_stored(own, lobby, rds):
    """The cached meta lets the start through; its append is refused (another version)
    and the start is built again on the meta read, names and deal alike."""
    tid, owner, _, sockets = await watched(own, lobby, 2, 2)
    try:
        seats = await seats_of(rds, tid)
        seats[1]["name"] = "Renamed"
        await behind_its_back(rds, tid, seats=json.dumps(seats))
        assert (await lobby.get(f"/api/tables/{tid}")).json()["seats"][1]["name"] == "P1"
        started = await lobby.start(tid, owner)
        assert [s["name"] for s in started["seats"]] == ["Host", "Renamed"]
        watcher = await Socket(own[1].ws_url, tid).connect()
        sockets.append(watcher)
        view = json.dumps((await watcher.wait(lambda f: f["t"] == "welcome"))["view"])
        assert "Renamed" in view and "P1" not in view, view
    finally:
        await close(sockets)


async def test_a_host_token_renewed_behind_the_cache_no_longer_starts(own, lobby, rds):
    tid, owner, _, sockets = await watched(own, lobby, 2, 2)
    try:
        renewed = token_hash("renewed-owner-token")
        await behind_its_back(rds, tid, owner=renewed, **{"tok:0": renewed})
        before = await stored(rds, tid)
        r = await lobby.http.post(f"/api/tables/{tid}/start", headers=auth(owner))
        assert (r.status_code, r.json()["error"]["code"]) == (401, "bad_token"), r.text
        assert await stored(rds, tid) == before
    finally:
        await close(sockets)


async def test_a_seat_emptied_behind_the_cache_is_refused(own, lobby, rds):
    tid, owner, _, sockets = await watched(own, lobby, 2, 2)
    try:
        seats = await seats_of(rds, tid)
        seats[1] = {"name": None, "kind": None, "bot": None, "level": None, "since": None}
        await behind_its_back(rds, tid, seats=json.dumps(seats), **{"tok:1": ""})
        assert (await lobby.get(f"/api/tables/{tid}")).json()["seats"][1]["kind"] == "human"
        before = await stored(rds, tid)
        r = await lobby.http.post(f"/api/tables/{tid}/start", headers=auth(owner))
        assert (r.status_code, r.json()["error"]["code"]) == (409, "seats_empty"), r.text
        assert await stored(rds, tid) == before
    finally:
        await close(sockets)


async def test_concurrent_starts_of_a_watched_table_start_it_once(own, lobby, rds):
    tid, owner, _, sockets = await watched(own, lobby, 2, 2)
    try:
        answers = await asyncio.gather(*(
            lobby.http.post(f"/api/tables/{tid}/start", headers=auth(owner))
            for _ in range(4)))
        codes = sorted((r.status_code, r.json().get("error", {}).get("code")) for r in answers)
        assert codes == [(200, None)] + [(409, "started")] * 3, codes
        seq = int(await rds.hget(meta_key(tid), "seq"))
        assert seq > 0 and await rds.llen(events_key(tid)) == seq  # one start's entries
    finally:
        await close(sockets)
