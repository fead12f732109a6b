"""Break test findings of moderation's details (server/admin/moderation.py,
server/http/moderation.py): the queue sends the names of the chat lines' senders, never
their account ids; a report's text keeps no control, bidi or invisible character; a
report, mute, suspension, dismissal or ban body with an unknown field is refused with
nothing changed; a deleted account's name leaves the open reports; a muted account
cannot chat as a spectator from its own browser. Real server and Redis, real sockets."""

from __future__ import annotations

import json

import redis.asyncio as aioredis

from server.accounts.accounts import DELETED_NAME
from server.store.moderation import OPEN_KEY, report_key
from tests.conftest import ServerProcess
from tests.server.client import Member, Socket
from tests.server.test_moderation import error_of, make_moderator, member, said, table_of


async def queued(mod: Member, report_id: str) -> dict:
    queue = (await mod.http.get("/api/admin/reports?limit=500")).json()["reports"]
    return next(r for r in queue if r["id"] == report_id)


async def test_unknown_fields_are_refused_and_change_nothing(server: ServerProcess,
                                                             redis_url: str) -> None:
    rep, _ = await member(server.url, "dxr")
    tgt, tgt_name = await member(server.url, "dxt")
    mod, _ = await member(server.url, "dxm")
    await make_moderator(redis_url, mod)
    client = aioredis.from_url(redis_url)
    try:
        before = await client.zcard(OPEN_KEY)
        r = await rep.http.post("/api/reports", json={"target": tgt_name, "reason": "spam",
                                                      "priority": "high"})
        assert error_of(r) == (400, "bad_message")
        assert await client.zcard(OPEN_KEY) == before
        for path, body in [("mute", {"minutes": 5, "silent": True}),
                           ("suspend", {"minutes": 5, "why": "x"}),
                           ("ban", {"reason": "spam", "forever": True})]:
            r = await mod.http.post(f"/api/admin/accounts/{tgt_name}/{path}", json=body)
            assert error_of(r) == (400, "bad_message"), path
        shown = (await mod.http.get(f"/api/admin/accounts/{tgt_name}")).json()["account"]
        assert (shown["muted_until"], shown["suspended_until"], shown["banned"]) == (
            None, None, None)
        r = await rep.http.post("/api/reports", json={"target": tgt_name, "reason": "spam"})
        report_id = r.json()["report"]["id"]
        r = await mod.http.post(f"/api/admin/reports/{report_id}/dismiss",
                                json={"note": "ok", "extra": 1})
        assert error_of(r) == (400, "bad_message")
        assert (await queued(mod, report_id))["status"] == "open"
    finally:
        await client.aclose()
        for m in (rep, tgt, mod):
            await m.close()


async def test_the_queue_names_senders_and_keeps_clean_text(server: ServerProcess,
                                                            redis_url: str) -> None:
    """The report's text loses its control, bidi and invisible characters; its chat
    lines carry the sender's name (``by_name``), not its account id (``by``); once the
    reported account deletes itself, its name is in no open report (queue and Redis)."""
    rea, rea_name = await member(server.url, "dqr")
    tom, tom_name = await member(server.url, "dqt")
    mod, _ = await member(server.url, "dqm")
    await make_moderator(redis_url, mod)
    tid, ta, tb = await table_of(rea, tom)
    rea_sock = await Socket(server.ws_url, tid).connect(token=ta)
    tom_sock = await Socket(server.ws_url, tid).connect(token=tb)
    client = aioredis.from_url(redis_url)
    try:
        bad = await said(tom_sock, "a rude line")
        await rea_sock.wait(lambda f: f["t"] == "chat" and f["id"] == bad["id"])
        r = await rea.http.post("/api/reports", json={
            "target": tom_name, "reason": "abuse", "table": tid, "message": bad["id"],
            "text": "see\u202e this\u200b\x07 line"})
        assert r.status_code == 201, r.text
        report_id = r.json()["report"]["id"]
        shown = await queued(mod, report_id)
        assert shown["text"] == "see this line"
        line = next(x for x in shown["chat"] if x["id"] == bad["id"])
        assert "by" not in line and line["by_name"] == tom_name
        assert tom.account is not None and tom.account["id"] not in json.dumps(shown["chat"])

        r = await tom.http.request("DELETE", "/api/me", json={"password": "correct horse 1"})
        assert r.status_code in (200, 204), r.text
        shown = await queued(mod, report_id)
        assert shown["target_name"] == DELETED_NAME and shown["reporter_name"] == rea_name
        line = next(x for x in shown["chat"] if x["id"] == bad["id"])
        assert line["from"]["name"] == DELETED_NAME and line["by_name"] == DELETED_NAME
        raw = await client.get(report_key(report_id))
        assert raw is not None and tom_name.lower().encode() not in raw.lower()
    finally:
        await client.aclose()
        for s in (rea_sock, tom_sock):
            await s.close()
        for m in (rea, tom, mod):
            await m.close()


async def test_a_muted_account_cannot_chat_as_a_spectator(server: ServerProcess,
                                                          redis_url: str) -> None:
    """Tom is muted; from his browser (his session cookie) he watches a table as a
    spectator: his chat is refused (``chat_muted``) and nobody gets it; a spectator
    without a session chats as before."""
    rea, _ = await member(server.url, "dsr")
    tom, tom_name = await member(server.url, "dst")
    mod, _ = await member(server.url, "dsm")
    await make_moderator(redis_url, mod)
    other, _ = await member(server.url, "dso")
    tid, _, _ = await table_of(rea, other)
    r = await mod.http.post(f"/api/admin/accounts/{tom_name}/mute", json={"minutes": 10})
    assert r.status_code == 200, r.text
    cookie = f"cardtable_session={tom.http.cookies.get('cardtable_session')}"
    watcher = await Socket(server.ws_url, tid).connect(hello={"viewer": "w" * 32},
                                                       Cookie=cookie)
    guest = await Socket(server.ws_url, tid).connect(hello={"viewer": "g" * 32})
    try:
        await watcher.send({"t": "chat", "text": "as nobody"})
        refused = await watcher.wait(lambda f: f["t"] == "error")
        assert refused["code"] == "chat_muted"
        await said(guest, "a guest's line")  # the barrier: the muted line never came
        assert not [c for c in guest.chats() if c.get("text") == "as nobody"]
    finally:
        for s in (watcher, guest):
            await s.close()
        for m in (rea, tom, mod, other):
            await m.close()
