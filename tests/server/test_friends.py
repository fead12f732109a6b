"""Friends and blocking beyond the lists (server/http/social.py, server/http/invitations.py,
server/accounts/inbox.py, server/play/chat.py): follows respect blocks and are bounded,
an invitation by name reaches the invitee's open pages (on its own process at once, on
another within a look) and seats it at a private table, a block hides as an unknown name
does, and a blocked account's chat never reaches the blocker, live or in the history."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.connection import ClientConnection, ConnectionClosed, close_code, dial
from tests.conftest import ServerProcess
from tests.server.client import Member, Socket, one_hour, unique

ENV = {"CARDTABLE_FOLLOWS_MAX": "2", "CARDTABLE_INVITES_PER_HOUR": "6"}


@pytest.fixture(scope="module")
def two(redis_url: str, tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    # Their clock stopped within one hour: the hourly invitation count does not start
    # again mid-test.
    env = {**ENV, **one_hour(tmp_path_factory.mktemp("friends") / "clock")}
    a = ServerProcess(redis_url, env=env).start()
    try:
        b = ServerProcess(redis_url, env=env).start()
    except BaseException:
        a.stop()  # no process of a failed start outlives the test
        raise
    yield a, b
    a.stop()
    b.stop()


async def member(server: ServerProcess, prefix: str) -> Member:
    m = Member(server.url)
    await m.sign_up(unique(prefix))
    return m


def name(m: Member) -> str:
    assert m.account is not None
    return str(m.account["username"])


def error(r: Any) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"]


async def inbox(server: ServerProcess, m: Member) -> ClientConnection:
    """``/ws/me`` with the member's session cookie."""
    cookie = f"cardtable_session={m.http.cookies.get('cardtable_session')}"
    ws: ClientConnection = await dial(f"{server.ws_url}/ws/me",
                                      additional_headers={"Cookie": cookie})
    return ws


async def invitations(ws: ClientConnection, want: int) -> list[dict[str, Any]]:
    """The next ``invitations`` frame holding ``want`` of them (earlier frames skipped)."""
    async with asyncio.timeout(20):
        while True:
            frame = json.loads(await ws.recv())
            assert frame["t"] == "invitations"
            if len(frame["invitations"]) == want:
                return list(frame["invitations"])


async def test_follows_respect_blocks_and_are_bounded(two) -> None:
    a, _ = two
    anna, ben, cara, dan = [await member(a, p) for p in ("fla", "flb", "flc", "fld")]
    try:
        # Ben blocks Anna: her follow of him is answered as any follow (break test
        # finding: a 404 there, while his profile answered 200, told her of the block).
        await ben.http.put(f"/api/me/follows/{name(anna)}")
        await anna.http.put(f"/api/me/follows/{name(ben)}")
        r = await ben.http.put(f"/api/me/blocks/{name(anna)}")
        assert r.status_code == 200
        # The block ended both follows.
        assert (await anna.http.get("/api/me/friends")).json() == {"friends": []}
        assert (await ben.http.get("/api/me/friends")).json() == {"friends": []}
        r = await anna.http.put(f"/api/me/follows/{name(ben)}")
        assert r.status_code == 200 and r.json() == {"following": [name(ben)]}, r.text
        friends = (await anna.http.get("/api/me/friends")).json()["friends"]
        assert [f["username"] for f in friends] == [name(ben)]
        # Nothing of it reaches Ben.
        assert (await ben.http.get("/api/me/friends")).json() == {"friends": []}
        unknown = await anna.http.put(f"/api/me/follows/{unique('nobody')}")
        assert error(unknown) == (404, "no_player")
        # The blocker is told why: it blocked that account itself.
        assert error(await ben.http.put(f"/api/me/follows/{name(anna)}")) == (409, "blocked")
        await anna.http.delete(f"/api/me/follows/{name(ben)}")
        # At most CARDTABLE_FOLLOWS_MAX (2) follows.
        for other in (cara, dan):
            assert (await anna.http.put(f"/api/me/follows/{name(other)}")).status_code == 200
        eve = await member(a, "fle")
        r = await anna.http.put(f"/api/me/follows/{name(eve)}")
        assert error(r) == (409, "too_many_follows")
        assert "2" in r.json()["error"]["message"]
        # Following one already followed is no new follow.
        assert (await anna.http.put(f"/api/me/follows/{name(cara)}")).status_code == 200
        friends = (await anna.http.get("/api/me/friends")).json()["friends"]
        assert sorted(f["username"] for f in friends) == sorted([name(cara), name(dan)])
        await anna.http.delete(f"/api/me/follows/{name(dan)}")
        assert (await anna.http.put(f"/api/me/follows/{name(eve)}")).status_code == 200
        # Unblocked, a follow works again.
        await ben.http.delete(f"/api/me/blocks/{name(anna)}")
        assert (await ben.http.put(f"/api/me/follows/{name(anna)}")).status_code == 200
        await eve.close()
    finally:
        for m in (anna, ben, cara, dan):
            await m.close()


