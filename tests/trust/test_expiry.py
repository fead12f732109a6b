"""Idle expiry (issue 7): an unstarted table expires after the configured idle time; a
finished game stays retrievable (summary, events, record) however long it is idle."""

from __future__ import annotations

import asyncio

from tests.server.client import ended
from tests.trust.wire import Client, Lobby, crashes

IDLE = 1  # seconds (CARDTABLE_IDLE_EXPIRY)


async def test_unstarted_tables_expire_and_finished_games_stay(redis_url, spawn) -> None:
    server = spawn(redis_url, "server",
                   {"CARDTABLE_IDLE_EXPIRY": str(IDLE), "CARDTABLE_BOT_DELAY": "0"})
    await asyncio.to_thread(server.start)
    lobby = Lobby(server.url)
    idle = await lobby.create(2)
    await lobby.join(idle["id"], "Anna")
    played = await lobby.create(2)
    for seat in range(2):
        await lobby.bot(played["id"], seat)
    watcher = await Client(server.ws_url, played["id"]).connect()
    await lobby.start(played["id"], played["owner_token"])
    await watcher.wait(ended)
    await watcher.close()
    record = (await lobby.http.get(f"/api/tables/{played['id']}/record")).json()

    await asyncio.sleep(IDLE + 1.5)  # Redis expires the idle table's keys in real time
    gone = await lobby.http.get(f"/api/tables/{idle['id']}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "no_table"
    listed = (await lobby.http.get("/api/tables?status=open")).json()["tables"]
    assert idle["id"] not in {t["id"] for t in listed}
    for path in ("", "/events", "/record"):
        r = await lobby.http.get(f"/api/tables/{played['id']}{path}")
        assert r.status_code == 200, (path, r.text)
    assert (await lobby.http.get(f"/api/tables/{played['id']}/record")).json() == record
    await lobby.close()
    server.stop()
    assert not crashes(server.log_text())
