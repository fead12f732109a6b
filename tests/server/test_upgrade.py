"""Upgrading onto the data an older version left in Redis (CHANGELOG.md, 0.1.0; docs/
operations.md, "Rolling deploys and upgrades"): a data set written by commit 5ebf3c0's
own server and test client (tests/server/olddata.py says how; it predates the lobby read
model, sealed seeds and token-free held rows) is loaded into a fresh redis-server, and
the current service started on it migrates it by itself: the old lobby lists' tables are
listed again and the lists are gone, the old account logs in and continues its running
game from a fresh token (its held rows lose their clear tokens), the finished game's
record verifies, and ``cardtable keys rotate`` seals the old clear seeds while the game
goes on."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import redis

from cli.main import main
from server.store.accounts import tables_key
from server.store.streams import meta_key
from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Member, Seats, Socket
from tests.server.olddata import PASSWORD, load
from tests.server.test_lobby_migration import listed
from tests.trust.chaos import verify_record
from tests.waiting import until

FIXTURE = Path(__file__).parent / "data" / "before-a21c4a3.json"


def _held_rows(client: redis.Redis, uid: str) -> dict[str, Any]:
    return {k.decode(): json.loads(v) for k, v in client.hgetall(tables_key(uid)).items()}


async def test_the_service_migrates_an_older_versions_data_at_start(
        tmp_path: Path, capsys) -> None:
    data = json.loads(FIXTURE.read_text())
    made: dict[str, str] = data["made"]
    store = RedisProcess(tmp_path / "redis")
    url = store.start()
    client = redis.Redis.from_url(url)
    server = None
    try:
        load(client, data["keys"])
        names = {base64.b64decode(k["key"]).decode() for k in data["keys"]}
        assert {"tables:open", "tables:running", "tables:ended"} <= names
        uid = client.get("name:{n:oldanna}").decode()
        assert all("token" in row for row in _held_rows(client, uid).values())
        assert not client.hget(meta_key(made["running"]), "server_seed").startswith(b"sealed:")

        server = ServerProcess(url).start()

        async def migrated() -> dict | None:  # in the background at start
            rows = {s: await listed(server.url, s) for s in ("open", "running", "ended")}
            return rows if all(made[s] in rows[s] for s in rows) else None

        rows = await until(migrated, 60, "the old lobby lists in the read model")
        assert rows["running"][made["running"]]["seats"][0]["name"] == "oldanna"
        assert not client.exists("tables:open", "tables:running", "tables:ended")

        anna = Member(server.url)
        await anna.log_in("oldanna", PASSWORD)
        r = await anna.http.get(f"/api/me/tables/{made['running']}")
        assert r.status_code == 200, r.text
        held = r.json()
        assert held["seat"] == 0
        assert "token" not in _held_rows(client, uid)[made["running"]]  # rewritten as read
        games = (await anna.http.get("/api/me/games")).json()
        assert [g["id"] for g in games["running"]] == [made["running"]]
        assert games["running"][0]["my_turn"] is True
        assert [g["id"] for g in games["open"]] == [made["open"]]
        assert all("token" not in row for row in _held_rows(client, uid).values())

        sock = await Socket(server.ws_url, made["running"]).connect(token=held["token"])
        seats = Seats([sock], seed=3)
        before = await seats.step(1)
        assert before > 1  # oldanna moved in the game the old version started

        record = (await anna.http.get(f"/api/tables/{made['ended']}/record")).json()
        # The CLI in a thread: the socket keeps answering the server's pings meanwhile (a
        # loop blocked past uvicorn's 20 s ping timeout is closed with 1011 on a busy machine).
        verified = await asyncio.to_thread(verify_record, record, tmp_path / "record.json")
        assert verified.returncode == 0, verified.stdout + verified.stderr

        # The clear seeds of the old version: sealed by the named command, in play.
        assert await asyncio.to_thread(main, ["keys", "rotate", "--redis-url", url]) == 0
        capsys.readouterr()
        assert client.hget(meta_key(made["running"]), "server_seed").startswith(b"sealed:")
        assert await seats.step(1) > before
        await sock.close()
        await anna.close()
    finally:
        if server is not None:
            server.stop()
        client.close()
        store.stop()
