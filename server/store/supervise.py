"""Watching over the embedded Redis of ``cardtable serve``: one service per data folder, and
a ``redis-server`` that is restarted when it dies.

- ``DataDirLock``: an exclusive ``flock`` on ``<data folder>/serve.lock``, held for the life
  of the process (the kernel releases it when the process dies, however it dies). A second
  ``cardtable serve`` on the same folder is refused with a clear message instead of silently
  sharing the first one's Redis (and losing it when the first stops).
- ``Supervisor``: a thread that waits for the ``redis-server`` child; when it exits
  unasked, it is started again on the same socket with the same data (append-only file),
  after a backoff that grows with failures in a row (``redis.backoff.ExponentialBackoff``:
  0.1 s doubling up to 5 s). ``status()`` is what ``/healthz`` shows.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from pathlib import Path
from typing import Any

from redis.backoff import ExponentialBackoff

from server.logging import get_logger
from server.store.embedded import EmbeddedRedis

log = get_logger("supervise")

STABLE_AFTER = 30.0
"""Seconds a restarted Redis must run before the backoff starts from the beginning."""


class DataDirInUse(RuntimeError):
    """Another process holds the data folder's lock; the message names it."""


class DataDirLock:
    """The exclusive lock of one data folder (see the module docstring)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.path = Path(directory).resolve() / "serve.lock"
        self.fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (creating the folder); raises ``DataDirInUse`` when it is held."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise DataDirInUse(
                f"another cardtable serve (pid {holder}) already uses the data folder "
                f"{self.path.parent}; stop it, or give this one another --redis-dir "
                f"(or --redis-url to share a Redis on purpose)") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd

    def release(self) -> None:
        """Give the lock up (the process's exit does it too)."""
        fd, self.fd = self.fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


class Supervisor:
    """Keeps ``redis`` (started already) running; see the module docstring."""

    def __init__(self, redis: EmbeddedRedis, backoff: ExponentialBackoff | None = None) -> None:
        self.redis = redis
        self.backoff = backoff or ExponentialBackoff(cap=5.0, base=0.1)
        self.restarts = 0
        self.failures = 0
        self.last_exit: int | None = None
        self.state = "running"
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._watch, name="redis-watchdog", daemon=True)

    def start(self) -> None:
        """Start watching."""
        self._thread.start()

    def stop(self) -> None:
        """Stop watching, then stop Redis (SIGTERM: it flushes the append-only file)."""
        self._stop.set()
        with self._lock:
            self.redis.stop()
        self._thread.join(10)

    def status(self) -> dict[str, Any]:
        """``{"state": "running"|"restarting", "restarts": int, "last_exit": int|None}``:
        ``restarts`` counts the restarts since the service started, ``last_exit`` is the
        exit status of the last death (negative: killed by that signal)."""
        return {"state": self.state, "restarts": self.restarts, "last_exit": self.last_exit}

    def _watch(self) -> None:
        started = time.monotonic()
        while not self._stop.is_set():
            proc = self.redis.process
            if proc is not None:
                code = proc.wait()
                if self._stop.is_set():
                    return
                self.state = "restarting"
                self.last_exit = code
                if time.monotonic() - started >= STABLE_AFTER:
                    self.failures = 0  # it ran well for a while: start the backoff over
                log.error("embedded redis-server exited; restarting it", code=code,
                          url=self.redis.url)
            self.failures += 1
            if self._stop.wait(self.backoff.compute(self.failures)):
                return
            with self._lock:
                if self._stop.is_set():
                    return
                try:
                    self.redis.start()
                except RuntimeError as e:
                    log.error("embedded redis-server did not start again", error=str(e),
                              failures=self.failures)
                    self.redis.process = None
                    continue
            started = time.monotonic()
            self.restarts += 1
            self.state = "running"
            log.warning("embedded redis-server restarted", restarts=self.restarts,
                        url=self.redis.url)
