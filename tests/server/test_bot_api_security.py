"""Findings of the security review of the bot API (docs/bot-api.md), each with a test
that failed before its fix: a person's account's token refused wherever rated play by
token is, a revoked token's sockets and seat tokens withdrawn on every process, the
token hello telling nothing of a private table, no seat token derived from stored data;
and the tokens of a banned or deleted account refused over HTTP and on the socket."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from server.http.rematch import rematch_token
from server.store.api_tokens import places_key
from server.store.streams import meta_key
from server.table.meta import token_hash
from tests.conftest import ServerProcess
from tests.server.client import Player, Socket
from tests.server.test_bot_api import (
    PASSWORD,
    bearer,
    code,
    make_bot,
    member,
    new_token,
    refused_hello,
)


async def stored_tokens(redis_url: str, table_id: str) -> dict[str, str]:
    """The table's stored token hashes: ``tok:<seat>``, ``owner``, ``host``."""
    client = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        meta = await client.hgetall(meta_key(table_id))
    finally:
        await client.aclose()
    return {k: v for k, v in meta.items() if k.startswith("tok:") or k in ("owner", "host")}


async def table_by_token(api: httpx.AsyncClient, token: str, **extra: Any
                         ) -> tuple[dict[str, Any], dict[str, Any]]:
    """A two-seat Keltis table made and joined (seat 0) by API ``token``, a random bot in
    seat 1, started: (the creation's answer, the join's answer)."""
    table = (await api.post("/api/tables", json={"game": "keltis", "seats": 2, **extra},
                            headers=bearer(token))).json()
    joined = await api.post(f"/api/tables/{table['id']}/join", json={"name": "x"},
                            headers=bearer(token))
    assert joined.status_code == 200, joined.text
    owner = bearer(table["owner_token"])
    await api.post(f"/api/tables/{table['id']}/seats/1/bot", json={"kind": "random"},
                   headers=owner)
    assert (await api.post(f"/api/tables/{table['id']}/start", headers=owner)
            ).status_code == 200
    return table, joined.json()


# Finding: creating a seek, joining a rated tournament and the held-seat lookup took a
# person's account's play token, although every other rated play by token needs a bot
# account (the table join refuses it with 403 bot_account_needed).
async def test_a_persons_token_is_refused_at_rated_seeks_tournaments_and_held_seats(server):
    person = await member(server.url, "pr")
    try:
        token = (await new_token(person))["token"]
        api = httpx.AsyncClient(base_url=server.url)
        seek = {"game": "keltis", "seats": 2, "rated": True}
        assert code(await api.post("/api/seeks", json=seek, headers=bearer(token))) == (
            403, "bot_account_needed")
        cup = await person.create_tournament(
            name="Cup", game="einauge", kind="swiss", seats=2, rounds=1, rated=True,
            time_control={"kind": "live", "preset": "fast"}, starts_at=time.time() + 600)
        assert code(await api.post(f"/api/tournaments/{cup['id']}/join",
                                   headers=bearer(token))) == (403, "bot_account_needed")
        assert (await person.tournament(cup["id"]))["players"] == 0
        # The person's own rated seat, taken in the browser: its token is not handed out.
        table = await person.create(2, "keltis", rated=True)
        seat = await person.join(table["id"], "me", token=table["owner_token"])
        before = await stored_tokens(server.redis_url, table["id"])
        assert code(await api.get(f"/api/me/tables/{table['id']}", headers=bearer(token))
                    ) == (403, "bot_account_needed")
        assert await stored_tokens(server.redis_url, table["id"]) == before
        sock = Socket(server.ws_url, table["id"])
        await sock.connect(seat["token"])  # the browser's seat token still holds the seat
        assert (await sock.wait(lambda f: f["t"] == "welcome"))["seat"] == 0
        await sock.close()
        # The same calls pass for the person's session, and unrated ones for the token.
        assert (await person.http.get(f"/api/me/tables/{table['id']}")).status_code == 200
        assert (await person.tournament_call(cup["id"], "join")).status_code == 200
        await api.aclose()
    finally:
        await person.close()


