"""Empty abandoned open tables leave the lobby within minutes (server/table/lobby.py,
``TableLobby.open_expiry``): an open table no person sits at lives
``CARDTABLE_EMPTY_TABLE_EXPIRY`` seconds from its last lobby change (its lobby row, and
its meta: then it closes), one with a person at it ``CARDTABLE_IDLE_EXPIRY``. The servers'
clock is a file the test moves (``ClockFile``): no waiting for minutes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from server.store.streams import meta_key
from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Lobby, auth

EMPTY = 300  # seconds (CARDTABLE_EMPTY_TABLE_EXPIRY)
IDLE = 3600  # seconds (CARDTABLE_IDLE_EXPIRY, its default)


@pytest.fixture
def clock(tmp_path: Path) -> ClockFile:
    return ClockFile(tmp_path / "clock")


@pytest.fixture
def server_clocked(redis_url: str, clock: ClockFile) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url, env={**clock.env,
                                      "CARDTABLE_EMPTY_TABLE_EXPIRY": str(EMPTY)}).start()
    yield s
    s.stop()


@pytest.fixture
async def rds(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    r = aioredis.Redis.from_url(redis_url)
    yield r
    await r.aclose()


async def listed(lobby: Lobby) -> set[str]:
    r = await lobby.get("/api/tables?status=open")
    assert r.status_code == 200
    return {t["id"] for t in r.json()["tables"]}


async def test_an_empty_open_table_leaves_the_lobby_and_closes(
        server_clocked: ServerProcess, clock: ClockFile, rds: aioredis.Redis) -> None:
    lobby = Lobby(server_clocked.url)
    try:
        empty = (await lobby.create(3))["id"]
        seated = (await lobby.create(3))["id"]
        await lobby.join(seated, "Anna")
        left = (await lobby.create(3))["id"]
        ben = (await lobby.join(left, "Ben"))["token"]
        botted = (await lobby.create(3))["id"]
        await lobby.bot(botted, 1)
        assert {empty, seated, left, botted} <= await listed(lobby)
        # The meta closes with the row: an empty table's expires within EMPTY seconds,
        # a table a person sits at within IDLE.
        assert 0 < await rds.ttl(meta_key(empty)) <= EMPTY
        assert 0 < await rds.ttl(meta_key(botted)) <= EMPTY  # bots alone keep no table
        assert EMPTY < await rds.ttl(meta_key(seated)) <= IDLE
        assert EMPTY < await rds.ttl(meta_key(left)) <= IDLE
        # Ben leaves: nobody sits there any more, it is empty from now on.
        r = await lobby.http.post(f"/api/tables/{left}/leave", headers=auth(ben))
        assert r.status_code == 200, r.text
        assert 0 < await rds.ttl(meta_key(left)) <= EMPTY
        # Just before the expiry every table is listed; just after, only Anna's.
        clock.set(EMPTY - 30)
        assert {empty, seated, left, botted} <= await listed(lobby)
        clock.set(EMPTY + 5)
        now = await listed(lobby)
        assert seated in now
        assert not {empty, left, botted} & now
        # Anna's table leaves too once it is as old as the idle expiry.
        clock.set(IDLE + 5)
        assert seated not in await listed(lobby)
    finally:
        await lobby.close()
