"""Roles at the lobby API (server/http/lobby.py with server/play/roles.py) on a real server
and Redis:
every table-changing call refuses a missing, wrong or other seat's token and changes
nothing; the host role passes on; kick and options; private tables."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from server.store.streams import events_key, meta_key
from tests.server.client import Lobby, Socket, auth

FORGED = "forged-token-0000000000"


@pytest.fixture
async def lobby(server) -> AsyncIterator[Lobby]:
    lb = Lobby(server.url)
    yield lb
    await lb.close()


@pytest.fixture
async def rds(redis_url) -> AsyncIterator[aioredis.Redis]:
    r = aioredis.Redis.from_url(redis_url)
    yield r
    await r.aclose()


async def stored(rds: aioredis.Redis, tid: str) -> tuple[dict[bytes, bytes], int]:
    """Everything a lobby change or a start could alter: the meta hash and the events."""
    return await rds.hgetall(meta_key(tid)), await rds.llen(events_key(tid))


@pytest.fixture
async def table(lobby: Lobby) -> dict[str, Any]:
    """An open 4-seat table: the creator sits at seat 0 with its owner_token (the host),
    Ben at seat 1, a bot at seat 2, seat 3 empty; and a token of another table."""
    made = await lobby.create(4)
    tid, owner = made["id"], made["owner_token"]
    host = await lobby.join(tid, "Host", seat=0, token=owner)
    assert host == {"seat": 0, "token": owner}  # the creator sits with its own token
    ben = (await lobby.join(tid, "Ben", seat=1))["token"]
    await lobby.bot(tid, 2)
    other = await lobby.create(2)
    elsewhere = (await lobby.join(other["id"], "Zoe"))["token"]
    summary = (await lobby.get(f"/api/tables/{tid}")).json()
    assert summary["host"] == 0
    return {"id": tid, "owner": owner, "ben": ben, "elsewhere": elsewhere}


async def call(lobby: Lobby, method: str, path: str, token: str | None,
               json: Any = None) -> httpx.Response:
    return await lobby.http.request(method, path, json=json, headers=auth(token))


# (method, path, body, [(token name, status, code), ...]); token names index the fixture,
# None: no token. Every case must leave the meta hash and the events exactly as they were.
HOST_ONLY = [(None, 401, "bad_token"), ("forged", 401, "bad_token"),
             ("elsewhere", 401, "bad_token"), ("ben", 403, "not_host")]
CASES = {
    "join": ("POST", "/join", {"name": "Eve", "seat": 3},
             [("forged", 401, "bad_token"), ("elsewhere", 401, "bad_token"),
              ("ben", 409, "seated")]),
    "leave": ("POST", "/leave", {}, [(None, 401, "bad_token"), ("forged", 401, "bad_token"),
                                      ("elsewhere", 401, "bad_token")]),
    "add_bot": ("POST", "/seats/3/bot", {"kind": "random"}, HOST_ONLY),
    "remove_bot": ("DELETE", "/seats/2/bot", None, HOST_ONLY),
    "kick": ("POST", "/seats/1/kick", None,
             [(None, 401, "bad_token"), ("forged", 401, "bad_token"),
              ("elsewhere", 401, "bad_token")]),
    "kick_the_host": ("POST", "/seats/0/kick", None, [("ben", 403, "not_host")]),
    "options": ("PATCH", "/options", {"color_bonus": True}, HOST_ONLY),
    "seed": ("POST", "/seed", {"player_seed": "mine"},
             [(None, 401, "bad_token"), ("forged", 401, "bad_token"),
              ("elsewhere", 401, "bad_token")]),
}


@pytest.mark.parametrize("name", list(CASES))
async def test_a_lobby_call_without_the_right_token_changes_nothing(lobby, rds, table, name):
    method, tail, body, cases = CASES[name]
    tokens = {None: None, "forged": FORGED, **table}
    for who, status, code in cases:
        before = await stored(rds, table["id"])
        r = await call(lobby, method, f"/api/tables/{table['id']}{tail}", tokens[who], body)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), (who, r.text)
        assert await stored(rds, table["id"]) == before, f"{name} by {who} changed the table"


async def test_start_without_the_host_token_changes_nothing(lobby, rds, table):
    tid = table["id"]
    await lobby.bot(tid, 3)  # every seat is filled: only the token stands in the way
    tokens = {None: None, "forged": FORGED, **table}
    for who, status, code in HOST_ONLY:
        before = await stored(rds, tid)
        r = await call(lobby, "POST", f"/api/tables/{tid}/start", tokens[who])
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), who
        assert await stored(rds, tid) == before
    assert (await lobby.start(tid, table["owner"]))["status"] == "running"


async def test_handover_without_the_host_token_changes_nothing(lobby, rds, table, server):
    tid = table["id"]
    await lobby.bot(tid, 3)
    await lobby.start(tid, table["owner"])
    ben = await Socket(server.ws_url, tid).connect(token=table["ben"])
    try:
        await ben.wait(lambda f: f["t"] == "welcome")
        tokens = {None: None, "forged": FORGED, **table}
        for who, status, code in HOST_ONLY:
            before = await rds.hgetall(meta_key(tid))
            r = await call(lobby, "POST", f"/api/tables/{tid}/seats/0/bot", tokens[who],
                           {"kind": "random"})
            assert (r.status_code, r.json()["error"]["code"]) == (status, code), who
            assert await rds.hgetall(meta_key(tid)) == before
        # The host's token passes the role check; Ben is here, so the seat rule refuses
        # (a handover needs its player gone: server/play/seat_rules.py), and nothing changes.
        before = await rds.hgetall(meta_key(tid))
        r = await call(lobby, "POST", f"/api/tables/{tid}/seats/1/bot", table["owner"],
                       {"kind": "random"})
        assert (r.status_code, r.json()["error"]["code"]) == (409, "not_away"), r.text
        assert await rds.hgetall(meta_key(tid)) == before
    finally:
        await ben.close()


async def test_a_stranger_cannot_take_over_the_creators_table(lobby, rds):
    """Issue 12: a visitor took one seat, filled the rest with bots and started."""
    made = await lobby.create(3)
    tid = made["id"]
    stranger = (await lobby.join(tid, "Mallory"))["token"]
    before = await stored(rds, tid)
    for method, tail, body in [("POST", "/seats/1/bot", {"kind": "random"}),
                               ("DELETE", "/seats/1/bot", None), ("POST", "/start", None),
                               ("PATCH", "/options", {"end_rule": "one_more_turn"})]:
        for token in (None, stranger):
            r = await call(lobby, method, f"/api/tables/{tid}{tail}", token, body)
            assert r.status_code in (401, 403), (tail, token, r.text)
    assert await stored(rds, tid) == before
    # The creator, who never sat down, still runs the table.
    assert (await lobby.bot(tid, 1))["host"] is None
    await lobby.bot(tid, 2)
    assert (await lobby.start(tid))["status"] == "running"


async def test_the_host_role_passes_to_whoever_sat_longest(lobby):
    made = await lobby.create(4)
    tid, owner = made["id"], made["owner_token"]
    await lobby.join(tid, "Host", seat=0, token=owner)
    ben = (await lobby.join(tid, "Ben", seat=3))["token"]
    cem = (await lobby.join(tid, "Cem", seat=1))["token"]

    async def summary() -> dict[str, Any]:
        return (await lobby.get(f"/api/tables/{tid}")).json()

    assert (await call(lobby, "POST", f"/api/tables/{tid}/leave", owner)).status_code == 200
    assert (await summary())["host"] == 3  # Ben sat before Cem
    r = await call(lobby, "POST", f"/api/tables/{tid}/seats/0/bot", owner, {"kind": "random"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "not_host")
    r = await call(lobby, "POST", f"/api/tables/{tid}/seats/0/bot", cem, {"kind": "random"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "not_host")
    assert (await lobby.bot(tid, 0, token=ben))["seats"][0]["kind"] == "bot"
    # The creator sits again: a seat like any other now.
    await lobby.join(tid, "Host again", seat=2, token=owner)
    assert (await summary())["host"] == 3
    assert (await call(lobby, "POST", f"/api/tables/{tid}/leave", ben)).status_code == 200
    assert (await summary())["host"] == 1  # Cem sat before the creator came back
    for token in (cem, owner):
        assert (await call(lobby, "POST", f"/api/tables/{tid}/leave", token)).status_code == 200
    # Nobody seated: the role is the creator's again (and a bot table may start).
    assert (await summary())["host"] is None
    for seat in (1, 2, 3):
        await lobby.bot(tid, seat, token=owner)
    assert (await lobby.start(tid, owner))["status"] == "running"


async def test_the_host_kicks_a_player_and_changes_the_options(lobby, server):
    made = await lobby.create(3)
    tid, owner = made["id"], made["owner_token"]
    await lobby.join(tid, "Host", seat=0, token=owner)
    ben = (await lobby.join(tid, "Ben", seat=1))["token"]
    sock = await Socket(server.ws_url, tid).connect(token=ben)
    try:
        await sock.wait(lambda f: f["t"] == "welcome")
        r = await call(lobby, "POST", f"/api/tables/{tid}/seats/1/kick", owner)
        assert r.status_code == 200 and r.json()["seats"][1]["kind"] is None
        assert await sock.wait_closed() == 1008  # the token holds no seat any more
    finally:
        await sock.close()
    r = await call(lobby, "POST", f"/api/tables/{tid}/seed", ben, {"player_seed": "x"})
    assert r.status_code == 401
    for seat, code in [(1, "not_a_person"), (0, "own_seat")]:
        r = await call(lobby, "POST", f"/api/tables/{tid}/seats/{seat}/kick", owner)
        assert (r.status_code, r.json()["error"]["code"]) == (409, code)
    await lobby.bot(tid, 2)
    r = await call(lobby, "POST", f"/api/tables/{tid}/seats/2/kick", owner)
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_a_person")

    path = f"/api/tables/{tid}/options"
    r = await call(lobby, "PATCH", path, owner, {"end_rule": "one_more_turn"})
    assert r.json()["options"] == {"end_rule": "one_more_turn", "color_bonus": False}
    r = await call(lobby, "PATCH", path, owner, {"color_bonus": True})
    assert r.json()["options"] == {"end_rule": "one_more_turn", "color_bonus": True}
    for bad in ({"end_rule": "never"}, {"color_bonus": "yes"}, {"turbo": True}, [1]):
        r = await call(lobby, "PATCH", path, owner, bad)
        assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_message"), bad
    assert (await lobby.get(f"/api/tables/{tid}")).json()["options"] == {
        "end_rule": "one_more_turn", "color_bonus": True}
    await lobby.bot(tid, 1)
    await lobby.start(tid, owner)
    r = await call(lobby, "PATCH", path, owner, {"color_bonus": False})
    assert (r.status_code, r.json()["error"]["code"]) == (409, "started")
    r = await call(lobby, "POST", f"/api/tables/{tid}/seats/1/kick", owner)
    assert (r.status_code, r.json()["error"]["code"]) == (409, "started")


# ---- private tables ---------------------------------------------------------------------

async def listed(lobby: Lobby, status: str) -> set[str]:
    r = await lobby.get(f"/api/tables?status={status}")
    return {t["id"] for t in r.json()["tables"]}


async def test_a_private_table_is_unlisted_and_hidden_without_its_secret(lobby, rds, server):
    made = await lobby.create(2, private=True)
    tid, owner, key = made["id"], made["owner_token"], made["invite_key"]
    assert made["private"] is True and len(key) >= 20
    assert tid not in await listed(lobby, "open")
    unknown = secrets.token_urlsafe(9)
    before = await stored(rds, tid)
    # Every endpoint answers exactly as for an unknown id, with no key or a wrong one.
    for method, tail, body in [
        ("GET", "", None), ("GET", "/view", None), ("GET", "/events", None),
        ("GET", "/deltas", None), ("GET", "/record", None),
        ("POST", "/join", {"name": "Eve"}), ("POST", "/leave", {}),
        ("POST", "/seats/0/bot", {"kind": "random"}), ("DELETE", "/seats/0/bot", None),
        ("POST", "/seats/0/kick", None), ("PATCH", "/options", {"color_bonus": True}),
        ("POST", "/seed", {"player_seed": "x"}), ("POST", "/start", None),
    ]:
        for headers in ({}, {"X-Table-Key": "wrong"}, {"Authorization": f"Bearer {FORGED}"}):
            r = await lobby.http.request(method, f"/api/tables/{tid}{tail}", json=body,
                                         headers=headers)
            u = await lobby.http.request(method, f"/api/tables/{unknown}{tail}", json=body,
                                         headers=headers)
            assert r.status_code == u.status_code == 404, (tail, headers, r.text)
            assert r.json()["error"]["code"] == u.json()["error"]["code"] == "no_table"
    assert await stored(rds, tid) == before
    for hello_key in (None, "wrong"):
        sock = await Socket(server.ws_url, tid).connect(key=hello_key)
        assert await sock.wait_closed() == 4004
        await sock.close()

    # With the secret: seen and joined; the seat token alone then works everywhere.
    r = await lobby.http.get(f"/api/tables/{tid}", headers=auth(key=key))
    assert r.status_code == 200 and r.json()["private"] is True
    ana = (await lobby.join(tid, "Ana", key=key))["token"]
    r = await lobby.http.post(f"/api/tables/{tid}/seed", json={"player_seed": "ana"},
                              headers=auth(ana))
    assert r.status_code == 200
    assert (await lobby.http.get(f"/api/tables/{tid}/view", headers=auth(ana))).status_code \
        == 200
    player = await Socket(server.ws_url, tid).connect(token=ana)
    watcher = await Socket(server.ws_url, tid).connect(key=key)
    try:
        assert (await player.wait(lambda f: f["t"] == "welcome"))["seat"] == 0
        assert (await watcher.wait(lambda f: f["t"] == "welcome"))["seat"] is None
        # The creator's token needs no secret either.
        await lobby.bot(tid, 1, token=owner)
        await lobby.start(tid, owner)
        await watcher.wait(lambda f: f["t"] == "deltas")
    finally:
        await player.close()
        await watcher.close()
    assert tid not in await listed(lobby, "running")
    r = await lobby.http.get(f"/api/tables/{tid}/deltas")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "no_table")
    r = await lobby.http.get(f"/api/tables/{tid}/deltas", headers=auth(key=key))
    assert r.status_code == 200 and r.json()["seq"] >= 1


# The attack these tests guard against (found in a security review):
# Finding 9: player and table names take any characters: NUL and other control
# characters, bidirectional overrides (U+202E flips what follows in every log and seat
# list), whitespace only, and the service's own bot names (a person called "Random bot 2"
# passes for a bot in the seat list and the game log).


BAD_NAMES = ["\u202etsoh eht", "nul\x00byte", "\x1b[31mred", "   ", "\n", "Random bot 2"]


@pytest.mark.parametrize("name", BAD_NAMES)
async def test_a_deceptive_player_name_is_refused(server, name):
    lobby = Lobby(server.url)
    table = await lobby.create(3)
    r = await lobby.http.post(f"/api/tables/{table['id']}/join", json={"name": name})
    seats = (await lobby.get(f"/api/tables/{table['id']}")).json()["seats"]
    await lobby.close()
    assert (r.status_code, r.json().get("error", {}).get("code")) == (400, "bad_message"), r.text
    assert all(s["name"] is None for s in seats)  # and nothing changed


@pytest.mark.parametrize("name", BAD_NAMES[:3])
async def test_a_deceptive_table_name_is_refused(server, name):
    lobby = Lobby(server.url)
    r = await lobby.http.post("/api/tables", json={"seats": 2, "name": name})
    await lobby.close()
    assert (r.status_code, r.json().get("error", {}).get("code")) == (400, "bad_message"), r.text