# Finding: the token hello answered a private table where the token's account holds no
# seat with "not_your_seat" (1008) and an unknown id with 4004: a token told which
# private tables exist.
async def test_the_token_hello_answers_a_private_table_as_a_missing_one(server):
    host, other = await member(server.url, "ph"), await member(server.url, "po")
    try:
        token = (await new_token(other))["token"]
        private = await host.create(2, "keltis", private=True)
        public = await host.create(2, "keltis")
        missing = await refused_hello(server.ws_url, "no-such-table", token)
        assert missing == (None, 4004)
        assert await refused_hello(server.ws_url, private["id"], token) == missing
        # A public table may say why: it is no secret that it exists.
        assert await refused_hello(server.ws_url, public["id"], token) == (
            "not_your_seat", 1008)
    finally:
        await host.close()
        await other.close()


# Finding: the rematch by API token derived the new seat token from the stored hash of
# the old seat's token: anyone reading Redis could compute a rematch seat.
async def test_no_rematch_seat_token_is_derived_from_stored_data(server):
    m = await member(server.url, "rm")
    try:
        token = (await new_token(m))["token"]
        api = httpx.AsyncClient(base_url=server.url)
        table, _ = await table_by_token(api, token)
        stored = (await stored_tokens(server.redis_url, table["id"]))["tok:0"]
        player = Player(lambda: server.ws_url, table["id"], token, seed=5)
        await player.run(120)
        first = await api.post(f"/api/tables/{table['id']}/rematch", headers=bearer(token))
        assert first.status_code == 200, first.text
        new_id, given = first.json()["table"]["id"], first.json()["token"]
        forged = rematch_token("api:" + stored, new_id)
        assert forged != given
        assert (await stored_tokens(server.redis_url, new_id))["tok:1"] == token_hash(given)
        sock = Socket(server.ws_url, new_id)
        await sock.connect(forged)
        assert sock.refusals == [1008]
        await sock.connect(given)  # the token that was given does hold the seat
        assert (await sock.wait(lambda f: f["t"] == "welcome"))["seat"] == 1
        await sock.close()
        await api.aclose()
    finally:
        await m.close()


@pytest.fixture
def second(redis_url: str) -> Iterator[ServerProcess]:
    """A second server process on the same Redis."""
    s = ServerProcess(redis_url).start()
    yield s
    s.stop()


# Finding: revoking a token left the game sockets opened with it playing, and the seat
# tokens it had been given (join, rematch) kept working.
async def test_revoking_a_token_closes_its_sockets_and_withdraws_its_seat_tokens(
        server, second):
    m = await member(server.url, "rk")
    try:
        revoked, kept = (await new_token(m))["token"], (await new_token(m, name="b"))
        api = httpx.AsyncClient(base_url=server.url)
        table, joined = await table_by_token(api, revoked)
        tid = table["id"]
        # A second table whose seat the account took in the browser (its session).
        browser = await m.create(2, "keltis")
        held = await m.join(browser["id"], "me", token=browser["owner_token"])
        await m.bot(browser["id"], 1, token=browser["owner_token"])
        await m.start(browser["id"], token=browser["owner_token"])
        # On the other process: the token's sockets, the seat token's, the browser's.
        by_api, by_seat = Socket(second.ws_url, tid), Socket(second.ws_url, tid)
        api_there, browser_sock = (Socket(second.ws_url, browser["id"]),
                                   Socket(second.ws_url, browser["id"]))
        for sock, with_token in ((by_api, revoked), (by_seat, joined["token"]),
                                 (api_there, revoked), (browser_sock, held["token"])):
            await sock.connect(with_token)
            assert (await sock.wait(lambda f: f["t"] == "welcome"))["seat"] == 0
        listed = (await m.http.get("/api/account/tokens")).json()["tokens"]
        revoked_id = next(t["id"] for t in listed if t["id"] != kept["id"])
        assert (await m.http.delete(f"/api/account/tokens/{revoked_id}")).status_code == 200
        for sock in (by_api, by_seat, api_there):
            assert await sock.wait_closed() == 1008
        # The browser's seat is not the token's: its socket plays on (a round trip on it
        # after the others closed).
        await browser_sock.send({"t": "sync"})
        await browser_sock.wait(lambda f: f["t"] == "welcome", start=1)
        assert browser_sock.closes == []
        await browser_sock.close()
        # The seat and owner tokens the revoked token was given are withdrawn...
        now = await stored_tokens(server.redis_url, tid)
        assert token_hash(joined["token"]) not in now.values()
        assert token_hash(table["owner_token"]) not in now.values()
        for base in (server.ws_url, second.ws_url):
            sock = Socket(base, tid)
            await sock.connect(joined["token"])
            assert sock.refusals == [1008]
        # ... and the account keeps its seat: its other token plays it.
        sock = Socket(second.ws_url, tid)
        await sock.connect(kept["token"])
        assert (await sock.wait(lambda f: f["t"] == "welcome"))["seat"] == 0
        await sock.close()
        await api.aclose()
    finally:
        await m.close()


