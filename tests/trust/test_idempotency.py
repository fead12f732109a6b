"""Idempotent actions (issue 7): an action resent with the same id, on the same socket,
after a reconnect to another server process, or at the same moment from two sockets, gets
the original ack and is applied at most once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from tests.trust.wire import Client, Lobby, LoggedServer, crashes


@pytest.fixture(scope="module")
def second_server(redis_url: str, tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator[LoggedServer]:
    """A second process on the same Redis."""
    log = tmp_path_factory.mktemp("second-log") / "server.log"
    server = LoggedServer(redis_url, log).start()
    yield server
    server.stop()


async def stored_seq(lobby: Lobby, tid: str) -> int:
    r = await lobby.http.get(f"/api/tables/{tid}/events")
    body = r.json()
    assert body["seq"] == len(body["events"])
    return body["seq"]


async def prompt_of(client: Client, start: int = 0) -> dict[str, Any]:
    return await client.wait(lambda f: f["t"] == "prompt", start=start)


async def reply(client: Client, action_id: str, start: int) -> dict[str, Any]:
    return await client.wait(lambda f: f.get("id") == action_id, start=start)


async def test_resent_action_id_gets_the_original_ack_once(logged_server, second_server) -> None:
    lobby = Lobby(logged_server.url)
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    await lobby.start(tid)  # the owner (host) starts
    watcher = await Client(second_server.ws_url, tid).connect()

    # 1. Sent twice at once on one socket (a client that timed out and resent).
    seat0 = await Client(logged_server.ws_url, tid).connect(tokens[0])
    prompt = await prompt_of(seat0)
    action = prompt["legal_actions"][0]
    mark = len(seat0.frames)
    await seat0.send({"t": "action", "id": "a-1", "action": action})
    await seat0.send({"t": "action", "id": "a-1", "action": action})
    first = await reply(seat0, "a-1", mark)
    second = await seat0.wait(lambda f: f.get("id") == "a-1" and f is not first, start=mark)
    assert first["t"] == second["t"] == "ack" and first["seq"] == second["seq"]
    seq1 = first["seq"]
    assert await stored_seq(lobby, tid) == seq1

    # 2. After a reconnect to the other process: the same ack, whatever the body says now.
    last = seat0.last_seq()
    await seat0.close()
    again = await Client(second_server.ws_url, tid).connect(tokens[0], last_seq=last)
    for body in (action, {"type": "pass"}, {"type": "sell_jewel"}):
        mark = len(again.frames)
        await again.send({"t": "action", "id": "a-1", "action": body})
        assert await reply(again, "a-1", mark) == {"t": "ack", "id": "a-1", "seq": seq1}
    assert await stored_seq(lobby, tid) == seq1

    # 3. The same new id from two sockets of the seat on two processes at the same moment.
    mover = 0 if (await lobby.http.get(f"/api/tables/{tid}/view")).json()["current_seat"] == 0 \
        else 1
    a = await Client(logged_server.ws_url, tid).connect(tokens[mover])
    b = await Client(second_server.ws_url, tid).connect(tokens[mover])
    prompt = await prompt_of(a)
    await prompt_of(b)
    action = prompt["legal_actions"][-1]
    marks = len(a.frames), len(b.frames)
    await asyncio.gather(a.send({"t": "action", "id": "twin", "action": action}),
                         b.send({"t": "action", "id": "twin", "action": action}))
    ra, rb = await reply(a, "twin", marks[0]), await reply(b, "twin", marks[1])
    assert ra["t"] == rb["t"] == "ack" and ra["seq"] == rb["seq"]
    seq2 = ra["seq"]
    assert await stored_seq(lobby, tid) == seq2 > seq1

    # 4. Ids are per seat: once seat 1 is to move, its "a-1" is its own, new action.
    c = await Client(logged_server.ws_url, tid).connect(tokens[0])
    d = await Client(logged_server.ws_url, tid).connect(tokens[1])
    n = 0
    while True:
        view = (await lobby.http.get(f"/api/tables/{tid}/view")).json()
        if view["current_seat"] == 1:
            break
        mark = len(c.frames)
        await c.send({"t": "sync"})
        prompt = await prompt_of(c, mark)
        n += 1
        await c.send({"t": "action", "id": f"move-{n}", "action": prompt["legal_actions"][0]})
        assert (await reply(c, f"move-{n}", mark))["t"] == "ack"
    before = await stored_seq(lobby, tid)
    mark = len(d.frames)
    await d.send({"t": "sync"})
    prompt = await prompt_of(d, mark)
    await d.send({"t": "action", "id": "a-1", "action": prompt["legal_actions"][0]})
    fresh = await reply(d, "a-1", mark)
    assert fresh["t"] == "ack" and fresh["seq"] > before
    await c.close()
    await d.close()

    # Every client saw each stored event exactly once, in order.
    final = await stored_seq(lobby, tid)
    await watcher.wait(lambda f: f["t"] == "deltas" and f["seq"] == final)
    seqs = [e["seq"] for f in watcher.frames if f["t"] == "deltas" for e in f["events"]]
    assert seqs == list(range(watcher.frames[0]["seq"] + 1, final + 1))
    for client in (again, a, b, watcher):
        await client.close()
    await lobby.close()
    assert not crashes(logged_server.log_text()) and not crashes(second_server.log_text())
