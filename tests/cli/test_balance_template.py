"""``cardtable balance --config TEMPLATE``: the operator's own HAProxy configuration with
the balancer's placeholders; here deploy/haproxy/tls.cfg.template, TLS in HAProxy
(docs/operations.md, "Front proxy"). A template HAProxy refuses, or one with an unknown
placeholder, stops the command before anything starts."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cli.balance import find_haproxy
from server.store.embedded import free_port
from tests.cli.test_balance import Balanced
from tests.conftest import ROOT, TEST_ENV

TEMPLATE = ROOT / "deploy" / "haproxy" / "tls.cfg.template"


def certificate(folder: Path) -> Path:
    """A self-signed certificate and its key in one PEM file, as HAProxy takes them."""
    key, crt = folder / "key.pem", folder / "crt.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(crt)],
                   check=True, capture_output=True, timeout=60)
    pem = folder / "cardtable.pem"
    pem.write_text(crt.read_text() + key.read_text())
    return pem


def template_here(folder: Path) -> tuple[Path, int]:
    """The TLS template with this machine's certificate and a free plain-HTTP port."""
    plain = free_port()
    text = TEMPLATE.read_text().replace("/etc/haproxy/certs/cardtable.pem",
                                        str(certificate(folder)))
    text = text.replace("bind ${host}:80", f"bind ${{host}}:{plain}")
    path = folder / "tls.cfg.template"
    path.write_text(text)
    return path, plain


@pytest.mark.timeout(180)
def test_the_tls_template_serves_https_and_marks_the_cookie_secure(
        redis_url: str, tmp_path: Path) -> None:
    if find_haproxy() is None:
        pytest.fail("haproxy is not installed: run scripts/setup.sh", pytrace=False)
    template, plain = template_here(tmp_path)
    b = Balanced(redis_url, tmp_path / "balance.log", processes=2,
                 extra=("--config", str(template)))
    url = f"https://127.0.0.1:{b.port}"
    try:
        with httpx.Client(base_url=url, verify=False, timeout=5) as client:
            deadline = time.monotonic() + 90
            while True:
                assert b.proc is not None and b.proc.poll() is None, b.log.read_text()[-3000:]
                try:
                    if all(client.get(p).status_code == 200
                           for p in ("/healthz", "/process/0/healthz", "/process/1/healthz")):
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, b.log.read_text()[-3000:]
                time.sleep(0.1)  # polling a balancer that is starting
            r = client.post("/api/account/signup",
                            json={"username": "tls-user", "password": "correct horse 1"})
            assert r.status_code == 201, r.text
            cookie = r.headers["set-cookie"]
            assert "secure" in cookie.lower(), cookie  # X-Forwarded-Proto from HAProxy
        redirect = httpx.get(f"http://127.0.0.1:{plain}/", timeout=5)
        assert redirect.status_code == 301
        assert redirect.headers["location"].startswith("https://")
    finally:
        b.stop()


def refused(template: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", "balance", "--config", str(template),
                           "--port", str(free_port()), "--redis-url", "redis://127.0.0.1:1/0"],
                          cwd=ROOT, env={**TEST_ENV, "PATH": "/usr/bin:/bin:/usr/sbin"},
                          capture_output=True, text=True, timeout=60)


def test_a_template_haproxy_refuses_or_with_an_unknown_placeholder_stops_it(
        tmp_path: Path) -> None:
    if find_haproxy() is None:
        pytest.fail("haproxy is not installed: run scripts/setup.sh", pytrace=False)
    unknown = tmp_path / "unknown.cfg"
    unknown.write_text(TEMPLATE.read_text() + "\n# ${certificate}\n")
    got = refused(unknown)
    assert got.returncode == 2 and "unknown placeholder ${certificate}" in got.stderr
    broken = tmp_path / "broken.cfg"
    broken.write_text(TEMPLATE.read_text().replace("option redispatch 1", "option nonsense"))
    got = refused(broken)
    assert got.returncode == 2 and "haproxy refuses it" in got.stderr, got.stderr
