"""``cardtable balance`` (cli/balance.py) and the operator: it listens where the host and
port settings say (``make serve-balanced``), and each process's ``/metrics`` and
``/healthz`` are reachable through it (``/process/<n>/…``), the metrics only for the
addresses of ``CARDTABLE_METRICS_FROM`` as the process sees the client (the forwarded
address, not HAProxy's), ``/healthz`` for everyone. A real HAProxy and real processes."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from cli.balance import PROCESS_PATH, find_haproxy, haproxy_config
from server.store.embedded import free_port
from tests import watch
from tests.cli.test_balance import Balanced, free_run
from tests.conftest import ROOT, TEST_ENV


@pytest.fixture(autouse=True, scope="module")
def _haproxy() -> None:
    if find_haproxy() is None:
        pytest.fail("haproxy is not installed: run scripts/setup.sh", pytrace=False)


def test_each_process_has_its_own_path() -> None:
    cfg = haproxy_config("127.0.0.1", 8000, [8001, 8002])
    assert f"acl process_path path_reg {PROCESS_PATH}" in cfg
    assert "use_backend process%[path,field(3,/)] if process_path" in cfg
    for i, port in enumerate((8001, 8002)):
        block = cfg.split(f"backend process{i}\n", 1)[1].split("\n\n", 1)[0]
        assert block.split("\n") == ["    http-request set-path /%[path,field(4,/)]",
                                     f"    server serve{i} 127.0.0.1:{port}"]
    assert re.match(PROCESS_PATH, "/process/1/metrics")
    assert re.match(PROCESS_PATH, "/process/0/healthz")
    assert not re.match(PROCESS_PATH, "/process/0/api/tables")
    assert not re.match(PROCESS_PATH, "/process/x/metrics")


class FromSettings(Balanced):
    """``python -m cli balance -n 2`` with neither ``--host`` nor ``--port``: those come
    from ``CARDTABLE_HOST`` and ``CARDTABLE_PORT``, as under ``make serve-balanced``."""

    def __init__(self, redis_url: str, log: Path, env: dict[str, str]) -> None:
        self.redis_url = redis_url
        self.port = free_port()
        self.processes = 2
        self.first = free_run(2)
        self.log = log
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        environ = {**os.environ, **TEST_ENV, **env, "CARDTABLE_HOST": "127.0.0.1",
                   "CARDTABLE_PORT": str(self.port)}
        environ.pop("REDIS_URL", None)
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli", "balance", "-n", "2",
                 "--first-port", str(self.first), "--redis-url", redis_url],
                cwd=ROOT, env=environ, stdout=out, stderr=out)
        self.watcher = watch.ServerWatch(self)
        self.watcher.started(log)
        watch.watch(self.watcher)


@pytest.fixture
def balanced(redis_url: str, tmp_path: Path) -> Iterator[FromSettings]:
    b = FromSettings(redis_url, tmp_path / "balance.log",
                     {"CARDTABLE_METRICS_FROM": "127.0.0.1,127.0.0.31",
                      "CARDTABLE_LOG_JSON": "true", "CARDTABLE_LOG_LEVEL": "info"})
    try:
        b.wait_ready()
        yield b
    finally:
        b.stop()


def records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]


async def access_lines(log: Path, client: str, count: int) -> list[dict[str, Any]]:
    """The access lines of requests from ``client``, once there are ``count``."""
    deadline = time.monotonic() + 10
    while True:
        found = [r for r in records(log)
                 if r.get("component") == "access" and r.get("client") == client]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.02)  # polling: the pause between two reads of the log


@pytest.mark.timeout(180)
async def test_each_process_answers_its_metrics_and_health_through_the_balancer(
        balanced: FromSettings) -> None:
    assert f"cardtable balance: http://127.0.0.1:{balanced.port} -> 2 processes" in \
        balanced.log.read_text()
    listed = httpx.AsyncHTTPTransport(local_address="127.0.0.31")
    async with httpx.AsyncClient(base_url=balanced.url, timeout=10, transport=listed) as http:
        for n in (1, 0):
            r = await http.get(f"/process/{n}/metrics")
            assert r.status_code == 200 and "cardtable_sockets " in r.text, r.text
            r = await http.get(f"/process/{n}/healthz")
            assert r.status_code == 200 and r.json()["ok"] is True, r.text
    # (a passed /healthz is logged at debug: the health checks would flood the log)
    lines = await access_lines(balanced.log, "127.0.0.31", 2)
    assert [(r["route"], r["status"], r["process"]) for r in lines] == [
        ("/metrics", 200, f"serve:{balanced.first + 1}"),
        ("/metrics", 200, f"serve:{balanced.first}")]
    other = httpx.AsyncHTTPTransport(local_address="127.0.0.32")
    async with httpx.AsyncClient(base_url=balanced.url, timeout=10, transport=other) as http:
        r = await http.get("/process/0/metrics")  # the process sees 127.0.0.32, not HAProxy
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden", r.text
        r = await http.get("/metrics")
        assert r.status_code == 403, r.text
        assert (await http.get("/healthz")).status_code == 200
        assert (await http.get("/process/1/healthz")).status_code == 200


def services(compose: str) -> dict[str, list[str]]:
    """compose.yaml's services, each with its lines (indented under ``services:``)."""
    out: dict[str, list[str]] = {}
    current, inside = None, False
    for line in compose.splitlines():
        if not line.startswith(" ") and line.strip():
            inside = line.startswith("services:")
            current = None
        elif inside and re.match(r"^  [a-z]+:$", line):
            current = line.strip()[:-1]
            out[current] = []
        elif inside and current is not None:
            out[current].append(line)
    return out


def test_compose_scales_the_app_behind_its_proxy() -> None:
    """``docker compose up --scale app=N``: only the proxy publishes a port, its HAProxy
    configuration is valid and finds the replicas by the service's name, and the replicas
    trust the forwarded address from the proxy's fixed address alone."""
    compose = (ROOT / "compose.yaml").read_text()
    found = services(compose)
    assert set(found) == {"redis", "app", "proxy"}
    published = {name for name, lines in found.items()
                 if any(ln.strip() == "ports:" for ln in lines)}
    assert published == {"proxy"}
    proxy_ip = re.search(r"ipv4_address: (\S+)", "\n".join(found["proxy"]))
    assert proxy_ip is not None
    assert f"CARDTABLE_TRUSTED_PROXIES: {proxy_ip.group(1)}" in "\n".join(found["app"])
    cfg = ROOT / "deploy" / "compose-haproxy.cfg"
    assert "./deploy/compose-haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in compose
    haproxy = find_haproxy()
    assert haproxy is not None
    checked = subprocess.run([haproxy, "-c", "-f", str(cfg)], capture_output=True, text=True,
                             timeout=30)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    text = cfg.read_text()
    assert text.count("server-template app 32 app:8000 ") == 2
    assert "http-request del-header X-Forwarded-For\n" in text
