"""Moderation (server/admin/moderation.py; docs/protocol.md, "Moderation"): who may call each route
(no session 401, no role 403, a moderator's limits, CSRF), bad input refused with nothing
stored, one open report per reporter and target, the flood limit, the chat context a
report keeps; then a report resolved by a mute (the account's chat refused), a
suspension (its seat sockets closed on every process, its reconnects and its changes
refused, its seat absent) and both ending by themselves when the servers' clock passes
their end. Real server processes and Redis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from server.admin.moderation import REPORTS_PER_WINDOW, SUSPENDED_CLOSE, flag_report
from server.store.accounts import account_key
from server.store.admin import AUDIT_KEY
from server.store.moderation import OPEN_KEY, ModerationStore
from server.table.meta import Seat, TableMeta
from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Member, Socket, unique


async def member(base: str, prefix: str) -> tuple[Member, str]:
    m = Member(base)
    name = unique(prefix)
    await m.sign_up(name)
    return m, name


async def make_moderator(redis_url: str, m: Member, role: str = "moderator") -> None:
    """The role stored on the account (as ``cardtable admin grant`` stores it); the
    session reads the account on each request."""
    client = aioredis.from_url(redis_url)
    try:
        assert m.account is not None
        await client.hset(account_key(m.account["id"]), "roles", role)
    finally:
        await client.aclose()


async def table_of(a: Member, b: Member, start: bool = True,
                   time_control: dict[str, Any] | None = None) -> tuple[str, str, str]:
    """A two-seat table: ``a`` at seat 0, ``b`` at seat 1 (both as accounts), started;
    (table id, a's seat token, b's seat token)."""
    table = await a.create(2, time_control=time_control)
    tid = table["id"]
    ta = (await a.join(tid, "a", token=table["owner_token"]))["token"]
    tb = (await b.join(tid, "b"))["token"]
    if start:
        await a.start(tid)
    return tid, ta, tb


async def said(sock: Socket, text: str) -> dict[str, Any]:
    await sock.send({"t": "chat", "text": text})
    return await sock.wait(lambda f: f["t"] == "chat" and f.get("text") == text)


def error_of(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"]


async def audited(redis_url: str, action: str, target: str) -> dict[str, Any]:
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        for rid, fields in await client.xrevrange(AUDIT_KEY, count=1000):
            if fields["action"] == action and fields["target"] == target:
                return {"id": rid, **fields}
    finally:
        await client.aclose()
    raise AssertionError(f"no audit entry {action} {target}")


async def test_who_may_report_and_moderate(server: ServerProcess, redis_url: str) -> None:
    """A guest cannot report (401) nor read the queue (401); an account without a role
    gets 403 on every moderation route; a moderator reads the queue but neither mutes
    an account with a role nor itself; a change without the CSRF token is refused."""
    guest = httpx.AsyncClient(base_url=server.url)
    plain, plain_name = await member(server.url, "mplain")
    mod, mod_name = await member(server.url, "mmod")
    boss, boss_name = await member(server.url, "mboss")
    await make_moderator(redis_url, mod)
    await make_moderator(redis_url, boss, "admin")
    r = await guest.post("/api/reports", json={"target": plain_name, "reason": "spam"})
    assert error_of(r) == (401, "no_session")
    assert error_of(await guest.get("/api/admin/reports")) == (401, "no_session")
    for method, path, body in [
            ("GET", "/api/admin/reports", None),
            ("POST", "/api/admin/reports/abc/dismiss", {}),
            ("POST", f"/api/admin/accounts/{mod_name}/mute", {"minutes": 5}),
            ("DELETE", f"/api/admin/accounts/{mod_name}/mute", None),
            ("POST", f"/api/admin/accounts/{mod_name}/suspend", {"minutes": 5}),
            ("DELETE", f"/api/admin/accounts/{mod_name}/suspend", None)]:
        r = await plain.http.request(method, path, json=body)
        assert error_of(r) == (403, "forbidden"), (method, path)
    assert (await mod.http.get("/api/admin/reports")).status_code == 200
    r = await mod.http.post(f"/api/admin/accounts/{boss_name}/mute", json={"minutes": 5})
    assert error_of(r) == (403, "forbidden")  # an account with a role: an admin's call
    r = await mod.http.post(f"/api/admin/accounts/{mod_name}/suspend", json={"minutes": 5})
    assert error_of(r) == (409, "self")
    r = await mod.http.post(f"/api/admin/accounts/{plain_name}/mute", json={"minutes": 5},
                            headers={"X-CSRF-Token": "wrong"})
    assert error_of(r) == (403, "csrf")
    shown = (await boss.http.get(f"/api/admin/accounts/{plain_name}")).json()["account"]
    assert shown["muted_until"] is None  # nothing of the refused calls was stored
    # An admin mutes an account with a role.
    r = await boss.http.post(f"/api/admin/accounts/{mod_name}/mute", json={"minutes": 5})
    assert r.status_code == 200, r.text
    for m in (plain, mod, boss):
        await m.close()
    await guest.aclose()


async def test_a_chat_line_is_reported_as_its_authors_whoever_holds_the_seat_now(
        server: ServerProcess, redis_url: str) -> None:
    """A message is its author's account's (the stored line's ``by``): after Bob said it
    and left seat 0 to Gina, a report of Gina with it is refused (``not_sender``) and a
    report of Bob with it is filed against seat 0 (the current holder was compared:
    Gina could be reported for Bob's words and Bob could not)."""
    host, _ = await member(server.url, "mhost")
    bob, bob_name = await member(server.url, "mbob")
    gina, gina_name = await member(server.url, "mgina")
    rep, _ = await member(server.url, "mrep")
    table = await host.create(3)
    tid = table["id"]
    bob_seat = await bob.join(tid, "b", seat=0)
    sock = await Socket(server.ws_url, tid).connect(token=bob_seat["token"])
    line = await said(sock, "hello from bob")
    await sock.close()
    left = await bob.seat_call(tid, "leave", bob_seat["token"])
    assert left.status_code == 200, left.text
    await gina.join(tid, "g", seat=0)
    r = await rep.http.post("/api/reports", json={
        "target": gina_name, "reason": "abuse", "table": tid, "message": line["id"]})
    assert error_of(r) == (400, "not_sender")
    r = await rep.http.post("/api/reports", json={
        "target": bob_name, "reason": "abuse", "table": tid, "message": line["id"]})
    assert r.status_code == 201, r.text
    rid = r.json()["report"]["id"]
    await make_moderator(redis_url, host)
    queue = (await host.http.get("/api/admin/reports")).json()["reports"]
    report = next(x for x in queue if x["id"] == rid)
    assert (report["target_name"], report["seat"], report["message"]) == (bob_name, 0,
                                                                          line["id"])
    for m in (host, bob, gina, rep):
        await m.close()


async def test_bad_reports_change_nothing(server: ServerProcess, redis_url: str) -> None:
    """Each malformed or impossible report is refused with its code and queues
    nothing; a second open report of the same target is refused; past
    ``REPORTS_PER_WINDOW`` an account's reports are refused (429)."""
    rep, rep_name = await member(server.url, "mrep")
    tgt, tgt_name = await member(server.url, "mtgt")
    other, _ = await member(server.url, "moth")
    tid, ta, _ = await table_of(rep, tgt, start=False)
    sock = await Socket(server.ws_url, tid).connect(token=ta)
    mine = await said(sock, "a line of the reporter")
    await sock.close()
    ok = {"target": tgt_name, "reason": "abuse"}
    client = aioredis.from_url(redis_url)
    before = await client.zcard(OPEN_KEY)
    for body, expected in [
            ([], (400, "bad_message")),
            ({**ok, "reason": "rude"}, (400, "bad_reason")),
            ({**ok, "target": 7}, (400, "bad_message")),
            ({**ok, "text": "x" * 501}, (400, "bad_message")),
            ({**ok, "seat": 1}, (400, "bad_message")),  # a seat needs its table
            ({**ok, "table": tid, "seat": "1"}, (400, "bad_message")),
            ({**ok, "target": unique("nobody")}, (404, "no_account")),
            ({**ok, "target": rep_name}, (409, "self")),
            ({**ok, "table": "nosuchtable"}, (404, "no_table")),
            ({**ok, "table": tid, "seat": 0}, (400, "not_seated")),  # the reporter's seat
            ({**ok, "table": tid, "message": "0123456789abcdef"}, (404, "no_message")),
            ({**ok, "table": tid, "message": mine["id"]}, (400, "not_sender"))]:
        r = await rep.http.post("/api/reports", json=body)
        assert error_of(r) == expected, (body, r.text)
    assert await client.zcard(OPEN_KEY) == before
    r = await rep.http.post("/api/reports", json={**ok, "table": tid, "seat": 1})
    assert r.status_code == 201, r.text
    r = await rep.http.post("/api/reports", json={**ok, "reason": "spam"})
    assert error_of(r) == (409, "already_reported")
    # The flood limit: one report spent above, the rest on fresh targets, then refused.
    for _ in range(REPORTS_PER_WINDOW - 1):
        m, name = await member(server.url, "mmany")
        await m.close()
        r = await rep.http.post("/api/reports", json={"target": name, "reason": "spam"})
        assert r.status_code == 201, r.text
    m, name = await member(server.url, "mlast")
    await m.close()
    r = await rep.http.post("/api/reports", json={"target": name, "reason": "spam"})
    assert error_of(r) == (429, "rate_limited")
    assert await client.zcard(OPEN_KEY) == before + REPORTS_PER_WINDOW
    # Another account still reports the same target.
    r = await other.http.post("/api/reports", json=ok)
    assert r.status_code == 201, r.text
    await client.aclose()
    for x in (rep, tgt, other):
        await x.close()


async def test_a_fair_play_flag_is_in_the_queue(server: ServerProcess, redis_url: str) -> None:
    """A capped rated result's flag (as ``Moderation.flag`` queues it) is listed with
    its accounts and the table, and a moderator dismisses it (audited)."""
    mod, _ = await member(server.url, "mfmod")
    await make_moderator(redis_url, mod)
    client = aioredis.from_url(redis_url)
    entry = {"actor": "system", "action": "rating_capped", "target": unique("tf"),
             "detail": {"game": "einauge", "pairs": [["ua", "ub"]], "cap": 3}}
    report = flag_report(entry, {"ua": "Ann", "ub": "Ben"}, 1_900_000_000_000)
    assert await ModerationStore(client).file(report, f"system:{report['target']}",
                                              "system", 1, 1, 1 << 30) == "ok"
    queue = (await mod.http.get("/api/admin/reports?limit=500")).json()["reports"]
    shown = next(r for r in queue if r["id"] == report["id"])
    assert shown["kind"] == "fairplay" and shown["table"] == entry["target"]
    assert shown["accounts"] == [{"id": "ua", "username": "Ann"},
                                 {"id": "ub", "username": "Ben"}]
    r = await mod.http.post(f"/api/admin/reports/{report['id']}/dismiss", json={"note": "ok"})
    assert r.status_code == 200, r.text
    assert (await audited(redis_url, "dismiss", f"report:{report['id']}"))["actor"] \
        == f"account:{mod.account['username']}"  # type: ignore[index]
    r = await mod.http.post(f"/api/admin/reports/{report['id']}/dismiss", json={})
    assert error_of(r) == (409, "resolved")
    r = await mod.http.post("/api/admin/reports/nosuchreport/dismiss", json={})
    assert error_of(r) == (404, "no_report")
    queue = (await mod.http.get("/api/admin/reports?limit=500")).json()["reports"]
    assert report["id"] not in [r["id"] for r in queue]
    await client.aclose()
    await mod.close()


@pytest.fixture
def clock(tmp_path: Path) -> ClockFile:
    return ClockFile(tmp_path / "clock")


async def test_a_report_muted_then_suspended_across_processes(redis_url: str,
                                                              clock: ClockFile) -> None:
    """Rea reports a line of Tom's chat (the report keeps the lines around it); the
    moderator on process A mutes Tom from the queue (the report is resolved, audited):
    Tom's chat is refused. Then suspends him: his seat socket on process B closes with
    4403, a reconnect is refused and no fresh seat token is given, his changes are
    refused but logging out, his seat goes away for Rea. Once the servers' clock passes
    the end, Tom takes his seat again with a fresh token and chats."""
    env = {**clock.env, "CARDTABLE_PRESENCE_GRACE": "1"}
    a = ServerProcess(redis_url, env=env).start()
    b = ServerProcess(redis_url, env=env).start()
    socks: list[Socket] = []
    try:
        rea, rea_name = await member(a.url, "mrea")
        tom, tom_name = await member(b.url, "mtom")
        mod, _ = await member(a.url, "mmod")
        await make_moderator(redis_url, mod)
        tid, ta, tb = await table_of(rea, tom, time_control={"kind": "live",
                                                             "preset": "slow"})
        rea_sock = await Socket(a.ws_url, tid).connect(token=ta)
        tom_sock = await Socket(b.ws_url, tid).connect(token=tb)
        socks += [rea_sock, tom_sock]
        await said(rea_sock, "hello Tom")
        bad = await said(tom_sock, "a rude line")
        await rea_sock.wait(lambda f: f["t"] == "chat" and f["id"] == bad["id"])
        r = await rea.http.post("/api/reports", json={
            "target": tom_name, "reason": "abuse", "text": "see the chat",
            "table": tid, "message": bad["id"]})
        assert r.status_code == 201, r.text
        report_id = r.json()["report"]["id"]
        queue = (await mod.http.get("/api/admin/reports?limit=500")).json()["reports"]
        shown = next(x for x in queue if x["id"] == report_id)
        assert [line["text"] for line in shown["chat"]] == ["hello Tom", "a rude line"]
        assert (shown["reporter_name"], shown["target_name"], shown["seat"],
                shown["table"]) == (rea_name, tom_name, 1, tid)

        r = await mod.http.post(f"/api/admin/accounts/{tom_name}/mute",
                                json={"minutes": 10, "report": report_id})
        assert r.status_code == 200, r.text
        until = r.json()["audit"]["detail"]["until"]
        entry = await audited(redis_url, "mute", tom.account["id"])  # type: ignore[index]
        assert report_id in entry["detail"]
        queue = (await mod.http.get("/api/admin/reports?limit=500")).json()["reports"]
        assert report_id not in [x["id"] for x in queue]
        await tom_sock.send({"t": "chat", "text": "still here"})
        refused = await tom_sock.wait(lambda f: f["t"] == "error")
        assert refused["code"] == "chat_muted"
        await said(rea_sock, "Rea still talks")  # the barrier: Tom's line never came
        assert not [c for c in rea_sock.chats() if c.get("text") == "still here"]
        r = await mod.http.post(f"/api/admin/accounts/{tom_name}/mute",
                                json={"minutes": 10, "report": report_id})
        assert error_of(r) == (409, "resolved")

        r = await mod.http.post(f"/api/admin/accounts/{tom_name}/suspend",
                                json={"minutes": 60})
        assert r.status_code == 200, r.text
        assert r.json()["audit"]["detail"]["tables"] == 1
        assert await tom_sock.wait_closed() == SUSPENDED_CLOSE
        assert not rea_sock.closed.is_set()
        again = await Socket(b.ws_url, tid).connect(token=tb)
        socks.append(again)
        assert await again.wait_closed() == SUSPENDED_CLOSE
        assert again.errors()[-1]["code"] == "suspended"
        # No fresh seat token for a suspended account.
        r = await tom.http.get(f"/api/me/tables/{tid}")
        assert error_of(r) == (403, "suspended")
        r = await tom.http.post("/api/tables", json={"seats": 2})
        assert error_of(r) == (403, "suspended")
        r = await tom.http.post("/api/reports", json={"target": rea_name, "reason": "spam"})
        assert error_of(r) == (403, "suspended")
        away = await rea_sock.wait(lambda f: f["t"] == "presence"
                                   and f["seats"][1]["state"] == "away")
        assert away["seats"][0]["state"] == "online"
        me = (await tom.http.get("/api/me")).json()["account"]
        assert me["suspended_until"] > until
        r = await tom.http.post("/api/account/logout")  # what a suspended account may do
        assert r.status_code == 200, r.text

        # The end passes (the servers' clock): Tom is back, takes his seat again with a
        # fresh token, and may chat.
        clock.set(3601)
        await tom.log_in(tom_name)
        r = await tom.http.get(f"/api/me/tables/{tid}")
        assert r.status_code == 200 and r.json()["seat"] == 1, r.text
        back = await Socket(b.ws_url, tid).connect(token=r.json()["token"])
        socks.append(back)
        await back.wait(lambda f: f["t"] == "welcome")
        await said(back, "back again")
        for m in (rea, tom, mod):
            await m.close()
    finally:
        for s in socks:
            await s.close()
        a.stop()
        b.stop()


async def test_a_suspended_accounts_old_seat_tokens_change_nothing(server: ServerProcess,
                                                                   redis_url: str) -> None:
    """Break test finding: seat tokens handed out before a suspension still changed the
    tables over HTTP (a bot added, a player kicked, a resignation, a claim). Now every
    table change asked for with a token of a seat the suspended account holds answers
    403 ``suspended`` and changes nothing, whoever sends it (here: no session at all);
    the other players' tokens go on working."""
    rea, _ = await member(server.url, "mtr")
    tom, tom_name = await member(server.url, "mtt")
    mod, _ = await member(server.url, "mtm")
    anon = Member(server.url)  # the token alone: no session of the account
    await make_moderator(redis_url, mod)
    # Tom hosts an open table of three (he sits with the owner token); Rea sits there.
    hosted = await tom.create(3)
    t1 = hosted["id"]
    tom_host = (await tom.join(t1, "t", token=hosted["owner_token"]))["token"]
    rea_t1 = (await rea.join(t1, "r"))["token"]
    # Rea hosts a running table where Tom holds seat 1.
    t2, rea_t2, tom_t2 = await table_of(rea, tom)
    r = await mod.http.post(f"/api/admin/accounts/{tom_name}/suspend", json={"minutes": 60})
    assert r.status_code == 200, r.text
    before = (await anon.get(f"/api/tables/{t1}")).json()
    for method, path, body, token in [
            ("POST", f"/api/tables/{t1}/seats/2/bot", {"kind": "random"}, tom_host),
            ("POST", f"/api/tables/{t1}/seats/1/kick", {}, tom_host),
            ("PATCH", f"/api/tables/{t1}/options", {}, tom_host),
            ("POST", f"/api/tables/{t1}/seed", {"player_seed": "abc"}, tom_host),
            ("POST", f"/api/tables/{t1}/start", {}, tom_host),
            ("POST", f"/api/tables/{t1}/leave", {}, tom_host),
            ("POST", f"/api/tables/{t2}/resign", {}, tom_t2),
            ("POST", f"/api/tables/{t2}/return", {}, tom_t2),
            ("POST", f"/api/tables/{t2}/seats/0/claim", {}, tom_t2)]:
        r = await anon.http.request(method, path, json=body,
                                    headers={"Authorization": f"Bearer {token}"})
        assert error_of(r) == (403, "suspended"), (method, path, r.text)
    assert (await anon.get(f"/api/tables/{t1}")).json() == before  # nothing changed
    shown = (await anon.get(f"/api/tables/{t2}")).json()
    assert "resigned" not in shown["seats"][1]
    # Rea's tokens are hers: unaffected.
    r = await anon.http.post(f"/api/tables/{t1}/seed", json={"player_seed": "rea"},
                             headers={"Authorization": f"Bearer {rea_t1}"})
    assert r.status_code == 200, r.text
    r = await anon.http.post(f"/api/tables/{t2}/resign",
                             headers={"Authorization": f"Bearer {rea_t2}"})
    assert r.status_code == 200, r.text
    for m in (rea, tom, mod, anon):
        await m.close()


async def test_a_suspended_creators_owner_token_without_a_seat_changes_nothing(
        server: ServerProcess, redis_url: str) -> None:
    """Audit finding: the owner token of a table whose creating account holds no seat there
    still changed the table after the account was suspended (or banned): the meta kept no
    creator, so the seat check had no account to ask about. Now the meta keeps it, and the
    owner token answers 403 ``suspended`` (``banned``) and changes nothing; lifted, it
    works again. The seated player's token is unaffected."""
    rea, _ = await member(server.url, "mcr")
    tom, tom_name = await member(server.url, "mct")
    mod, _ = await member(server.url, "mcm")
    anon = Member(server.url)  # the token alone: no session of the account
    await make_moderator(redis_url, mod, "admin")  # an admin bans too
    made = await tom.create(3)  # Tom creates it and never sits
    tid, owner = made["id"], made["owner_token"]
    rea_token = (await rea.join(tid, "r"))["token"]
    for code, impose, lift in (
            ("suspended", ("POST", "suspend", {"minutes": 60}), ("DELETE", "suspend", None)),
            ("banned", ("POST", "ban", {}), ("POST", "unban", None))):
        r = await mod.http.request(impose[0], f"/api/admin/accounts/{tom_name}/{impose[1]}",
                                   json=impose[2])
        assert r.status_code == 200, r.text
        before = (await anon.get(f"/api/tables/{tid}")).json()
        for method, path, payload in [
                ("POST", f"/api/tables/{tid}/seats/1/bot", {"kind": "random"}),
                ("POST", f"/api/tables/{tid}/seats/0/kick", {}),
                ("PATCH", f"/api/tables/{tid}/options", {}),
                ("POST", f"/api/tables/{tid}/start", {})]:
            r = await anon.http.request(method, path, json=payload,
                                        headers={"Authorization": f"Bearer {owner}"})
            assert error_of(r) == (403, code), (method, path, r.text)
        assert (await anon.get(f"/api/tables/{tid}")).json() == before  # nothing changed
        r = await anon.http.post(f"/api/tables/{tid}/seed", json={"player_seed": "rea"},
                                 headers={"Authorization": f"Bearer {rea_token}"})
        assert r.status_code == 200, r.text
        r = await mod.http.request(lift[0], f"/api/admin/accounts/{tom_name}/{lift[1]}",
                                   json=lift[2])
        assert r.status_code == 200, r.text
    # Lifted: the owner token is the host's again.
    r = await anon.http.post(f"/api/tables/{tid}/seats/1/bot", json={"kind": "random"},
                             headers={"Authorization": f"Bearer {owner}"})
    assert r.status_code == 200, r.text
    assert (await anon.get(f"/api/tables/{tid}")).json()["seats"][1]["kind"] == "bot"
    for m in (rea, tom, mod, anon):
        await m.close()


def test_a_meta_stored_before_the_creator_was_kept_has_none() -> None:
    """A meta hash written before ``creator`` existed parses with none (its owner token
    then works as before), and a guest's table stores no such field."""
    meta = TableMeta(id="t", game="einauge", status="open", name="", options={},
                     seats=[Seat(), Seat()], contributions=["", ""], commitment="c",
                     server_seed="s", created_at=1.0, tokens=["", ""], owner="o")
    fields = meta.to_fields()
    assert "creator" not in fields
    assert TableMeta.from_fields("t", fields).creator == ""
    meta.creator = "uid-1"
    assert TableMeta.from_fields("t", meta.to_fields()).creator == "uid-1"
