"""The service leaves no cyclic garbage behind a game.

``cardtable serve`` runs the cyclic garbage collector rarely (cli/serve.py ``_tune_gc``), so
anything a game, a socket or a request leaves in a reference cycle stays in memory for a
long time: the 30-minute soak's memory grew by ~19 KB per game until a cycle through
uvicorn's protocol was broken (docs/reliability.md, "Soak"). This test runs the service in
this process with the collector off and saving what it finds, plays games the way the
soak does (bots, a seated player, spectators that reconnect, HTTP view and record
requests) and asserts that no server-side object was left in a cycle.
"""

from __future__ import annotations

import asyncio
import gc
import sys
from pathlib import Path
from types import CoroutineType, FrameType
from typing import Any

import uvicorn

from server import config
from server.app import create_app
from tests.conftest import TEST_ENV
from tests.server.client import Lobby, Player, Socket, ended, in_process, reaches
from tests.waiting import until

SERVER_MODULES = ("server.", "engine.", "uvicorn.", "starlette.", "redis.", "websockets.server",
                  "websockets.http11", "websockets.extensions")
SERVER_FILES = tuple(str(p) for p in (
    Path(__file__).resolve().parents[2] / "server",
    Path(__file__).resolve().parents[2] / "engine",
    Path(uvicorn.__file__).parent,
    Path(sys.modules["starlette"].__file__).parent,
    Path(sys.modules["redis"].__file__).parent,
))


def server_side(obj: Any) -> str | None:
    """A name for ``obj`` if the server made it, else None (the test's own clients make
    cyclic garbage of their own: httpx responses, for one)."""
    if isinstance(obj, FrameType):
        code = obj.f_code
    elif isinstance(obj, CoroutineType):
        code = obj.cr_code
    else:
        kind = type(obj)
        name = f"{kind.__module__}.{kind.__qualname__}"
        return name if name.startswith(SERVER_MODULES) else None
    if code.co_filename.startswith(SERVER_FILES):
        return f"{type(obj).__name__} of {code.co_qualname} ({code.co_filename})"
    return None


async def play(lobby: Lobby, ws_base: str, seed: int) -> None:
    """One 3-seat game: two bots and a random player, a binary and a text spectator, one
    of which drops and comes back with its last seq; view and record fetched over HTTP."""
    table = await lobby.create(3)
    tid = table["id"]
    token = (await lobby.join(tid, "Anna", seat=0))["token"]
    for seat in (1, 2):
        await lobby.bot(tid, seat, "random")
    watchers = [await Socket(ws_base, tid, binary=b).connect() for b in (True, False)]
    player = Player(lambda: ws_base, tid, token, seed)
    playing = asyncio.create_task(player.run())
    for w in watchers:
        await w.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid, table["owner_token"])
    await watchers[1].wait(lambda f: reaches(f, 10))
    await watchers[1].close()
    again = await Socket(ws_base, tid, binary=False).connect(
        last_seq=watchers[1].deltas()[-1]["seq"])
    assert (await lobby.get(f"/api/tables/{tid}/view")).status_code == 200
    for w in (watchers[0], again):
        await w.wait(ended, timeout=60)
    await playing
    assert (await lobby.get(f"/api/tables/{tid}/record")).status_code == 200
    for w in (watchers[0], again):
        await w.close()


async def settled(svc: Any) -> None:
    """Until the process holds no table and no socket of the games just played."""
    await until(lambda: not svc.tables.cache and not svc.connections, timeout=30,
                interval=0.01, what="no table cached and no socket")


async def test_games_leave_no_server_objects_in_reference_cycles(own_redis, monkeypatch):
    # A Redis of its own: a service resumes every running bot game of its Redis when it
    # starts, and those of other tests would stay cached here.
    for name, value in TEST_ENV.items():
        monkeypatch.setenv(name, value)
    app = create_app(config.from_env(redis_url=own_redis.url))
    svc = app.state.svc
    async with in_process(app, lifespan="on") as port:
        lobby = Lobby(f"http://127.0.0.1:{port}")
        ws_base = f"ws://127.0.0.1:{port}"
        try:
            await play(lobby, ws_base, 0)  # first use: imports, memos, pools
            await settled(svc)
            gc.collect()
            gc.disable()
            gc.set_debug(gc.DEBUG_SAVEALL)
            for seed in (1, 2):
                await play(lobby, ws_base, seed)
            await settled(svc)
            gc.collect()
            left = sorted({name for obj in gc.garbage if (name := server_side(obj))})
            assert left == []
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
            await lobby.close()
