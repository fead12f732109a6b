"""Prepared frames written straight to the transport (server/fanout/frames.py)."""

from __future__ import annotations

import asyncio
import gc
import re
import weakref

import pytest
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket

from protocol.connection import dial, server_frame
from server.fanout.frames import SCOPE_KEY, DirectSocket, RawSend, prepare
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Socket, ended, events_of, in_process
from tests.waiting import until


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65_535, 65_536, 200_000])
@pytest.mark.parametrize("text", [False, True])
def test_prepare_gives_the_bytes_the_library_sends(size, text):
    payload = bytes(i % 251 for i in range(size))
    data = payload.decode("latin-1") if text else payload
    assert prepare(data) == server_frame(data)


async def test_direct_writes_stop_when_the_client_stops_reading_and_lose_nothing():
    """A client that does not read fills the socket buffers; ``write`` then refuses (the
    caller's queue takes over) instead of piling bytes up in the server. Everything written
    before arrives whole and in order."""
    frame_size = 256 * 1024
    written: list[int] = []
    refused = asyncio.Event()
    done_reading = asyncio.Event()

    async def endpoint(ws: WebSocket) -> None:
        await ws.accept()
        direct = DirectSocket.of(ws.scope[SCOPE_KEY])
        assert direct is not None
        for n in range(400):  # 100 MiB at most: far more than loopback buffers hold
            if not direct.write(prepare(bytes([n % 256]) * frame_size)):
                refused.set()
                break
            written.append(n)
            await asyncio.sleep(0)  # let the transport notice it is full
        await done_reading.wait()
        await ws.close()

    app = RawSend(Starlette(routes=[WebSocketRoute("/ws", endpoint)]))
    async with in_process(app) as port, dial(
            f"ws://127.0.0.1:{port}/ws", max_size=2**20, max_queue=1) as client:
        await asyncio.wait_for(refused.wait(), 30)
        assert 0 < len(written) < 400
        for n in written:
            got = await asyncio.wait_for(client.recv(), 10)
            assert len(got) == frame_size and got[0] == got[-1] == n % 256
        done_reading.set()


async def test_a_closed_websocket_is_freed_without_the_cycle_collector():
    """The raw ``send`` kept in the scope must not tie uvicorn's protocol to itself: with
    the cyclic garbage collector off, a closed connection (protocol, transport, buffers) is
    freed by reference counting alone. (A strong reference made a cycle per connection,
    and the soak's memory grew with every spectator that came and went.)"""
    protocols: list[weakref.ref] = []

    async def endpoint(ws: WebSocket) -> None:
        direct = DirectSocket.of(ws.scope[SCOPE_KEY])
        assert direct is not None
        protocols.append(weakref.ref(direct.proto))
        del direct
        await ws.accept()
        await ws.receive()  # the client's close

    app = RawSend(Starlette(routes=[WebSocketRoute("/ws", endpoint)]))
    async with in_process(app) as port:
        gc.collect()
        gc.disable()
        try:
            for _ in range(3):
                async with dial(f"ws://127.0.0.1:{port}/ws"):
                    pass
            assert len(protocols) == 3
            await until(lambda: all(ref() is None for ref in protocols), timeout=30,
                        interval=0.01, what="the protocols collected")
        finally:
            gc.enable()


async def test_a_watched_game_goes_out_as_prepared_frames(redis_url):
    server = ServerProcess(redis_url).start()
    lobby = Lobby(server.url)
    try:
        table = await lobby.create(2)
        tid = table["id"]
        for seat in range(2):
            await lobby.bot(tid, seat, "random")
        watchers = [await Socket(server.ws_url, tid, binary=b).connect() for b in (True, False)]
        for w in watchers:
            await w.wait(lambda f: f["t"] == "welcome")
        await lobby.start(tid, table["owner_token"])
        for w in watchers:
            await w.wait(ended, timeout=60)
        binary, text = (w.deltas() for w in watchers)
        seqs = [e["seq"] for e in events_of(binary)]
        assert binary == text and seqs == list(range(seqs[0], seqs[-1] + 1))
        metrics = (await lobby.get("/metrics")).text

        def counter(name: str) -> float:
            return float(re.search(rf"^{name} (\S+)$", metrics, re.M).group(1))

        # Two readers that keep up: every delivery went out at once as a prepared frame.
        assert counter("cardtable_deliveries_total") == 2 * len(binary)
        assert counter("cardtable_deliveries_direct_total") == 2 * len(binary)
        for w in watchers:
            await w.close()
    finally:
        await lobby.close()
        server.stop()
