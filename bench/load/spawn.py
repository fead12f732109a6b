"""A private service for one benchmark run: ``SpawnedService`` starts a ``redis-server``
on a free port and ``python -m cli serve`` with the per-address limits raised
(``BENCH_ENV``), pinned to their cores; ``free_ports``, ``free_port`` and ``wait_port``
are its helpers, used by other benchmarks too.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

from bench.load.host import raise_nofile

REPO = Path(__file__).resolve().parents[2]
"""The repository root: where the server of this checkout runs."""


def free_ports(n: int = 1) -> list[int]:
    """``n`` distinct TCP ports on 127.0.0.1 that nothing listens on right now (all bound
    at once, so the kernel cannot hand out the same one twice)."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(n):
            s = stack.enter_context(socket.socket())
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
        return ports


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    return free_ports(1)[0]


def _limits(nofile: int, nice: int = 0):
    def apply() -> None:  # runs in the child before exec
        raise_nofile(nofile)
        if nice:
            os.nice(nice)
    return apply


def wait_port(port: int, timeout: float = 20.0, proc: subprocess.Popen | None = None) -> None:
    """Block until something accepts on 127.0.0.1:``port``; raises ``RuntimeError``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


STARTUP_S = 90
"""How long a started server may take to answer ``/healthz``: on this 2-core machine
shared with other suites (load average 25-28) a start took more than 30 s."""

BENCH_ENV = {
    "CARDTABLE_TABLES_PER_HOUR": "1000000000",
    "CARDTABLE_CONNS_PER_ADDR": "1000000",
    "CARDTABLE_RATE_PER_S": "10000",
    "CARDTABLE_RATE_BURST": "10000",
    "CARDTABLE_LOG_JSON": "true",
}
"""Server limits raised for a benchmark: every client here is one loopback address and the
players act faster than a person. The log is JSON lines, as the Docker image and the
systemd unit write it. Everything else keeps the service's defaults."""


class SpawnedService:
    """A private ``redis-server`` and ``python -m cli serve`` for one benchmark run.

    The server runs pinned to ``server_core`` (``taskset``) with ``RLIMIT_NOFILE`` raised
    to ``nofile``; Redis runs on ``redis_core``. Data lives in a temporary folder that is
    removed on ``stop()``. ``serve_args`` are extra arguments for ``cardtable serve``;
    ``command`` replaces ``python -m cli`` and ``server_dir`` (default: this checkout) is
    where it runs, to measure another checkout of the server; ``nice``
    (negative: higher priority, needs root) is applied to Redis and the server, for a
    machine that other work shares.
    """

    def __init__(self, server_core: int | None = 1, redis_core: int | None = 0,
                 nofile: int = 65536, serve_args: Sequence[str] = (),
                 env: dict[str, str] | None = None,
                 command: Sequence[str] | None = None, nice: int = 0,
                 server_dir: Path | None = None) -> None:
        self.server_core = server_core
        self.redis_core = redis_core
        self.nofile = nofile
        self.serve_args = list(serve_args)
        self.env = env or {}
        self.command = list(command or [sys.executable, "-m", "cli"])
        self.nice = nice
        self.server_dir = server_dir or REPO
        self.tmp = Path(tempfile.mkdtemp(prefix="einauge-bench-"))
        self.redis_port, self.port = free_ports(2)
        self.redis: subprocess.Popen | None = None
        self.server: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """The service's HTTP base address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def redis_url(self) -> str:
        """The Redis address the service uses."""
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def _pin(self, core: int | None) -> list[str]:
        if core is None or shutil.which("taskset") is None or core >= (os.cpu_count() or 1):
            return []
        return ["taskset", "-c", str(core)]

    def start(self) -> SpawnedService:
        """Start Redis, then the server; returns once both accept connections."""
        redis_bin = shutil.which("redis-server")
        if redis_bin is None:
            raise RuntimeError("redis-server not found: apt-get install redis-server")
        self.redis = subprocess.Popen(
            [*self._pin(self.redis_core), redis_bin, "--port", str(self.redis_port),
             "--bind", "127.0.0.1", "--dir", str(self.tmp), "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--maxclients", "10000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=_limits(self.nofile, self.nice),
        )
        wait_port(self.redis_port, proc=self.redis)
        self.start_server()
        return self

    def start_server(self) -> None:
        """Start the server process (again) on the same port and Redis."""
        env = {**os.environ, **BENCH_ENV, "REDIS_URL": self.redis_url, **self.env}
        with (self.tmp / "server.log").open("ab") as log:
            self.server = subprocess.Popen(
                [*self._pin(self.server_core), *self.command, "serve",
                 "--host", "127.0.0.1", "--port", str(self.port), "--redis-url",
                 self.redis_url, *self.serve_args],
                cwd=self.server_dir, env=env, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=_limits(self.nofile, self.nice),
            )
        deadline = time.monotonic() + STARTUP_S
        while True:  # the service itself must answer, not just anything on the port
            if self.server.poll() is not None:
                raise RuntimeError(f"server exited with {self.server.returncode}:\n"
                                   + self.log_tail())
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not answer /healthz in {STARTUP_S} s:\n"
                                   + self.log_tail())
            time.sleep(0.05)

    def restart_server(self) -> None:
        """Stop the server (SIGTERM) and start a fresh process: an empty table cache."""
        if self.server is not None and self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(15)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.start_server()

    @property
    def server_pid(self) -> int:
        """The pid of the server process (``taskset`` execs, so it is the Popen's pid)."""
        assert self.server is not None
        return self.server.pid

    def log_tail(self, n: int = 40) -> str:
        """The last ``n`` lines of the server's output."""
        with contextlib.suppress(OSError):
            return "\n".join((self.tmp / "server.log").read_text().splitlines()[-n:])
        return ""

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and Redis; remove the data folder."""
        for proc in (self.server, self.redis):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> SpawnedService:
        try:
            return self.start()
        except BaseException:  # a server that never answered must not outlive the run
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
