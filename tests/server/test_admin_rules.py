"""Smaller rules of the administration and the accounts (server/admin/ops.py, server/
accounts/accounts.py; docs/operations.md, "Administration"): a second ban is refused and
keeps the first reason, ``admin void`` logs the void once, a moderator sees accounts
without their e-mail addresses, and an address with invisible, direction-changing or
control characters is refused at sign-up and at a change. A real server process and
Redis; the command runs in this process."""

from __future__ import annotations

import json

import pytest

from cli import admin as admin_cli
from cli.main import build_parser
from server import config
from tests.conftest import ServerProcess
from tests.server.client import Member, has_event, unique
from tests.server.test_admin import Cli, audited, voided_game
from tests.waiting import until


async def test_a_second_ban_is_refused_and_keeps_the_first_reason(
        server: ServerProcess, redis_url: str, capsys: pytest.CaptureFixture) -> None:
    cli = Cli(redis_url, capsys)
    m = Member(server.url)
    name = unique("ban2")
    await m.sign_up(name)
    first = await cli.ok("ban", name, "--reason", "spam")
    code, err = await cli.run("ban", name, "--reason", "something else")
    assert (code, err) == (1, "cardtable admin: already_banned: the account is banned "
                              "already (spam)")
    assert (await cli.ok("show", name))["banned"] == "spam"
    entry = await audited(redis_url, "ban", m.account["id"])
    assert entry["id"] == first["id"]  # no audit entry for the refusal
    # Through the API too, for a moderator.
    mod = Member(server.url)
    mod_name = unique("mod")
    await mod.sign_up(mod_name)
    await cli.ok("grant", mod_name, "moderator")
    r = await mod.http.post(f"/api/admin/accounts/{name}/ban", json={"reason": "again"})
    assert (r.status_code, r.json()["error"]["code"]) == (409, "already_banned"), r.text
    assert (await cli.ok("show", name))["banned"] == "spam"
    await m.close()
    await mod.close()


async def test_admin_void_logs_the_void_once(redis_url: str,
                                             capsys: pytest.CaptureFixture) -> None:
    # The command's process and the server watching the table both settle the void (and
    # the command twice): one of them marks it and logs it.
    server = ServerProcess(redis_url, env={"CARDTABLE_LOG_LEVEL": "info"}).start()
    m = Member(server.url)
    try:
        await m.sign_up(unique("vlog"))
        tid, sock, _ = await voided_game(server, m)
        args = build_parser().parse_args(["admin", "--redis-url", redis_url, "void", "--",
                                          tid])
        capsys.readouterr()
        assert await admin_cli._run(config.from_env(redis_url=redis_url), args) == 0
        out = capsys.readouterr()
        lines = (out.out + out.err).splitlines()
        await sock.wait(lambda f: has_event(f, lambda e: e["event"]["type"] == "game_voided"))

        def voided() -> list[str]:
            return [line for line in lines + server.read_log().splitlines()
                    if "game voided" in line and tid in line]

        await until(voided, what="the void logged")
        # A later request the server answers from the marked meta: its settling is over.
        await until(lambda: _ended(m, tid), what="the table marked ended")
        assert len(voided()) == 1, voided()
        audit_lines = [line for line in lines if "component=audit" in line
                       and "action=void" in line and tid in line]
        assert len(audit_lines) == 1, lines
        await sock.close()
    finally:
        await m.close()
        server.stop()


async def _ended(m: Member, tid: str) -> bool:
    summary = (await m.get(f"/api/tables/{tid}")).json()
    return summary["status"] == "ended" and bool(summary.get("voided"))


async def test_a_moderator_sees_no_email_addresses_an_admin_does(
        server: ServerProcess, redis_url: str, capsys: pytest.CaptureFixture) -> None:
    cli = Cli(redis_url, capsys)
    target = Member(server.url)
    name = unique("mail")
    await target.sign_up(name, email=f"{name}@example.org")
    mod, boss = Member(server.url), Member(server.url)
    mod_name, boss_name = unique("mod"), unique("boss")
    await mod.sign_up(mod_name)
    await boss.sign_up(boss_name)
    await cli.ok("grant", mod_name, "moderator")
    await cli.ok("grant", boss_name, "admin")
    for who, sees in ((mod, False), (boss, True)):
        shown = (await who.http.get(f"/api/admin/accounts/{name}")).json()["account"]
        found = (await who.http.get("/api/admin/accounts", params={"q": name})).json()
        rows = [shown, *[a for a in found["accounts"] if a["username"] == name]]
        assert len(rows) == 2
        for row in rows:
            assert ("email" in row) is sees and ("email_verified" in row) is sees, row
            if sees:
                assert row["email"] == f"{name}@example.org"
            assert f"{name}@example.org" not in json.dumps(row) or sees
    for m in (target, mod, boss):
        await m.close()


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\u2066", "\u0007", "\u00ad",
                                  "\ufeff", "\u200f"])
async def test_an_address_with_invisible_or_control_characters_is_refused(
        server: ServerProcess, char: str) -> None:
    m = Member(server.url)
    name = unique("inv")
    bad = f"ann{char}a@example.org"
    r = await m.http.post("/api/account/signup", json={"username": name,
                                                       "password": "correct horse 1",
                                                       "email": bad})
    error = r.json()["error"]
    assert (r.status_code, error["code"]) == (400, "bad_email"), r.text
    assert f"U+{ord(char):04X}" in error["message"]
    assert (await m.try_log_in(name, "correct horse 1")).status_code == 401  # not made
    await m.sign_up(name, email="ann@example.org")
    r = await m.http.patch("/api/me/settings", json={"email": bad})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_email"), r.text
    assert (await m.http.get("/api/me")).json()["account"]["email"] == "ann@example.org"
    await m.close()
