"""Fixtures of the trust suite: one server process for the suite whose log is kept, and
servers a test starts (and may kill) itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.trust.wire import LoggedServer


@pytest.fixture(scope="package")
def logged_server(redis_url: str, tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator[LoggedServer]:
    """A server on the session Redis at log level info, bots thinking 5 ms, log kept."""
    log = tmp_path_factory.mktemp("server-log") / "server.log"
    server = LoggedServer(redis_url, log, {"CARDTABLE_BOT_DELAY": "0.005"}).start()
    yield server
    server.stop()


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Callable[..., LoggedServer]]:
    """``spawn(redis_url, name, env)``: a (not yet started) server whose log is
    ``tmp_path/<name>.log``; every server made is killed at teardown, even if the test
    failed half-way (no orphaned processes)."""
    made: list[LoggedServer] = []

    def make(redis_url: str, name: str, env: dict[str, str] | None = None) -> LoggedServer:
        server = LoggedServer(redis_url, tmp_path / f"{name}.log", env)
        made.append(server)
        return server

    yield make
    for server in made:
        server.kill()
