"""Shared fixtures: a real ``redis-server`` on a free port (or a real 3+3 Redis Cluster),
and real server processes.

``redis_url``: one Redis for the session (tests use fresh table ids, so they do not
collide); with ``pytest --redis=cluster`` it is a node of a Redis Cluster of 3 masters and
3 replicas (tests/cluster.py), and the servers find the cluster behind it. ``server``: one
``cardtable serve`` subprocess on that Redis for the session, bots without think delay and
limits raised for tests. ``ServerProcess`` and ``RedisProcess`` let a test run its own (to
kill or restart them); ``own_redis`` is a test's own Redis (a cluster of its own with
``--redis=cluster``).

Every ``ServerProcess`` is watched (tests/watch.py): after each test, a traceback or an
error line its log got during the test, or an exit nobody asked for, fails that test with
the log's tail, unless the test declares it (``@pytest.mark.server_errors``). So are the
browser's pages (tests/client/conftest.py, ``@pytest.mark.page_errors``).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

from server.store.embedded import EmbeddedRedis, free_port
from server.store.sealing import SeedSeal
from server.store.streams import events_key, unpack
from tests import watch
from tests.cluster import LocalCluster
from tests.server import client
from tests.waiting import until

ROOT = Path(__file__).resolve().parent.parent

# Hypothesis: no per-example time limit (its default is 200 ms): these machines are shared
# and noisy, and speed targets live in bench/, not in tests. Two profiles, chosen by
# HYPOTHESIS_PROFILE (``make test`` sets "ci"; "ci" too when CI is set, else "dev"; not a
# CARDTABLE_ variable: the test servers inherit the environment and refuse unknown ones):
# - "ci": derandomised, so a run's examples follow from the test alone and a CI failure
#   replays anywhere; Hypothesis then reads and writes no example database (derandomize
#   implies database=None), so a failure prints its blob for ``@reproduce_failure``.
# - "dev": random examples, and the failing ones kept in .hypothesis/examples (git-ignored)
#   and tried first on the next run until they pass.
# Tests set only their own example counts and health checks, never derandomize or database.
settings.register_profile("ci", deadline=None, derandomize=True, database=None,
                          print_blob=True)
settings.register_profile("dev", deadline=None, derandomize=False,
                          database=DirectoryBasedExampleDatabase(ROOT / ".hypothesis" / "examples"))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI") else "dev"))
SEED_KEYS = ROOT / "var" / "seed-keys"
"""The keys that seal what the test servers store (their working directory is ``ROOT``,
and the ``seed_keys`` setting's default is ``var/seed-keys``)."""


def stored_entries(client: Any, table_id: str) -> list[dict[str, Any]]:
    """A table's stored entries read straight from Redis (``client``: a synchronous
    redis-py client), opened with the test servers' seed keys."""
    seal = SeedSeal.at(SEED_KEYS)
    return [seal.open_entry(unpack(b), table_id)
            for b in client.lrange(events_key(table_id), 0, -1)]


async def finished_bot_game(url: str, seats: int = 5, private: bool = False
                            ) -> dict[str, Any]:
    """Create a table of random bots, start it and wait for its end (a long stored
    stream); returns the create answer (``id``, ``owner_token``, ``invite_key`` for a
    private table) plus the final ``seq``."""
    lobby = client.Lobby(url)
    try:
        table = await lobby.create(seats, private=private)
        for seat in range(seats):
            await lobby.bot(table["id"], seat)
        await lobby.start(table["id"])
        headers = {"X-Table-Key": table["invite_key"]} if private else {}

        async def over() -> dict[str, Any] | None:
            r = await lobby.http.get(f"/api/tables/{table['id']}", headers=headers)
            return r.json() if r.json()["status"] == "ended" else None
        got = await until(over, 120, "the bot game ended")
        return {**table, "seq": got["seq"]}
    finally:
        await lobby.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--redis", choices=("single", "cluster"), default="single",
                     help="run the Redis fixtures on one redis-server (default) or on a "
                          "Redis Cluster of 3 masters and 3 replicas")


