"""A process keeps a finished game in memory only while someone watches it."""

from __future__ import annotations

import asyncio
import re

from tests.conftest import ServerProcess
from tests.server.client import Lobby, Socket, ended


def cached(metrics_text: str) -> float:
    """The ``einauge_tables_cached`` gauge."""
    return float(re.search(r"^einauge_tables_cached (\S+)$", metrics_text, re.M).group(1))


async def test_finished_unwatched_table_leaves_the_cache_and_is_rebuilt_on_demand(redis_url):
    srv = ServerProcess(redis_url).start()
    lobby = Lobby(srv.url)
    try:
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
        for _ in range(100):
            if cached((await lobby.get("/metrics")).text) == 0:
                break
            await asyncio.sleep(0.1)
        assert cached((await lobby.get("/metrics")).text) == 0
        record = await lobby.get(f"/api/tables/{tid}/record")  # rebuilt from Redis
        assert record.status_code == 200 and record.json()["result"]["winners"]
    finally:
        await lobby.close()
        srv.stop()
