"""The standings socket ``/ws/tournaments/{id}`` checked as a table's socket is: a foreign
Origin is closed with 1008, sockets past the address's limit with 4029 (counted with its
table sockets); and its writes are apart from the runner's pass: a reader that takes no
frame is dropped (1013) without holding the others' frames
(server/http/tournaments.py, server/tournaments/live.py)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import MutableMapping
from typing import Any

import pytest

from protocol.connection import ConnectionClosed, close_code, dial
from protocol.lobby import Lobby, Member
from server.tournaments.live import Follower, Watchers
from server.tournaments.model import Tournament
from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import unique
from tests.server.tournament_play import swiss_body
from tests.waiting import until


async def new_tournament(base: str) -> tuple[Member, str]:
    m = Member(base)
    await m.sign_up(unique("ws"))
    # An hour ahead: it stays scheduled (and unchanged) however long the tests take.
    return m, (await m.create_tournament(**swiss_body(starts_at=time.time() + 3600)))["id"]


async def closed_with(ws: Any) -> int:
    """The close code the server sent (after any frames it sent first)."""
    try:
        while True:
            await ws.recv()
    except ConnectionClosed as e:
        return close_code(e)


async def test_a_foreign_origin_is_refused(server) -> None:
    m, tid = await new_tournament(server.url)
    url = f"{server.ws_url}/ws/tournaments/{tid}"
    async with dial(url, origin="https://evil.example") as ws:
        assert await closed_with(ws) == 1008
    port = server.url.rsplit(":", 1)[1]
    async with dial(url, origin=f"http://127.0.0.1:{port}") as ws:  # the page's own host
        first = json.loads(await ws.recv())
        assert first["t"] == "tournament" and first["tournament"]["id"] == tid
    async with dial(url) as ws:  # no Origin: not a browser
        assert json.loads(await ws.recv())["tournament"]["id"] == tid
    await m.close()


@pytest.fixture
def capped(tmp_path_factory):
    # Its own Redis and server: the count by address is the server's, and what another
    # test left open must not count here.
    r = RedisProcess(tmp_path_factory.mktemp("tsock") / "redis")
    r.start()
    s = ServerProcess(r.url, env={"CARDTABLE_CONNS_PER_ADDR": "3"}).start()
    yield s
    s.stop()
    r.stop()


async def test_sockets_per_address_are_capped_with_the_table_sockets(capped) -> None:
    m, tid = await new_tournament(capped.url)
    url = f"{capped.ws_url}/ws/tournaments/{tid}"
    lobby = Lobby(capped.url)
    table = await lobby.create(2)
    held = [await dial(url), await dial(url)]
    for ws in held:
        assert json.loads(await ws.recv())["t"] == "tournament"
    third = await dial(f"{capped.ws_url}/ws/tables/{table['id']}")  # the third of 3
    await third.send(json.dumps({"t": "hello"}))
    assert json.loads(await third.recv())["t"] == "welcome"
    extra = await dial(url)
    assert await closed_with(extra) == 4029
    await held[0].close()

    async def admitted() -> Any:
        """A new socket, once the server has counted the closed one out (until then it
        is refused with 4029: try again)."""
        ws = await dial(url)
        try:
            return json.loads(await ws.recv())
        except ConnectionClosed as e:
            assert close_code(e) == 4029, close_code(e)
            return None
    got = await until(admitted, what="a tournament socket in the freed slot")
    assert got["tournament"]["id"] == tid
    for ws in (held[1], third):
        await ws.close()
    await lobby.close()
    await m.close()


class Pipe:
    """A socket whose reader takes frames only when the test lets it (``stalled``: never),
    as ``live.Socket`` describes it."""

    def __init__(self, stalled: bool) -> None:
        self.stalled = stalled
        self.frames: list[dict[str, Any]] = []
        self.closed: int | None = None
        self.gone = asyncio.Event()
        self.taken = asyncio.Event()

    async def send_text(self, data: str) -> None:
        if self.stalled:
            await asyncio.Event().wait()  # the peer reads nothing: the write never ends
        self.frames.append(json.loads(data))
        self.taken.set()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = code
        self.gone.set()

    async def receive(self) -> MutableMapping[str, Any]:
        await self.gone.wait()
        return {"type": "websocket.disconnect"}


def tournament(n: int) -> Tournament:
    t = Tournament(id="T1", name="Cup", creator="u0", creator_name="a", kind="swiss",
                   game="einauge", options={}, time_control={}, seats=2, starts_at=0,
                   rated=False, secret="s", created_at=0, rounds=2)
    for i in range(n):
        t.join(f"u{i}", f"player{i}")
    return t


async def test_a_stalled_reader_is_dropped_and_holds_nobody() -> None:
    watchers = Watchers(send_timeout=0.2)
    stalled, reader = Pipe(stalled=True), Pipe(stalled=False)
    follows = [asyncio.ensure_future(watchers.follow(p, "T1", (tournament(1), "1")))
               for p in (stalled, reader)]
    await until(lambda: [f["version"] for f in reader.frames] == [1], what="the first frame")
    # The pass offers versions 2..5 while the stalled write hangs: publish never waits,
    # the reader gets the newest (a frame not yet written is replaced by a newer one).
    for v in range(2, 6):
        watchers.publish(tournament(v), str(v))
    await until(lambda: reader.frames[-1]["version"] == 5, what="the newest frame")
    assert [f["version"] for f in reader.frames] == sorted({f["version"] for f in reader.frames})
    assert reader.frames[-1]["tournament"]["players"] == 5
    # The stalled reader is closed (1013) once its write outlasts the timeout, and
    # dropped; the other one still follows.
    await asyncio.wait_for(follows[0], 10)
    assert stalled.closed == 1013 and stalled.frames == []
    assert [len(g) for g in watchers.followers.values()] == [1]
    watchers.publish(tournament(6), "6")
    await until(lambda: reader.frames[-1]["version"] == 6, what="a frame after the drop")
    watchers.publish(tournament(6), "5")  # an older version than it has: not sent
    await reader.close()
    await asyncio.wait_for(follows[1], 10)
    assert reader.frames[-1]["version"] == 6 and watchers.ids() == []


async def test_a_follower_skips_versions_it_has() -> None:
    pipe = Pipe(stalled=False)
    f = Follower(pipe, send_timeout=5)
    writer = asyncio.ensure_future(f.write())
    f.offer(3, json.dumps({"version": 3}))
    await until(lambda: pipe.frames == [{"version": 3}], what="version 3 written")
    f.offer(2, json.dumps({"version": 2}))
    f.offer(3, json.dumps({"version": 3}))
    f.offer(4, json.dumps({"version": 4}))
    await until(lambda: len(pipe.frames) == 2, what="version 4 written")
    assert pipe.frames == [{"version": 3}, {"version": 4}]
    writer.cancel()
