"""Limits with clear errors, on a server started with small limits."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Lobby, Socket


@pytest.fixture(scope="module")
def strict(tmp_path_factory):
    # Its own Redis: the hourly table counter is shared by every process on a Redis.
    r = RedisProcess(tmp_path_factory.mktemp("limits") / "redis")
    r.start()
    s = ServerProcess(r.url, env={
        "EINAUGE_RATE_PER_S": "5", "EINAUGE_RATE_BURST": "5", "EINAUGE_FLOOD_CLOSE": "20",
        "EINAUGE_CONNS_PER_ADDR": "4", "EINAUGE_TABLES_PER_HOUR": "3"}).start()
    yield s
    s.stop()
    r.stop()


async def test_flooding_gets_rate_limited_then_closed_others_unaffected(strict):
    lobby = Lobby(strict.url)
    table = await lobby.create(2)
    tid = table["id"]
    watcher = await Socket(strict.ws_url, tid).connect()
    flooder = await Socket(strict.ws_url, tid).connect()
    await flooder.wait(lambda f: f["t"] == "welcome")
    for _ in range(60):
        await flooder.send({"t": "sync"})
    assert await flooder.wait_closed() == 1008
    limited = [f for f in flooder.frames if f["t"] == "error"]
    assert limited and {f["code"] for f in limited} == {"rate_limited"}
    welcomes = [f for f in flooder.frames if f["t"] == "welcome"]
    assert len(welcomes) <= 6  # the hello and at most the burst of syncs were served

    # The watcher still gets the lobby changes of its table.
    await lobby.join(tid, "Anna")
    frame = await watcher.wait(lambda f: f["t"] == "table")
    assert frame["table"]["seats"][0]["name"] == "Anna"
    await watcher.close()
    await lobby.close()


async def test_connections_per_address_and_tables_per_hour(strict):
    lobby = Lobby(strict.url)
    r = await lobby.http.post("/api/tables", json={"seats": 2})
    tid = r.json()["id"]
    sockets = [await Socket(strict.ws_url, tid).connect() for _ in range(4)]
    for s in sockets:
        await s.wait(lambda f: f["t"] == "welcome")
    extra = await Socket(strict.ws_url, tid).connect()
    assert await extra.wait_closed() == 4029
    await sockets[0].close()
    await asyncio.sleep(0.2)
    again = await Socket(strict.ws_url, tid).connect()
    await again.wait(lambda f: f["t"] == "welcome")
    for s in (*sockets[1:], again):
        await s.close()

    statuses = [(await lobby.http.post("/api/tables", json={"seats": 2})).status_code
                for _ in range(4)]
    # One was made above (and the flood test made one): the hourly limit of 3 is reached.
    assert 429 in statuses and statuses[0] in (201, 429)
    r = await lobby.http.post("/api/tables", json={"seats": 2})
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
    await lobby.close()
