"""The close code a client sees through ``cardtable balance`` (a real HAProxy) when the
process behind its socket stops: 1001 (going away), as docs/protocol.md §6 promises,
for a rolling restart (SIGHUP to the balancer), a process stopped alone (SIGTERM) and the
whole balancer stopped (SIGTERM: HAProxy stops taking connections but passes the
processes' close frames before it exits), not 1006 (the connection cut without a close
frame)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from protocol.connection import InvalidHandshake
from tests.cli.test_balance import Balanced, sockets_of
from tests.server.client import Lobby, Socket
from tests.waiting import until


async def _watching(b: Balanced, lobby: Lobby) -> tuple[Socket, int, str]:
    """A spectator's socket through the balancer and the backend port that serves it."""
    table = await lobby.create(2)
    sock = await Socket(b.ws_url, table["id"]).connect()
    await sock.wait(lambda f: f["t"] == "welcome")
    ports = [b.first + i for i in range(b.processes)]
    port = await until(lambda: next((p for p in ports if sockets_of(p) == 1), None),
                       what="the process holding the socket")
    return sock, port, table["id"]


async def _welcomed(b: Balanced, table_id: str) -> bool:
    sock = Socket(b.ws_url, table_id)
    try:
        await sock.connect()
        await sock.wait(lambda f: f["t"] == "welcome")
    except (ConnectionError, OSError, TimeoutError, InvalidHandshake):
        return False
    finally:
        await sock.close()
    return True


@pytest.mark.timeout(180)
@pytest.mark.parametrize("how", ["rolling-restart", "sigterm", "balancer-stop"])
async def test_a_stopping_process_closes_its_sockets_with_1001_through_the_balancer(
        two: Balanced, how: str) -> None:
    lobby = Lobby(two.url)
    try:
        sock, port, table_id = await _watching(two, lobby)
        if how == "rolling-restart":
            assert two.proc is not None
            os.kill(two.proc.pid, signal.SIGHUP)
        elif how == "sigterm":
            os.kill(two.pids()[port], signal.SIGTERM)
        else:
            stopped = asyncio.create_task(asyncio.to_thread(two.stop))
            assert await sock.wait_closed(60) == 1001
            await stopped
            return
        assert await sock.wait_closed(60) == 1001
        # The client's reconnect through the balancer gets a welcome again (a try that
        # reaches the stopping process before it stopped listening is closed: again).
        await until(lambda: _welcomed(two, table_id), 60, "a welcome after reconnecting")
        if how == "rolling-restart":
            await until(lambda: "rolling restart done" in two.log.read_text(), 120,
                        "the rolling restart's end")
    finally:
        await lobby.close()
