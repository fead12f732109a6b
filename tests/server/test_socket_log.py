"""The log of a table socket (server/logging.py): uvicorn's line per accepted socket, with
its address and path, stays at level info; the websockets library's bare "connection
open" line (no address, path or table), rendered for every socket, does not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import ServerProcess
from tests.server.client import Lobby, Socket
from tests.waiting import until


@pytest.fixture
def info_server(redis_url: str) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url, env={"CARDTABLE_LOG_LEVEL": "info"}).start()
    yield s
    s.stop()


async def test_a_socket_is_logged_by_uvicorns_line_alone(info_server: ServerProcess) -> None:
    lobby = Lobby(info_server.url)
    tid = (await lobby.create(2))["id"]
    sock = await Socket(info_server.ws_url, tid).connect(hello={"viewer": "v" * 32})
    try:
        await sock.wait(lambda f: f["t"] == "welcome")
        # uvicorn writes its line and the library's in one call: once the first is in the
        # log, the second would be too.
        accepted = f'"WebSocket /ws/tables/{tid}" [accepted]'

        def logged() -> str | None:
            text = info_server.read_log()
            return text if accepted in text else None

        text = await until(logged, 10, "the socket's accepted line")
        assert "connection open" not in text
        assert "table created" in text  # the service's own info lines are kept
    finally:
        await sock.close()
        await lobby.close()
