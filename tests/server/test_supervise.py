"""server/store/supervise.py with a real ``cardtable serve`` on its embedded Redis: a killed
``redis-server`` is restarted (with its data), ``/healthz`` says so, and a second service
on the same data folder is refused with a clear message instead of sharing the Redis."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess

import pytest
import redis

from tests.conftest import ROOT, ServerProcess
from tests.server.client import Lobby
from tests.waiting import until


def redis_pid(sock: str) -> int:
    r = redis.Redis(unix_socket_path=sock, socket_timeout=2)
    try:
        return int(r.info("server")["process_id"])
    finally:
        r.close()


# The test kills the embedded redis-server: the supervisor logs that at error level (an
# operator must see it) as it restarts it.
@pytest.mark.server_errors(r"\[error +\] embedded redis-server exited; restarting it code=-9 ")
async def test_a_killed_embedded_redis_is_restarted_and_a_second_service_refused(tmp_path):
    data = tmp_path / "data"
    sock = str(data / "redis.sock")
    server = ServerProcess(None, redis_dir=data).start()
    lobby = Lobby(server.url)
    try:
        assert (await lobby.get("/healthz")).json() == {
            "ok": True, "redis": "ok",
            "embedded_redis": {"state": "running", "restarts": 0, "last_exit": None}}
        table = await lobby.create(2)

        # A second service on the same folder stops at once and says why.
        second = ServerProcess(None, redis_dir=data)
        done = await asyncio.to_thread(subprocess.run, second.command(), cwd=ROOT,
                                       env=second.env, capture_output=True, text=True,
                                       timeout=30)
        assert done.returncode == 1, done.stderr
        assert "already uses the data folder" in done.stderr
        assert f"pid {server.proc.pid}" in done.stderr
        assert (await lobby.get("/healthz")).status_code == 200  # the first is untouched

        # The embedded Redis dies: it is started again, with its data.
        first = redis_pid(sock)
        os.kill(first, signal.SIGKILL)
        async def restarted() -> dict | None:
            r = await lobby.get("/healthz")
            health = r.json()
            return health if r.status_code == 200 and \
                health["embedded_redis"]["restarts"] == 1 else None

        health = await until(restarted, timeout=20, what="the embedded Redis restarted")
        assert health == {"ok": True, "redis": "ok",
                          "embedded_redis": {"state": "running", "restarts": 1,
                                             "last_exit": -signal.SIGKILL}}
        assert redis_pid(sock) != first
        summary = await lobby.get(f"/api/tables/{table['id']}")
        assert summary.status_code == 200 and summary.json()["id"] == table["id"]
        assert (await lobby.http.post("/api/tables", json={"seats": 2})).status_code == 201
    finally:
        await lobby.close()
        code = server.stop()
    # Stopping the service stops its Redis too (SIGTERM: it writes its append-only file
    # first, which takes a moment on a loaded machine, so give it a while). A service the
    # fixture had to SIGKILL still takes it along (PR_SET_PDEATHSIG).
    r = redis.Redis(unix_socket_path=sock, socket_timeout=1)
    try:
        def gone() -> bool:
            try:
                r.ping()
            except (redis.ConnectionError, FileNotFoundError):
                return True
            return False

        await until(gone, timeout=30, what=f"the embedded Redis gone (service exit {code})")
    finally:
        r.close()