def pytest_configure(config: pytest.Config) -> None:
    for marker in watch.MARKERS:
        config.addinivalue_line("markers", marker)
    if config.getoption("--redis") == "cluster":
        # Every server of the run acknowledges only what a replica holds, as a deployment
        # with replicas does (docs/protocol.md §3, "Cluster").
        TEST_ENV["CARDTABLE_REDIS_WAIT"] = "1"


TEST_ENV = {
    "CARDTABLE_BOT_DELAY": "0",
    "CARDTABLE_TABLES_PER_HOUR": "100000",
    "CARDTABLE_SIGNUPS_PER_HOUR": "100000",
    "CARDTABLE_PASSKEY_LOGINS_PER_HOUR": "100000",
    "CARDTABLE_CONNS_PER_ADDR": "1000",
    "CARDTABLE_RATE_PER_S": "1000",
    "CARDTABLE_RATE_BURST": "1000",
    "CARDTABLE_REPLAY_RATE_PER_S": "100000",
    "CARDTABLE_REPLAY_BURST": "100000",
    "CARDTABLE_LOG_LEVEL": "warning",
    "CARDTABLE_STATIC_DIR": "/nonexistent",
}


class RedisProcess(EmbeddedRedis):
    """A test's own redis-server (append-only file on) in ``directory`` on a fixed port,
    so it can be killed and restarted at the same URL with its data."""

    def __init__(self, directory: Path) -> None:
        # Not tied to the starting thread's life (PR_SET_PDEATHSIG follows the thread, and
        # a test restarts it from a worker thread); the fixture stops it.
        super().__init__(directory, port=free_port(), tie_to_parent=False)

    def start(self, timeout: float = 60.0) -> str:
        """Start and wait until it answers (at most ``timeout`` s: the service's own 10 s
        is short for a test's restart with its append-only file on a loaded machine);
        returns its URL."""
        return super().start(timeout)

    def restart(self) -> None:
        """Stop (SIGTERM: flushes the append-only file) and start again on the same port."""
        self.stop()
        self.start()


class ServerProcess:
    """``python -m cli serve`` on a free port; ``url``/``ws_url`` once started.
    ``redis_url`` None: the embedded Redis, with its data in ``redis_dir``."""

    def __init__(self, redis_url: str | None, env: dict[str, str] | None = None,
                 port: int | None = None, redis_dir: Path | None = None) -> None:
        self.redis_url = redis_url
        self.redis_dir = redis_dir
        self.port = port or free_port()
        self.env = {**os.environ, **TEST_ENV, **(env or {})}
        self.env.pop("REDIS_URL", None)
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.log_file: Any = None
        self.watcher = watch.ServerWatch(self)

    def open_log(self) -> Any:
        """The file the server's stderr goes to (a file: a full pipe would block it)."""
        self.log_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 (the server keeps it)
            prefix="einauge-serve-", suffix=".log", delete=False)
        return self.log_file

    def command(self) -> list[str]:
        """The command line of the server process."""
        store = (["--redis-url", self.redis_url] if self.redis_url
                 else ["--redis-dir", str(self.redis_dir)])
        return [sys.executable, "-m", "cli", "serve", "--port", str(self.port), *store]

    def start(self, timeout: float = 120.0) -> ServerProcess:
        """Start and wait until ``/healthz`` answers 200 (at most ``timeout`` s: a start
        took over 60 s at a load average of 30; RuntimeError after that)."""
        with self.open_log() as log:  # the child keeps its own descriptor
            self.watcher.started(Path(log.name))
            self.proc = subprocess.Popen(self.command(), cwd=ROOT, env=self.env,
                                         stdout=subprocess.DEVNULL, stderr=log)
        watch.watch(self.watcher)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited: " + self.read_log()[-2000:])
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)  # polling /healthz: the pause between two asks
        self.stop()
        raise RuntimeError("server did not answer /healthz in time")

    def kill(self) -> None:
        """SIGKILL: a crash, no goodbye to anyone."""
        if self.proc is not None:
            self.watcher.ending(self.proc)
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def stop(self) -> int | None:
        """SIGTERM and wait; returns the exit code."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        self.watcher.ending(proc)
        proc.send_signal(signal.SIGTERM)
        try:
            # A stop may take uvicorn's graceful 5 s for open connections and up to 5 s for
            # a deletion's append-only rewrite to start (server/app.py, lifespan), then the
            # rest of the shutdown: 30 s still tells a hang from a slow machine.
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
            self.watcher.stopped(proc, code, killed_after_timeout=True)
        else:
            self.watcher.stopped(proc, code, killed_after_timeout=False)
        return code

    def read_log(self) -> str:
        """What the server wrote to stderr so far."""
        return Path(self.log_file.name).read_text(errors="replace")


def _declared(item: pytest.Item, name: str) -> list[re.Pattern[str]]:
    return [re.compile(p) for m in item.iter_markers(name) for p in m.args]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After the test's teardown (and that of the fixtures it was the last user of): what
    the watched servers and pages did since the last test fails this one."""
    try:
        result = yield
    except BaseException as e:
        for problem in _problems(item):  # the teardown's own error stays the one raised
            e.add_note(problem)
        raise
    problems = _problems(item)
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)
    return result


