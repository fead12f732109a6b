"""The log of a table socket (server/logging.py): one line per accepted socket, the
service's own ``websocket accepted`` with its address and path (written in place of
uvicorn's), at level info; the websockets library's bare "connection open" line (no
address, path or table), rendered for every socket, is not written at level info, and not
even built; at level debug it is written."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.connection import InvalidStatus, dial
from server.logging import _BareSocketLines, socket_log
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Socket
from tests.waiting import until


@pytest.fixture
def info_server(redis_url: str) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url, env={"CARDTABLE_LOG_LEVEL": "info"}).start()
    yield s
    s.stop()


@pytest.fixture
def debug_server(redis_url: str) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url, env={"CARDTABLE_LOG_LEVEL": "debug"}).start()
    yield s
    s.stop()


async def test_a_socket_is_logged_by_its_accepted_line_alone(info_server: ServerProcess
                                                             ) -> None:
    lobby = Lobby(info_server.url)
    tid = (await lobby.create(2))["id"]
    sock = await Socket(info_server.ws_url, tid).connect(hello={"viewer": "v" * 32})
    try:
        await sock.wait(lambda f: f["t"] == "welcome")
        # uvicorn writes the accepted line and the library's in one call: once the first
        # is in the log, the second would be too.
        def logged() -> str | None:
            text = info_server.read_log()
            return text if f"path=/ws/tables/{tid}" in text else None

        text = await until(logged, 10, "the socket's accepted line")
        line = next(x for x in text.splitlines() if f"path=/ws/tables/{tid}" in x)
        assert "websocket accepted" in line and "component=ws" in line
        assert "client=127.0.0.1" in line
        assert "[accepted]" not in text  # not uvicorn's line as well
        assert "connection open" not in text
        assert "table created" in text  # the service's own info lines are kept
    finally:
        await sock.close()
        await lobby.close()


async def test_at_level_debug_the_librarys_line_is_written(debug_server: ServerProcess) -> None:
    lobby = Lobby(debug_server.url)
    tid = (await lobby.create(2))["id"]
    sock = await Socket(debug_server.ws_url, tid).connect(hello={"viewer": "v" * 32})
    try:
        await sock.wait(lambda f: f["t"] == "welcome")

        def logged() -> str | None:
            text = debug_server.read_log()
            return text if "connection open" in text else None

        await until(logged, 10, "the library's connection open line")
    finally:
        await sock.close()
        await lobby.close()


async def test_no_query_string_or_secret_header_reaches_the_log(redis_url: str) -> None:
    # A client may put a token in a socket's query string or send a session cookie: at
    # level debug (every request line and header of the library) and on a refused socket
    # (uvicorn's 403 line, at level info) neither is written. The JSON log stays JSON.
    srv = ServerProcess(redis_url, env={"CARDTABLE_LOG_LEVEL": "debug",
                                        "CARDTABLE_LOG_JSON": "true"}).start()
    lobby = Lobby(srv.url)
    try:
        tid = (await lobby.create(2))["id"]
        secret = {"Cookie": "session=SECRET-COOKIE", "Authorization": "Bearer SECRET-AUTH"}
        ws = await dial(f"{srv.ws_url}/ws/tables/{tid}?token=SECRET-Q1",
                        additional_headers=secret)
        await ws.close()
        with pytest.raises(InvalidStatus):
            await dial(f"{srv.ws_url}/ws/nothing?token=SECRET-Q2", additional_headers=secret)

        def refused() -> str | None:  # the last line of the second socket
            text = srv.read_log()
            return text if '"WebSocket /ws/nothing' in text else None

        text = await until(refused, 10, "the refused socket's line")
        # (the command's start-up note is plain text: docs/operations.md, "Logs and metrics")
        lines = [json.loads(x) for x in text.splitlines()
                 if x.strip() and not x.startswith("cardtable serve: ")]
        assert "SECRET" not in text
        events = [x["event"] for x in lines]
        assert any(e.endswith('"WebSocket /ws/nothing" 403') for e in events)
        # Control: the lines the secrets were cut from are there.
        assert f"< GET /ws/tables/{tid} HTTP/1.1" in events
        assert "< GET /ws/nothing HTTP/1.1" in events
        assert events.count("< cookie: (not logged)") == 2  # (uvicorn gives the names
        assert events.count("< authorization: (not logged)") == 2  # in lower case)
        assert any(x.get("path") == f"/ws/tables/{tid}" and x["event"] == "websocket accepted"
                   for x in lines)
    finally:
        await lobby.close()
        srv.stop()


def test_a_dropped_socket_line_is_not_built_and_the_others_are_as_before() -> None:
    logger = logging.getLogger("uvicorn.error")
    built: list[logging.LogRecord] = []
    factory = logging.getLogRecordFactory()

    def counting(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        built.append(record)
        return record

    filters, level = logger.filters[:], logger.level
    logging.setLogRecordFactory(counting)
    try:
        logger.setLevel(logging.INFO)
        logger.filters[:] = [f for f in filters if not isinstance(f, _BareSocketLines)]
        socket_log().info("connection open")  # the filter is off (a debug log): built
        logger.addFilter(_BareSocketLines())
        socket_log().info("connection open")
        socket_log().info("connection closed")
        socket_log().info("HTTP response sent (%d %s)", 400, "Bad Request")
        socket_log().error("opening handshake failed")
    finally:
        logging.setLogRecordFactory(factory)
        logger.filters[:], logger.level = filters, level
    assert [r.getMessage() for r in built] == [
        "connection open", "HTTP response sent (400 Bad Request)", "opening handshake failed"]
    assert {r.name for r in built} == {"uvicorn.error"}
    # The caller named in a record is the one that logged, not the adapter.
    assert {r.funcName for r in built} == {
        "test_a_dropped_socket_line_is_not_built_and_the_others_are_as_before"}
