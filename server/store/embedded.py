"""A private ``redis-server`` child process: the zero-configuration default store.

Data lives under one directory (``var/redis``) with the append-only file on and
``appendfsync everysec``, so at most about one second of acknowledged actions is at risk
if the machine (not just the process) dies. The child listens on a unix socket in that
directory when the path is short enough, else on a free loopback port.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis

INSTALL_HINT = ("redis-server was not found. Install it (Debian/Ubuntu: `sudo apt-get install "
                "redis-server`, macOS: `brew install redis`), or point the service at a running "
                "Redis with --redis-url / REDIS_URL.")


class RedisMissing(RuntimeError):
    """The ``redis-server`` binary is not on the PATH; the message says how to install it."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    # Linux: the child gets SIGTERM when the server dies, even by SIGKILL.
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class EmbeddedRedis:
    """Starts ``redis-server`` with its data in ``directory``; ``url`` once started.

    ``port=None``: a unix socket (or a free port when the socket path is too long).
    ``tie_to_parent``: stop the child when this process dies (Linux). Raises
    ``RedisMissing`` without the binary and ``RuntimeError`` if it does not answer PING
    within ``timeout`` seconds.
    """

    def __init__(self, directory: str | os.PathLike[str], port: int | None = None,
                 tie_to_parent: bool = True) -> None:
        self.directory = Path(directory).resolve()
        self.port = port
        self.tie_to_parent = tie_to_parent
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self, timeout: float = 10.0) -> str:
        """Start the child and wait until it answers; returns its URL."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisMissing(INSTALL_HINT)
        self.directory.mkdir(parents=True, exist_ok=True)
        sock = self.directory / "redis.sock"
        args = [binary, "--dir", str(self.directory), "--appendonly", "yes",
                "--appendfsync", "everysec", "--save", "", "--daemonize", "no",
                "--bind", "127.0.0.1", "--protected-mode", "yes", "--loglevel", "warning",
                "--logfile", str(self.directory / "redis.log")]
        if self.port is None and len(str(sock)) < 100:
            if sock.exists() and _answers(f"unix://{sock}"):
                # Not ours (cardtable serve holds the folder's lock: server/store/supervise.py), and
                # sharing it would leave us with nothing when its owner stops it.
                raise RuntimeError(f"a redis-server already answers on {sock}; stop it first")
            args += ["--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700"]
            self.url = f"unix://{sock}"
        else:
            self.port = self.port or free_port()  # kept: a restart listens on the same port
            args += ["--port", str(self.port)]
            self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            # A session of its own: a Ctrl-C or a signal to the service's process group
            # reaches the service only, which stops Redis after its own shutdown (and its
            # watchdog does not take the signal for a crash to restart from).
            start_new_session=True,
            preexec_fn=_die_with_parent if self.tie_to_parent else None)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                stderr = self.process.stderr
                err = stderr.read().decode(errors="replace") if stderr else ""
                log = self.directory / "redis.log"
                tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
                raise RuntimeError(f"redis-server exited with {self.process.returncode}: "
                                   f"{err.strip() or tail.strip()}")
            if _answers(self.url):
                return self.url
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not answer within {timeout} s ({self.url})")

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the child (SIGTERM: Redis flushes the append-only file first)."""
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def kill(self) -> None:
        """SIGKILL the child (tests: a crash, not a shutdown)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _answers(url: str) -> bool:
    try:
        client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False
