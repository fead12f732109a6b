"""Break test finding: an account's ``/ws/me`` sockets outlived its session. After a
logout, a password change, a ban, a suspension or a deletion, the sockets that session
(or account) opened close with 4001 on every process: on the process that handled the
change at once, on the others at their next look (server/accounts/inbox.py); a socket of
a session that goes on (the one that changed the password) stays open and is told of
invitations as before. Two real server processes on one Redis, real websockets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from protocol.connection import ClientConnection, ConnectionClosed, close_code, dial
from tests.conftest import ServerProcess
from tests.server.client import Member, unique
from tests.server.test_moderation import make_moderator


@pytest.fixture(scope="module")
def two(redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    a = ServerProcess(redis_url).start()
    try:
        b = ServerProcess(redis_url).start()
    except BaseException:
        a.stop()  # no process of a failed start outlives the test
        raise
    yield a, b
    a.stop()
    b.stop()


async def inbox(server: ServerProcess, m: Member) -> ClientConnection:
    """``/ws/me`` with the member's session cookie, once it sent the first frame (the
    socket is served)."""
    cookie = f"cardtable_session={m.http.cookies.get('cardtable_session')}"
    ws: ClientConnection = await dial(f"{server.ws_url}/ws/me",
                                      additional_headers={"Cookie": cookie})
    async with asyncio.timeout(20):
        assert json.loads(await ws.recv())["t"] == "invitations"
    return ws


async def closed(ws: ClientConnection) -> int:
    """The close code of ``ws`` (frames before it skipped); fails after 20 s."""
    with pytest.raises(ConnectionClosed) as done:
        async with asyncio.timeout(20):
            while True:
                await ws.recv()
    return close_code(done.value)


async def signed_up(server: ServerProcess, prefix: str) -> tuple[Member, str]:
    m = Member(server.url)
    name = unique(prefix)
    await m.sign_up(name)
    return m, name


async def test_logout_and_password_change_close_the_sessions_sockets(two) -> None:
    """A logout closes its session's sockets on both processes; a password change
    closes the other sessions' sockets and keeps its own, which still hears an
    invitation."""
    a, b = two
    ann, ann_name = await signed_up(a, "ia")
    here, there = await inbox(a, ann), await inbox(b, ann)
    r = await ann.http.post("/api/account/logout")
    assert r.status_code == 200, r.text
    assert await closed(here) == 4001
    assert await closed(there) == 4001

    bob, bob_name = await signed_up(a, "ib")
    elsewhere = Member(b.url)  # Bob's second session, on another device
    await elsewhere.log_in(bob_name)
    kept_a, kept_b = await inbox(a, bob), await inbox(b, bob)
    other_a, other_b = await inbox(a, elsewhere), await inbox(b, elsewhere)
    r = await bob.http.post("/api/me/password", json={"current": "correct horse 1",
                                                      "password": "another horse 2"})
    assert r.status_code == 200 and r.json()["ended"] == 1, r.text
    assert await closed(other_a) == 4001
    assert await closed(other_b) == 4001
    # Bob's own session goes on: an invitation reaches both of its sockets.
    await ann.log_in(ann_name)
    table = await ann.create(2)
    await ann.join(table["id"], "a", token=table["owner_token"])
    r = await ann.http.post(f"/api/tables/{table['id']}/invitations", json={"name": bob_name})
    assert r.status_code == 201, r.text
    for ws in (kept_a, kept_b):
        async with asyncio.timeout(20):
            while not json.loads(await ws.recv())["invitations"]:
                pass
    for ws in (kept_a, kept_b):
        await ws.close()
    for m in (ann, bob, elsewhere):
        await m.close()


async def test_ban_suspension_and_deletion_close_the_accounts_sockets(two, redis_url: str
                                                                      ) -> None:
    """A ban, a suspension (by a moderator on process A) and a deletion close the
    account's sockets on both processes; a suspended account's new socket is closed at
    once."""
    a, b = two
    mod, _ = await signed_up(a, "im")
    await make_moderator(redis_url, mod)
    for action in ("ban", "suspend", "delete"):
        m, name = await signed_up(a, "iv")
        here, there = await inbox(a, m), await inbox(b, m)
        if action == "ban":
            r = await mod.http.post(f"/api/admin/accounts/{name}/ban", json={})
        elif action == "suspend":
            r = await mod.http.post(f"/api/admin/accounts/{name}/suspend",
                                    json={"minutes": 60})
        else:
            r = await m.http.request("DELETE", "/api/me",
                                     json={"password": "correct horse 1"})
        assert r.status_code in (200, 204), (action, r.text)
        assert await closed(here) == 4001, action
        assert await closed(there) == 4001, action
        if action == "suspend":
            cookie = f"cardtable_session={m.http.cookies.get('cardtable_session')}"
            async with dial(f"{b.ws_url}/ws/me",
                            additional_headers={"Cookie": cookie}) as again:
                assert await closed(again) == 4001
        await m.close()
    await mod.close()
