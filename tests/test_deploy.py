"""The deployment examples of deploy/ (docs/operations.md, "Running it under systemd",
"Front proxy"): the systemd units pass ``systemd-analyze verify``, the Redis
configuration starts a redis-server with the settings the service needs, and the nginx
example passes the websocket upgrade, Host and forwarded headers with long timeouts."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import redis

from server.store.embedded import free_port
from tests.conftest import ROOT

DEPLOY = ROOT / "deploy"
UNITS = sorted(p for p in (DEPLOY / "systemd").iterdir()
               if p.suffix in (".service", ".timer", ".target"))


def test_the_systemd_units_verify(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    # The units name the command where an installation puts it; here, this checkout's.
    command = str(ROOT / ".venv" / "bin" / "cardtable")
    for unit in UNITS:
        text = unit.read_text().replace("/opt/cardtable/.venv/bin/cardtable", command)
        (tmp_path / unit.name).write_text(text)
    got = subprocess.run(["systemd-analyze", "verify", "--man=no",
                          *(str(tmp_path / u.name) for u in UNITS)],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0 and got.stderr.strip() == "", got.stderr
    names = {u.name for u in UNITS}
    assert {"cardtable-redis.service", "cardtable-balance.service", "cardtable.service",
            "cardtable.target", "cardtable-prune.timer"} <= names
    balance = (DEPLOY / "systemd" / "cardtable-balance.service").read_text()
    assert "ExecReload=/bin/kill -HUP $MAINPID" in balance  # the rolling restart


def test_the_redis_configuration_never_evicts_and_keeps_an_append_only_file(
        tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(["redis-server", str(DEPLOY / "redis" / "redis.conf"),
                             "--port", str(port), "--dir", str(tmp_path),
                             "--daemonize", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = redis.Redis(port=port)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                r.ping()
                break
            except redis.ConnectionError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.05)  # polling a redis-server that is starting
        assert r.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        assert r.config_get("appendonly") == {"appendonly": "yes"}
        assert r.config_get("appendfsync") == {"appendfsync": "everysec"}
    finally:
        r.close()
        proc.terminate()
        proc.wait(15)


def blocks(text: str) -> dict[str, str]:
    """The nginx ``location`` blocks of ``text`` by path (a brace-matched parse)."""
    text = re.sub(r"#[^\n]*", "", text)
    assert text.count("{") == text.count("}")
    out = {}
    for m in re.finditer(r"location\s+(\S+)\s*\{", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out[m.group(1)] = text[m.end():i - 1]
    return out


def directives(block: str) -> dict[str, str]:
    """Directive → value; ``proxy_set_header <name>`` counts as one directive."""
    out = {}
    for words in (d.split() for d in block.split(";")):
        if words:
            n = 2 if words[0] == "proxy_set_header" else 1
            out[" ".join(words[:n])] = " ".join(words[n:])
    return out


def seconds(value: str) -> int:
    n, unit = re.fullmatch(r"(\d+)([smhd]?)", value).groups()  # type: ignore[union-attr]
    return int(n) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[unit]


def test_the_nginx_example_upgrades_websockets_and_forwards_the_client() -> None:
    conf = DEPLOY / "nginx" / "cardtable.conf"
    text = conf.read_text()
    if shutil.which("nginx") is not None:
        got = subprocess.run(["nginx", "-t", "-q", "-c", str(conf)], capture_output=True,
                             text=True, timeout=30)
        # Outside an http block, as conf.d files are; the certificate paths are examples.
        assert "unknown directive" not in got.stderr, got.stderr
    assert re.search(r"map \$http_upgrade \$connection_upgrade", text)
    found = blocks(text)
    ws, http = directives(found["/ws/"]), directives(found["/"])
    assert ws["proxy_set_header Upgrade"] == "$http_upgrade"
    assert ws["proxy_set_header Connection"] == "$connection_upgrade"
    assert ws["proxy_http_version"] == "1.1"
    for d in (ws, http):
        assert d["proxy_set_header Host"] == "$host"
        assert d["proxy_set_header X-Forwarded-Proto"] == "$scheme"
        assert d["proxy_set_header X-Forwarded-For"] == "$proxy_add_x_forwarded_for"
        assert d["proxy_pass"] == "http://cardtable"
    assert seconds(ws["proxy_read_timeout"]) >= 3600
    assert seconds(ws["proxy_send_timeout"]) >= 3600
    assert "listen 443 ssl" in text and "server 127.0.0.1:8000" in text
