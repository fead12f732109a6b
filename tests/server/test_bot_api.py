"""Bot accounts and personal API tokens (docs/bot-api.md): a bot account's program plays a
whole rated game with examples/bot.py against a real server and lands on the ladder; the
API refuses a revoked token, a read-only token for play, a token at another account's
seat and a person's account used as a bot; tokens are hashed, listed without their
text, rate limited, session-only to manage, and never logged."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from tests.conftest import ServerProcess
from tests.server.client import Member, Socket, one_hour, unique
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "examples" / "bot.py"
PASSWORD = "correct horse 1"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def member(url: str, prefix: str) -> Member:
    m = Member(url)
    await m.sign_up(unique(prefix)[:20])
    return m


async def new_token(m: Member, scope: str = "play", name: str = "my bot") -> dict[str, Any]:
    r = await m.http.post("/api/account/tokens", json={"name": name, "scope": scope})
    assert r.status_code == 201, r.text
    return dict(r.json())


async def make_bot(m: Member) -> None:
    r = await m.http.post("/api/account/bot", json={"password": PASSWORD})
    assert r.status_code == 200, r.text
    assert r.json()["account"]["bot"] is True


def code(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"]


async def refused_hello(ws_url: str, table_id: str, token: str) -> tuple[str | None, int | None]:
    """Say hello with ``token``; the error code the server sent and its close code."""
    sock = Socket(ws_url, table_id)
    await sock.connect(token)
    closed = await sock.wait_closed()
    errors = sock.errors()
    return (errors[0]["code"] if errors else None), closed


def run_bot(url: str, token: str, *args: str) -> dict[str, Any]:
    """examples/bot.py as an outsider runs it, in its own process, to the game's end."""
    done = subprocess.run([sys.executable, str(BOT), url, token, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert token not in done.stdout
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


async def test_a_bot_account_plays_a_rated_game_with_the_example_and_is_on_the_ladder(server):
    m = await member(server.url, "bt")
    try:
        name = m.account["username"]  # type: ignore[index]
        await make_bot(m)
        created = await new_token(m)
        token = created["token"]
        assert token.startswith("ctk_") and set(created) == {
            "token", "id", "name", "scope", "created_at", "last_used"}
        result = await asyncio.to_thread(run_bot, server.url, token, "--game", "keltis",
                                         "--opponent", "random", "--rated", "--seed", "7")
        summary = (await m.http.get(f"/api/tables/{result['table']}")).json()
        assert summary["status"] == "ended" and summary["rated"] is True
        mine = summary["seats"][result["seat"]]
        assert mine["name"] == name and mine["bot_account"] is True
        assert summary["winners"] == result["winners"]

        async def rated() -> dict[str, Any] | None:
            board = (await m.http.get("/api/leaderboard/keltis")).json()["players"]
            return next((p for p in board if p["username"] == name), None)
        row = await until(rated, 30, "the bot account on the keltis ladder")
        assert row["bot"] is True and row["games"] == 1
        profile = (await m.http.get(f"/api/players/{name}")).json()
        assert profile["bot"] is True and profile["ratings"]["keltis"]["games"] == 1
        seats = (await m.http.get(f"/api/tables/{result['table']}/ratings")).json()["seats"]
        assert seats[result["seat"]]["bot"] is True
        listed = (await m.http.get("/api/account/tokens")).json()["tokens"]
        assert [t["id"] for t in listed] == [created["id"]]
        assert listed[0]["last_used"] is not None and "token" not in listed[0]
    finally:
        await m.close()


async def test_revoked_and_read_only_tokens_are_refused(server):
    m = await member(server.url, "rv")
    try:
        play, read = await new_token(m), await new_token(m, "read", "watcher")
        api = httpx.AsyncClient(base_url=server.url)
        table = (await api.post("/api/tables", json={"game": "keltis", "seats": 2},
                                headers=bearer(play["token"]))).json()
        joined = await api.post(f"/api/tables/{table['id']}/join", json={"name": "x"},
                                headers=bearer(play["token"]))
        assert joined.status_code == 200
        # A read token reads: the account, the table.
        me = await api.get("/api/me", headers=bearer(read["token"]))
        assert me.json()["account"]["username"] == m.account["username"]  # type: ignore[index]
        # ... but never plays: no table, no seat, no socket, no seat token minted.
        assert code(await api.post("/api/tables", json={"game": "keltis", "seats": 2},
                                   headers=bearer(read["token"]))) == (403, "read_only")
        assert code(await api.post(f"/api/tables/{table['id']}/leave",
                                   headers=bearer(read["token"]))) == (403, "read_only")
        assert code(await api.get(f"/api/me/tables/{table['id']}",
                                  headers=bearer(read["token"]))) == (403, "read_only")
        assert await refused_hello(server.ws_url, table["id"], read["token"]) == ("read_only",
                                                                                  1008)
        # Revoked: unknown at once, over HTTP and on the socket.
        r = await m.http.delete(f"/api/account/tokens/{play['id']}")
        assert r.status_code == 200
        assert code(await api.get("/api/me", headers=bearer(play["token"]))) == (401,
                                                                               "bad_token")
        assert await refused_hello(server.ws_url, table["id"], play["token"]) == ("bad_token",
                                                                                  1008)
        assert code(await m.http.delete(f"/api/account/tokens/{play['id']}")) == (404,
                                                                                 "no_token")
        listed = (await m.http.get("/api/account/tokens")).json()["tokens"]
        assert [t["id"] for t in listed] == [read["id"]]
        await api.aclose()
    finally:
        await m.close()


async def test_a_token_plays_only_its_own_accounts_seat(server):
    a, b = await member(server.url, "oa"), await member(server.url, "ob")
    try:
        ta, tb = (await new_token(a))["token"], (await new_token(b))["token"]
        api = httpx.AsyncClient(base_url=server.url)
        table = (await api.post("/api/tables", json={"game": "keltis", "seats": 2},
                                headers=bearer(tb))).json()
        await api.post(f"/api/tables/{table['id']}/join", json={"name": "x"},
                       headers=bearer(tb))
        await api.post(f"/api/tables/{table['id']}/seats/1/bot", json={"kind": "random"},
                       headers=bearer(table["owner_token"]))
        start = await api.post(f"/api/tables/{table['id']}/start",
                               headers=bearer(table["owner_token"]))
        assert start.status_code == 200
        # A's token at B's table: no seat of A's, so no socket and no seat call.
        assert await refused_hello(server.ws_url, table["id"], ta) == ("not_your_seat", 1008)
        assert code(await api.post(f"/api/tables/{table['id']}/resign",
                                   headers=bearer(ta))) == (401, "bad_token")
        # B's own token is that seat's player: it gets the seat's welcome.
        sock = Socket(server.ws_url, table["id"])
        await sock.connect(tb)
        welcome = await sock.wait(lambda f: f["t"] == "welcome")
        assert welcome["seat"] == 0
        await sock.close()
        await api.aclose()
    finally:
        await a.close()
        await b.close()


async def test_a_persons_account_cannot_play_rated_by_token(server):
    person = await member(server.url, "pp")
    try:
        token = (await new_token(person))["token"]
        api = httpx.AsyncClient(base_url=server.url)
        rated = {"game": "keltis", "seats": 2, "rated": True}
        assert code(await api.post("/api/tables", json=rated, headers=bearer(token))) == (
            403, "bot_account_needed")
        # A rated table the person joined in the browser: not playable by its token.
        table = await person.create(2, "keltis", rated=True)
        await person.join(table["id"], "me", token=table["owner_token"])
        assert await refused_hello(server.ws_url, table["id"], token) == (
            "bot_account_needed", 1008)
        other = await person.create(2, "keltis", rated=True)
        assert code(await api.post(f"/api/tables/{other['id']}/join", json={"name": "x"},
                                   headers=bearer(token))) == (403, "bot_account_needed")
        # Unrated play by token is anyone's.
        assert (await api.post("/api/tables", json={"game": "keltis", "seats": 2},
                               headers=bearer(token))).status_code == 201
        await api.aclose()
    finally:
        await person.close()


async def test_tokens_are_managed_by_a_session_only_with_its_csrf_token(server):
    m = await member(server.url, "mg")
    try:
        token = (await new_token(m))["token"]
        api = httpx.AsyncClient(base_url=server.url)
        for method, path in (("POST", "/api/account/tokens"), ("GET", "/api/account/tokens"),
                             ("POST", "/api/account/bot"), ("DELETE", "/api/me"),
                             ("PATCH", "/api/me/settings"), ("GET", "/api/admin/accounts")):
            r = await api.request(method, path, json={"name": "n", "scope": "play"},
                                  headers=bearer(token))
            assert code(r) == (403, "session_needed"), (method, path)
        no_csrf = await m.http.post("/api/account/tokens", json={"name": "n", "scope": "play"},
                                    headers={"X-CSRF-Token": ""})
        assert code(no_csrf) == (403, "csrf")
        assert code(await m.http.post("/api/account/tokens", json={"name": "", "scope": "play"})
                    ) == (400, "bad_message")
        assert code(await m.http.post("/api/account/tokens", json={"name": "x", "scope": "all"})
                    ) == (400, "bad_message")
        assert code(await api.post("/api/account/tokens", json={"name": "x", "scope": "play"})
                    ) == (401, "no_session")
        # The bot conversion: the password, once.
        assert code(await m.http.post("/api/account/bot", json={"password": "wrong one!"})
                    ) == (401, "bad_login")
        assert (await m.http.get("/api/me")).json()["account"]["bot"] is False
        await make_bot(m)
        assert code(await m.http.post("/api/account/bot", json={"password": PASSWORD})
                    ) == (409, "already_bot")
        await api.aclose()
    finally:
        await m.close()


@pytest.fixture
def logged_server(redis_url: str, tmp_path: Path):
    # Its clock stopped within one hour: the hourly token count does not start again.
    s = ServerProcess(redis_url, env={"CARDTABLE_LOG_LEVEL": "info",
                                      "CARDTABLE_API_TOKENS_PER_HOUR": "3",
                                      **one_hour(tmp_path / "clock")}).start()
    yield s
    s.stop()


async def test_creation_is_rate_limited_audited_and_no_token_is_logged(logged_server,
                                                                       redis_url):
    m = await member(logged_server.url, "au")
    try:
        made = [await new_token(m, name=f"t{i}") for i in range(3)]
        assert code(await m.http.post("/api/account/tokens",
                                      json={"name": "four", "scope": "read"})) == (
            429, "rate_limited")
        api = httpx.AsyncClient(base_url=logged_server.url)
        assert (await api.get("/api/me", headers=bearer(made[0]["token"]))).status_code == 200
        await api.aclose()
        assert (await m.http.delete(f"/api/account/tokens/{made[1]['id']}")).status_code == 200
        await make_bot(m)
        uid = m.account["id"]  # type: ignore[index]

        def logged() -> str | None:
            text = logged_server.read_log()
            return text if "bot_account" in text else None
        text = await until(logged, 10, "the audit lines")
        assert text.count("api_token_created") == 3 and "api_token_revoked" in text
        assert made[1]["id"] in text and uid in text
        assert not any(t["token"] in text or t["token"][4:] in text for t in made)
        # Redis holds the hash only: no key or value holds a token's text.
        client = aioredis.Redis.from_url(redis_url)
        for t in made:
            assert not [k async for k in client.scan_iter(match=f"*{t['token'][4:]}*")]
        await client.aclose()
    finally:
        await m.close()


async def test_invitations_and_rematches_work_by_token(server):
    host, guest, stranger = (await member(server.url, "ih"), await member(server.url, "ig"),
                             await member(server.url, "is"))
    try:
        th, tg, ts = [(await new_token(m))["token"] for m in (host, guest, stranger)]
        api = httpx.AsyncClient(base_url=server.url)
        table = (await api.post("/api/tables", json={"game": "keltis", "seats": 2,
                                                     "private": True},
                                headers=bearer(th))).json()
        tid, key = table["id"], table["invite_key"]
        path = f"/api/tables/{tid}"
        # The invitation: the secret lets the guest's token sit down; from then on the
        # token alone opens the private table, and a stranger's token does not.
        assert code(await api.post(f"{path}/join", json={"name": "x"}, headers=bearer(tg))
                    ) == (404, "no_table")
        joined = await api.post(f"{path}/join", json={"name": "x"},
                                headers={**bearer(tg), "X-Table-Key": key})
        assert joined.status_code == 200
        assert (await api.get(path, headers=bearer(tg))).json()["seats"][0]["name"] == \
            guest.account["username"]  # type: ignore[index]
        assert code(await api.get(path, headers=bearer(ts))) == (404, "no_table")
        await api.post(f"{path}/seats/1/bot", json={"kind": "random"},
                       headers=bearer(table["owner_token"]))
        assert (await api.post(f"{path}/start", headers=bearer(table["owner_token"]))
                ).status_code == 200
        # The guest's program plays the game to its end by its token (joining the table).
        # "=": a table id or secret may begin with "-" (URL-safe base64).
        result = await asyncio.to_thread(run_bot, server.url, tg, f"--table={tid}",
                                         f"--key={key}", "--seed", "3")
        assert result["table"] == tid and result["seat"] == 0
        # The rematch by token: the account's seat moves one on; asking again is the same.
        first = await api.post(f"{path}/rematch", headers=bearer(tg))
        assert first.status_code == 200, first.text
        again = await api.post(f"{path}/rematch", headers=bearer(tg))
        assert again.json()["token"] == first.json()["token"] and first.json()["seat"] == 1
        new_id = first.json()["table"]["id"]
        assert code(await api.post(f"{path}/rematch", headers=bearer(ts))) == (404,
                                                                               "no_table")
        sock = Socket(server.ws_url, new_id)
        await sock.connect(tg)
        assert (await sock.wait(lambda f: f["t"] == "welcome"))["seat"] == 1
        await sock.close()
        await api.aclose()
    finally:
        for m in (host, guest, stranger):
            await m.close()