async def test_an_invitation_by_name_seats_the_friend_at_a_private_table(two) -> None:
    a, b = two
    anna, ben, cara = await member(a, "iva"), await member(b, "ivb"), await member(a, "ivc")
    ben_here = await inbox(a, ben)   # Ben's page on Anna's process
    ben_there = await inbox(b, ben)  # and one on the other process
    try:
        assert await invitations(ben_here, 0) == []
        assert await invitations(ben_there, 0) == []
        table = await anna.create(3, private=True)
        tid = table["id"]
        await anna.join(tid, "x", token=table["owner_token"], key=table["invite_key"])
        r = await anna.http.post(f"/api/tables/{tid}/invitations", json={"name": name(ben)})
        assert r.status_code == 201, r.text
        assert r.json()["invited"] == name(ben)
        for ws in (ben_here, ben_there):
            (got,) = await invitations(ws, 1)
            assert (got["table"], got["by"], got["game"]) == (tid, name(anna), "einauge")
        assert (await ben.http.get("/api/me/invitations")).json()["invitations"][0][
            "table"] == tid
        # Without the invitation (Cara) the private table is not there; Ben's sits him.
        r = await cara.http.post(f"/api/tables/{tid}/join", json={"name": "x"})
        assert error(r) == (404, "no_table")
        r = await cara.http.post(f"/api/tables/{tid}/join", json={"name": "x", "invited": True})
        assert error(r) == (403, "not_invited")
        r = await ben.http.post(f"/api/tables/{tid}/join", json={"name": "x", "invited": True})
        assert r.status_code == 200, r.text
        seated = r.json()
        summary = (await ben.http.get(f"/api/tables/{tid}", headers={
            "Authorization": f"Bearer {seated['token']}"})).json()
        assert summary["seats"][seated["seat"]]["name"] == name(ben)
        # The invitation is used up: gone from every page.
        for ws in (ben_here, ben_there):
            assert await invitations(ws, 0) == []
        r = await ben.http.post(f"/api/tables/{tid}/join", json={"name": "x", "invited": True})
        assert error(r) == (403, "not_invited")
        # Ben, seated now, may invite too; Cara, who holds no seat, may not.
        r = await cara.http.post(f"/api/tables/{tid}/invitations", json={"name": name(anna)})
        assert error(r) == (404, "no_table")
        r = await ben.http.post(f"/api/tables/{tid}/invitations", json={"name": name(anna)})
        assert error(r) == (409, "seated")
    finally:
        for ws in (ben_here, ben_there):
            await ws.close()
        for m in (anna, ben, cara):
            await m.close()


async def test_an_invitee_who_blocked_the_inviter_is_answered_as_delivered(two) -> None:
    """Break test finding: a 404 for an invitee that blocked the inviter (its profile
    answers 200) told the inviter of the block. Now the answer is a delivered
    invitation's, and nothing reaches the invitee; an invitation to an account the
    inviter blocked itself is refused (409 ``blocked``)."""
    a, _ = two
    anna, ben, cara = [await member(a, p) for p in ("iba", "ibb", "ibc")]
    guest = Member(a.url)
    ws = await inbox(a, ben)
    try:
        table = await anna.create(3)
        tid = table["id"]
        await anna.join(tid, "x", token=table["owner_token"])
        await ben.http.put(f"/api/me/blocks/{name(anna)}")
        blocked = await anna.http.post(f"/api/tables/{tid}/invitations",
                                       json={"name": name(ben)})
        delivered = await anna.http.post(f"/api/tables/{tid}/invitations",
                                         json={"name": name(cara)})
        assert blocked.status_code == delivered.status_code == 201, blocked.text
        assert blocked.json().keys() == delivered.json().keys()
        assert (blocked.json()["invited"], blocked.json()["table"]) == (name(ben), tid)
        unknown = await anna.http.post(f"/api/tables/{tid}/invitations",
                                       json={"name": unique("nobody")})
        assert error(unknown) == (404, "no_player")
        r = await ben.http.post(f"/api/tables/{(await ben.create(2))['id']}/invitations",
                                json={"name": name(anna)},
                                headers={"Authorization": "Bearer x"})
        assert error(r) == (404, "no_table")
        own = await ben.create(2)
        r = await ben.http.post(f"/api/tables/{own['id']}/invitations",
                                json={"name": name(anna)},
                                headers={"Authorization": f"Bearer {own['owner_token']}"})
        assert error(r) == (409, "blocked")  # Ben's own block: he is told
        # Nothing reached Ben: the next frame his page gets is Cara's invitation.
        r = await cara.http.post(f"/api/tables/{(await cara.create(2))['id']}/invitations",
                                 json={"name": name(ben)},
                                 headers={"Authorization": "Bearer x"})
        assert error(r) == (404, "no_table")  # Cara neither sits there nor sent its owner token
        other = await cara.create(2)
        r = await cara.http.post(f"/api/tables/{other['id']}/invitations",
                                 json={"name": name(ben)},
                                 headers={"Authorization": f"Bearer {other['owner_token']}"})
        assert r.status_code == 201, r.text
        assert await invitations(ws, 0) == []
        assert [i["table"] for i in await invitations(ws, 1)] == [other["id"]]
        # Who may call, and bad input.
        r = await guest.http.post(f"/api/tables/{tid}/invitations", json={"name": name(ben)})
        assert error(r) == (401, "no_session")
        async with dial(f"{a.ws_url}/ws/me") as anonymous:  # no session cookie
            with pytest.raises(ConnectionClosed) as closed:
                async with asyncio.timeout(20):
                    await anonymous.recv()
            assert close_code(closed.value) == 4001
        for bad in ({}, {"name": ""}, {"name": 5}, {"name": "x" * 65}):
            r = await anna.http.post(f"/api/tables/{tid}/invitations", json=bad)
            assert error(r) == (400, "bad_message"), bad
        r = await anna.http.post(f"/api/tables/{tid}/invitations", json={"name": name(anna)})
        assert error(r) == (400, "bad_message")
        # CARDTABLE_INVITES_PER_HOUR (6) per account: four went above, two more pass.
        for _ in range(2):
            r = await anna.http.post(f"/api/tables/{tid}/invitations", json={"name": name(cara)})
            assert r.status_code == 201, r.text
        r = await anna.http.post(f"/api/tables/{tid}/invitations", json={"name": name(cara)})
        assert error(r) == (429, "rate_limited")
    finally:
        await ws.close()
        for m in (anna, ben, cara, guest):
            await m.close()