async def test_a_rematch_seat_token_stops_working_when_its_token_is_revoked(server):
    m = await member(server.url, "rr")
    try:
        made = await new_token(m)
        api = httpx.AsyncClient(base_url=server.url)
        table, _ = await table_by_token(api, made["token"])
        await Player(lambda: server.ws_url, table["id"], made["token"], seed=9).run(120)
        again = await api.post(f"/api/tables/{table['id']}/rematch",
                               headers=bearer(made["token"]))
        new_id, given = again.json()["table"]["id"], again.json()["token"]
        sock = Socket(server.ws_url, new_id)
        await sock.connect(given)
        assert (await sock.wait(lambda f: f["t"] == "welcome"))["seat"] == 1
        assert (await m.http.delete(f"/api/account/tokens/{made['id']}")).status_code == 200
        assert await sock.wait_closed() == 1008
        await sock.connect(given)
        assert sock.refusals == [1008]
        await api.aclose()
    finally:
        await m.close()


async def admin_cli(redis_url: str, *argv: str) -> None:
    """``cardtable admin --redis-url URL <argv>`` as an operator runs it."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cli", "admin", "--redis-url", redis_url, *argv,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()[-2000:]


async def test_a_banned_accounts_token_is_refused_and_its_socket_closed(server, redis_url):
    m = await member(server.url, "bn")
    try:
        await make_bot(m)
        token = (await new_token(m))["token"]
        api = httpx.AsyncClient(base_url=server.url)
        table, _ = await table_by_token(api, token)
        sock = Socket(server.ws_url, table["id"])
        await sock.connect(token)
        await sock.wait(lambda f: f["t"] == "welcome")
        await admin_cli(redis_url, "ban", m.account["username"])  # type: ignore[index]
        assert await sock.wait_closed() == 1008
        assert code(await api.get("/api/me", headers=bearer(token))) == (403, "banned")
        assert code(await api.post("/api/tables", json={"game": "keltis", "seats": 2},
                                   headers=bearer(token))) == (403, "banned")
        assert await refused_hello(server.ws_url, table["id"], token) == ("banned", 1008)
        await api.aclose()
    finally:
        await m.close()


async def test_a_deleted_accounts_token_is_refused_and_its_socket_closed(server):
    m = await member(server.url, "dl")
    try:
        await make_bot(m)
        token = (await new_token(m))["token"]
        api = httpx.AsyncClient(base_url=server.url)
        table, _ = await table_by_token(api, token)
        sock = Socket(server.ws_url, table["id"])
        await sock.connect(token)
        await sock.wait(lambda f: f["t"] == "welcome")
        r = await m.http.request("DELETE", "/api/me", json={"password": PASSWORD})
        assert r.status_code == 200, r.text
        assert await sock.wait_closed() == 1008
        assert code(await api.get("/api/me", headers=bearer(token))) == (401, "bad_token")
        assert code(await api.post("/api/tables", json={"game": "keltis", "seats": 2},
                                   headers=bearer(token))) == (401, "bad_token")
        assert await refused_hello(server.ws_url, table["id"], token) == ("bad_token", 1008)
        await api.aclose()
    finally:
        await m.close()


async def test_the_places_of_a_token_are_forgotten_with_it(server, redis_url):
    m = await member(server.url, "pf")
    try:
        made = await new_token(m)
        api = httpx.AsyncClient(base_url=server.url)
        await table_by_token(api, made["token"])
        key = places_key(m.account["id"], made["id"])  # type: ignore[index]
        client = aioredis.Redis.from_url(redis_url)
        assert await client.scard(key) == 2  # the table: its owner and seat tokens
        assert (await m.http.delete(f"/api/account/tokens/{made['id']}")).status_code == 200
        assert await client.scard(key) == 0
        await client.aclose()
        await api.aclose()
    finally:
        await m.close()
