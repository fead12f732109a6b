"""Friends and blocking over the real API (server/http/social.py): follow, the friends list
with the public tables a friend sits at and whether it is connected there, block (a
blocked account cannot sit where its blocker sits), who may call what, and deletion."""

from __future__ import annotations

import redis.asyncio as aioredis

from server.store.social import blocked_by_key, blocks_key, follows_key
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Member, Socket, unique
from tests.waiting import until


async def members(server: ServerProcess, *prefixes: str) -> list[Member]:
    out = []
    for p in prefixes:
        m = Member(server.url)
        await m.sign_up(unique(p))
        out.append(m)
    return out


def name(m: Member) -> str:
    assert m.account is not None
    return str(m.account["username"])


async def test_follow_and_the_friends_list_shows_public_tables_and_presence(
        server: ServerProcess) -> None:
    anna, ben = await members(server, "fa", "fb")
    try:
        r = await anna.http.put(f"/api/me/follows/{name(ben)}")
        assert r.status_code == 200 and r.json() == {"following": [name(ben)]}
        friends = (await anna.http.get("/api/me/friends")).json()["friends"]
        assert friends == [{"username": name(ben), "online": False, "tables": []}]
        # Ben sits at a public table and at a private one; only the public one shows.
        public = await ben.create(2)
        joined = await ben.join(public["id"], "x", token=public["owner_token"])
        private = await ben.create(2, private=True)
        await ben.join(private["id"], "x", token=private["owner_token"],
                       key=private["invite_key"])
        friends = (await anna.http.get("/api/me/friends")).json()["friends"]
        assert [t["id"] for t in friends[0]["tables"]] == [public["id"]]
        assert friends[0]["online"] is False
        sock = await Socket(server.ws_url, public["id"]).connect(token=joined["token"])
        try:
            async def online() -> bool:
                got = (await anna.http.get("/api/me/friends")).json()["friends"]
                return got[0]["online"]
            await until(online, what="the friend online")
        finally:
            await sock.close()
        r = await anna.http.delete(f"/api/me/follows/{name(ben)}")
        assert r.json() == {"following": []}
        assert (await anna.http.get("/api/me/friends")).json() == {"friends": []}
    finally:
        await anna.close()
        await ben.close()


async def test_who_may_call_and_bad_names(server: ServerProcess) -> None:
    (anna,) = await members(server, "wa")
    guest = Lobby(server.url)
    try:
        for method, path in (("PUT", f"/api/me/follows/{name(anna)}"),
                             ("GET", "/api/me/friends"), ("GET", "/api/me/blocks"),
                             ("PUT", f"/api/me/blocks/{name(anna)}")):
            r = await guest.http.request(method, path)
            assert (r.status_code, r.json()["error"]["code"]) == (401, "no_session"), path
        r = await anna.http.put(f"/api/me/follows/{unique('nobody')}")
        assert (r.status_code, r.json()["error"]["code"]) == (404, "no_player")
        r = await anna.http.put(f"/api/me/blocks/{name(anna)}")
        assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_message")
        # A cross-site change without the CSRF token is refused, and changes nothing.
        (ben,) = await members(server, "wb")
        token = anna.http.headers.pop("X-CSRF-Token")
        r = await anna.http.put(f"/api/me/follows/{name(ben)}")
        assert (r.status_code, r.json()["error"]["code"]) == (403, "csrf")
        anna.http.headers["X-CSRF-Token"] = token
        assert (await anna.http.get("/api/me/friends")).json() == {"friends": []}
        await ben.close()
    finally:
        await anna.close()
        await guest.close()


async def test_a_blocked_account_cannot_sit_where_its_blocker_sits(
        server: ServerProcess, redis_url: str) -> None:
    anna, ben, cara = await members(server, "ba", "bb", "bc")
    try:
        await anna.http.put(f"/api/me/follows/{name(ben)}")
        r = await anna.http.put(f"/api/me/blocks/{name(ben)}")
        assert r.status_code == 200 and r.json() == {"blocked": [name(ben)]}
        # Blocking also ends following.
        assert (await anna.http.get("/api/me/friends")).json() == {"friends": []}
        assert (await anna.http.get("/api/me/blocks")).json() == {"blocked": [name(ben)]}
        table = await anna.create(3)
        tid = table["id"]
        await anna.join(tid, "x", token=table["owner_token"])
        # Answered as a full table, or a taken seat when one was chosen (break test
        # finding: "a player at this table has blocked you" told Ben of the block).
        r = await ben.http.post(f"/api/tables/{tid}/join", json={"name": "x"})
        full = await members(server, "bf")
        small = await full[0].create(2)
        for m in (*full, cara)[:2]:
            await m.join(small["id"], "x")
        really = await ben.http.post(f"/api/tables/{small['id']}/join", json={"name": "x"})
        assert (r.status_code, r.json()) == (really.status_code, really.json())
        assert (r.status_code, r.json()["error"]["code"]) == (409, "table_full")
        r = await ben.http.post(f"/api/tables/{tid}/join", json={"name": "x", "seat": 2})
        really = await ben.http.post(f"/api/tables/{small['id']}/join",
                                     json={"name": "x", "seat": 1})
        assert r.json()["error"] == {**really.json()["error"], "message": "seat #3 is taken"}
        assert (r.status_code, r.json()["error"]["code"]) == (409, "seat_taken")
        seats = (await ben.get(f"/api/tables/{tid}")).json()["seats"]
        assert [s["kind"] for s in seats] == ["human", None, None]  # nothing changed
        for m in full:
            await m.close()
        await cara.join(tid, "x")  # anyone else sits
        # Ben's own table: Anna is not kept out by her own block (a block keeps the
        # blocked one away), but Ben may still sit elsewhere.
        other = await cara.create(2)
        await ben.join(other["id"], "x")
        r = await anna.http.delete(f"/api/me/blocks/{name(ben)}")
        assert r.json() == {"blocked": []}
        await ben.join(tid, "x")
        # Deleting an account removes its sets and its entries in the others'.
        await anna.http.put(f"/api/me/blocks/{name(cara)}")
        await anna.http.put(f"/api/me/follows/{name(ben)}")
        uid = anna.account["id"]  # type: ignore[index]
        r = await anna.http.request("DELETE", "/api/me", json={"password": "correct horse 1"})
        assert r.status_code == 200, r.text
        client = aioredis.Redis.from_url(redis_url)
        try:
            for key in (follows_key(uid), blocks_key(uid), blocked_by_key(uid)):
                assert not await client.exists(key), key
            assert not await client.sismember(blocked_by_key(cara.account["id"]), uid)  # type: ignore[index]
        finally:
            await client.aclose()
    finally:
        for m in (anna, ben, cara):
            await m.close()
