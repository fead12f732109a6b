"""Deleting an account (server/http/accounts.py ``delete_account``, engine/chain.py names):
its rated game's record, events, view and chat carry the replacement name, the record
still passes every check of ``cardtable verify``, and no byte of Redis holds the old name,
whether the game is still stored event by event or already archived."""

from __future__ import annotations

import contextlib
import json
import zlib
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from cli.main import main
from engine.chain import REDACTED
from engine.verify import CHECKS, PASS, verify_record
from server.store.accounts import account_key
from server.store.streams import archive_key, events_key
from tests.conftest import ServerProcess
from tests.server.client import Member, Seats, Socket, ended, unique
from tests.waiting import until


async def _everything(client: aioredis.Redis) -> list[tuple[bytes, list[bytes]]]:
    """Every key of the Redis with every value it holds (strings also decompressed, as
    an archive is zlib)."""
    out = []
    async for key in client.scan_iter(count=1000):
        kind = (await client.type(key)).decode()
        if kind == "string":
            raw = await client.get(key)
            values = [raw or b""]
            with contextlib.suppress(zlib.error):
                values.append(zlib.decompress(raw or b""))
        elif kind == "hash":  # an archived game's meta packs its fields (zlib)
            values = [b for kv in (await client.hgetall(key)).items() for b in kv]
            for v in list(values):
                with contextlib.suppress(zlib.error):
                    values.append(zlib.decompress(v))
        elif kind == "list":
            values = await client.lrange(key, 0, -1)
        elif kind == "set":
            values = list(await client.smembers(key))
        elif kind == "zset":
            values = [m for m, _ in await client.zrange(key, 0, -1, withscores=True)]
        elif kind == "stream":  # the audit stream
            values = [b for _, fields in await client.xrange(key)
                      for kv in fields.items() for b in kv]
        else:
            values = []
        out.append((key, values))
    return out


@pytest.mark.parametrize("archived", [False, True], ids=["events", "archive"])
async def test_a_deleted_account_leaves_no_name_and_its_record_still_verifies(
        redis_url, tmp_path: Path, archived: bool, capsys: pytest.CaptureFixture) -> None:
    env = {"CARDTABLE_ARCHIVE_AFTER": "0"} if archived else {"CARDTABLE_ARCHIVE_AFTER": "3600"}
    server = ServerProcess(redis_url, env=env).start()
    other = ServerProcess(redis_url, env=env).start() if not archived else None
    client = aioredis.from_url(redis_url)
    try:
        m = Member(server.url)
        name = unique("gone")
        await m.sign_up(name, email=f"{name}@example.org")
        uid = m.account["id"]
        table = await m.create(2, rated=True)
        tid = table["id"]
        token = (await m.join(tid, "x", token=table["owner_token"]))["token"]
        await m.bot(tid, 1)
        await m.start(tid)
        sock = await Socket(server.ws_url, tid).connect(token=token)
        await sock.send({"t": "chat", "text": "good luck, bot"})
        await sock.wait(lambda f: f["t"] == "chat")
        seats = Seats([sock], seed=9)
        while not any(ended(f) for f in sock.frames):
            await seats.step(10)
        await sock.close()
        if archived:  # nothing watches the ended game: it is archived at once
            async def archived_now() -> bool:
                return not await client.exists(events_key(tid)) and \
                    bool(await client.exists(archive_key(tid)))

            await until(archived_now, what="the ended game archived")
            assert await client.exists(archive_key(tid)) and \
                not await client.exists(events_key(tid))
        # Reports name it: one it filed (open) and one about it, dismissed (a resolved
        # report is kept for 90 days).
        other_name = unique("gone2")
        peer = Member(server.url)
        await peer.sign_up(other_name)
        r = await m.http.post("/api/reports", json={"target": other_name, "reason": "spam"})
        assert r.status_code == 201, r.text
        r = await peer.http.post("/api/reports", json={"target": name, "reason": "abuse"})
        assert r.status_code == 201, r.text
        about = r.json()["report"]["id"]
        assert peer.account is not None
        await client.hset(account_key(peer.account["id"]), "roles", "moderator")
        r = await peer.http.post(f"/api/admin/reports/{about}/dismiss", json={})
        assert r.status_code == 200, r.text
        await peer.close()
        before = (await m.get(f"/api/tables/{tid}/record")).json()
        assert before["players"][0] == name and before["name_salts"][0]
        assert verify_record(before).ok
        found = [k for k, vals in await _everything(client)
                 if any(name.encode() in v for v in vals)]
        assert found  # the scan below can see the name: it is there before
        if other is not None:  # a spectator on another process, which caches the table
            far = await Socket(other.ws_url, tid).connect()
            first = await far.wait(lambda f: f["t"] == "welcome")
            assert first["view"]["players"][0]["name"] == name

        r = await m.http.request("DELETE", "/api/me", json={"password": "correct horse 1"})
        assert r.status_code == 200, r.text

        after = (await m.get(f"/api/tables/{tid}/record")).json()
        assert after["players"] == [REDACTED, before["players"][1]]
        assert after["name_salts"] == [None, before["name_salts"][1]]
        assert after["name_commitments"] == before["name_commitments"]
        assert after["head"] == before["head"] and after["actions"] == before["actions"]
        report = verify_record(after)
        assert {c.name: c.status for c in report.checks} == dict.fromkeys(CHECKS, PASS)
        assert "seat(s) [0] redacted" in next(c.detail for c in report.checks
                                              if c.name == "names")
        path = tmp_path / "record.json"
        path.write_text(json.dumps(after), encoding="utf-8")
        assert main(["verify", str(path)]) == 0
        assert "FAIL" not in capsys.readouterr().out
        # The replay's events and a spectator's view name the seat anew.
        events = (await m.get(f"/api/tables/{tid}/events?from=0")).json()["events"]
        assert events[0]["players"][0] == REDACTED
        spectator = await Socket(server.ws_url, tid).connect()
        welcome = await spectator.wait(lambda f: f["t"] == "welcome")
        assert welcome["view"]["players"][0]["name"] == REDACTED
        assert welcome["table"]["seats"][0]["name"] == REDACTED
        history = await spectator.wait(lambda f: f["t"] == "chat_history")
        said = history["channels"]["players"]
        assert [(c["text"], c["from"]["name"]) for c in said] == [("good luck, bot", REDACTED)]
        await spectator.close()
        if other is not None:  # the other process folded the renamed events again
            again = await far.wait(lambda f: f["t"] == "welcome"
                                   and f["view"]["players"][0]["name"] == REDACTED)
            assert again["table"]["seats"][0]["name"] == REDACTED
            await far.close()
        # No key and no value anywhere in Redis holds the name (any case) any more: not
        # the table's, not the account's, not the bot's rating history.
        needle = name.lower().encode()
        left = [k for k, vals in await _everything(client)
                if needle in k.lower() or any(needle in v.lower() for v in vals)]
        assert left == []
        assert not [k async for k in client.scan_iter(f"*{{u:{uid}}}*")]
        await m.close()
    finally:
        await client.aclose()
        server.stop()
        if other is not None:
            other.stop()