def _problems(item: pytest.Item) -> list[str]:
    return watch.check(_declared(item, watch.SERVER_MARKER), _declared(item, watch.PAGE_MARKER))


@pytest.fixture(scope="session")
def redis_mode(request: pytest.FixtureRequest) -> str:
    """``single`` or ``cluster`` (``pytest --redis=…``)."""
    return str(request.config.getoption("--redis"))


@pytest.fixture(scope="session")
def redis_url(redis_mode: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server on a free port for the whole session, or with
    ``--redis=cluster`` the URL of one node of a real 3+3 Redis Cluster."""
    if redis_mode == "cluster":
        cluster = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
        yield cluster.url
        cluster.stop()
        return
    r = EmbeddedRedis(tmp_path_factory.mktemp("redis"), port=free_port())
    yield r.start()
    r.stop()


@pytest.fixture(scope="session")
def server(redis_url: str) -> Iterator[ServerProcess]:
    """One server process on ``redis_url`` for the session (a ring of only 4 recent
    deltas, so reconnects exercise both the ring and the rebuild by replay)."""
    s = ServerProcess(redis_url, env={"CARDTABLE_RECENT_DELTAS": "4"}).start()
    yield s
    s.stop()


@pytest.fixture
def own_redis(tmp_path: Path, redis_mode: str) -> Iterator[RedisProcess | LocalCluster]:
    """A test's own Redis (to restart or kill); a cluster of its own with
    ``--redis=cluster``."""
    if redis_mode == "cluster":
        cluster = LocalCluster(tmp_path / "cluster").start()
        yield cluster
        cluster.stop()
        return
    r = RedisProcess(tmp_path / "redis")
    r.start()
    yield r
    r.stop()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LocalCluster]:
    """A test's own Redis Cluster (3 masters, 3 replicas), whatever ``--redis`` says."""
    c = LocalCluster(tmp_path / "cluster").start()
    yield c
    c.stop()


@pytest.fixture(autouse=True)
def players_declared() -> Iterator[None]:
    """Fail a test whose protocol players (tests/server/client.py ``Player``) met an
    error or a dropped socket it did not declare: the player plays on through both, so
    without this a server that refused moves or dropped sockets would pass."""
    client.PLAYERS.clear()
    yield
    surprises = [f"player of {p.table_id}: {s}" for p in client.PLAYERS for s in p.surprises()]
    client.PLAYERS.clear()
    if surprises:
        pytest.fail("undeclared by the test:\n" + "\n".join(surprises[:20]), pytrace=False)