async def test_a_blocked_accounts_chat_never_reaches_the_blocker(two) -> None:
    a, _ = two
    anna, ben, dan = [await member(a, p) for p in ("cha", "chb", "chd")]
    socks: list[Socket] = []
    try:
        await anna.http.put(f"/api/me/blocks/{name(ben)}")
        # Ben's table: the blocker may sit at the blocked one's table.
        table = await ben.create(3)
        tid = table["id"]
        tokens = [(await ben.join(tid, "x", token=table["owner_token"]))["token"],
                  (await anna.join(tid, "x"))["token"], (await dan.join(tid, "x"))["token"]]
        socks = [await Socket(a.ws_url, tid).connect(token=t) for t in tokens]
        b_sock, a_sock, d_sock = socks
        for s in socks:
            await s.wait(lambda f: f["t"] == "chat_history")
        await b_sock.send({"t": "chat", "text": "from ben"})
        # Published (the table's channel orders what every socket gets) before Dan's.
        await d_sock.wait(lambda f: f["t"] == "chat" and f.get("text") == "from ben")
        await d_sock.send({"t": "chat", "text": "from dan"})
        await d_sock.wait(lambda f: f["t"] == "chat" and f.get("text") == "from dan")
        # Dan's line came after Ben's to every socket: Anna's lacks Ben's.
        await a_sock.wait(lambda f: f["t"] == "chat" and f.get("text") == "from dan")
        assert [m["text"] for m in a_sock.chats("players")] == ["from dan"]
        assert [m["text"] for m in d_sock.chats("players")] == ["from ben", "from dan"]
        assert all("by" not in m for m in d_sock.chats("players"))  # no account id leaks
        # The history on a new socket: without Ben's line too.
        again = await Socket(a.ws_url, tid).connect(token=tokens[1])
        socks.append(again)
        hist = (await again.wait(lambda f: f["t"] == "chat_history"))["channels"]
        assert [m["text"] for m in hist["players"]] == ["from dan"]
        # Unblocked on this process: the open socket gets Ben's next line at once.
        await anna.http.delete(f"/api/me/blocks/{name(ben)}")
        await b_sock.send({"t": "chat", "text": "ben again"})
        await a_sock.wait(lambda f: f["t"] == "chat" and f.get("text") == "ben again")
        # Blocked again while connected: hidden again from the next line on.
        await anna.http.put(f"/api/me/blocks/{name(ben)}")
        await b_sock.send({"t": "chat", "text": "ben hidden"})
        await d_sock.wait(lambda f: f["t"] == "chat" and f.get("text") == "ben hidden")
        await d_sock.send({"t": "chat", "text": "dan last"})
        await a_sock.wait(lambda f: f["t"] == "chat" and f.get("text") == "dan last")
        assert "ben hidden" not in [m["text"] for m in a_sock.chats("players")]
    finally:
        for s in socks:
            await s.close()
        for m in (anna, ben, dan):
            await m.close()
