"""The nginx example (deploy/nginx/cardtable.conf; docs/operations.md, "Front proxy (TLS)")
run for real in front of ``cardtable serve``: its ports and certificate paths templated to
free ports and a self-signed certificate, everything else as shipped. Plain HTTP is
redirected to HTTPS; a sign-up through it gets a ``Secure`` cookie (``X-Forwarded-Proto``
from a trusted proxy) and counts the client's address; a websocket is upgraded through it
and carries frames both ways."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from protocol.connection import dial
from protocol.frames import pack, unpack
from server.store.embedded import free_port
from tests.conftest import ROOT, ServerProcess
from tests.server.client import Lobby, unique
from tests.waiting import until, until_sync

CONF = ROOT / "deploy" / "nginx" / "cardtable.conf"
HOST = "cards.example.org"


def nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)
    if found is None:
        pytest.fail("nginx is not installed: run scripts/setup.sh", pytrace=False)
    return found


def templated(text: str, upstream: int, http: int, https: int, cert: Path, key: Path) -> str:
    """The shipped configuration with only its machine-specific parts replaced."""
    out = text.replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};")
    out = re.sub(r"\n\s*listen \[::\]:\d+[^;]*;", "", out)  # no IPv6 on every test machine
    out = out.replace("listen 80;", f"listen 127.0.0.1:{http};")
    out = out.replace("listen 443 ssl", f"listen 127.0.0.1:{https} ssl")
    out = re.sub(r"ssl_certificate\s+\S+;", f"ssl_certificate {cert};", out)
    out = re.sub(r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {key};", out)
    assert out.count(str(upstream)) == 1 and str(https) in out and str(http) in out
    return out


@pytest.fixture
def front(redis_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, int, int]]:
    """``cardtable serve`` trusting 127.0.0.1 as its proxy, behind the real nginx:
    (server, nginx's http port, its https port)."""
    binary = nginx()
    server = ServerProcess(redis_url, env={
        "CARDTABLE_TRUSTED_PROXIES": "127.0.0.1",
        "CARDTABLE_PUBLIC_URL": f"https://{HOST}",
        "CARDTABLE_ALLOWED_ORIGINS": f"https://{HOST}"}).start()
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", f"/CN={HOST}", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    http, https = free_port(), free_port()
    (tmp_path / "cardtable.conf").write_text(
        templated(CONF.read_text(), server.port, http, https, cert, key))
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers reach the temp folders
    (tmp_path / "nginx.conf").write_text(f"""{user}worker_processes 1;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/error.log warn;
daemon off;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {tmp_path}/body;
    proxy_temp_path {tmp_path}/proxy;
    fastcgi_temp_path {tmp_path}/fastcgi;
    uwsgi_temp_path {tmp_path}/uwsgi;
    scgi_temp_path {tmp_path}/scgi;
    include {tmp_path}/cardtable.conf;
}}
""")
    checked = subprocess.run([binary, "-t", "-p", str(tmp_path), "-c",
                              str(tmp_path / "nginx.conf")], capture_output=True, text=True,
                             timeout=30, check=False)
    assert checked.returncode == 0, checked.stderr
    proc = subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def answers() -> bool:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            try:
                return httpx.get(f"https://127.0.0.1:{https}/healthz", verify=False,
                                 timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        until_sync(answers, 30, "nginx passing /healthz")
        yield server, http, https
    finally:
        proc.send_signal(signal.SIGQUIT)  # graceful: its workers finish, then it exits
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        server.stop()


async def test_the_nginx_example_passes_https_and_websockets_to_the_service(
        front: tuple[ServerProcess, int, int]) -> None:
    server, http, https = front
    base = f"https://127.0.0.1:{https}"
    headers = {"Host": HOST, "Origin": f"https://{HOST}"}
    async with httpx.AsyncClient(base_url=base, verify=False, headers=headers,
                                 timeout=20) as web:
        plain = httpx.get(f"http://127.0.0.1:{http}/api/tables", headers={"Host": HOST},
                          follow_redirects=False, timeout=10)
        assert plain.status_code == 301
        assert plain.headers["location"] == f"https://{HOST}/api/tables"

        name = unique("tls")
        r = await web.post("/api/account/signup", json={"username": name,
                                                        "password": "correct horse 1"})
        assert r.status_code == 201, r.text
        cookie = r.headers["set-cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie, cookie
        # Directly (no proxy, plain http): the same service sets no Secure cookie.
        direct = httpx.post(f"{server.url}/api/account/signup", timeout=10,
                            headers={"Origin": f"https://{HOST}"},
                            json={"username": unique("tls"), "password": "correct horse 1"})
        assert direct.status_code == 201 and "Secure" not in direct.headers["set-cookie"]

    lobby = Lobby(server.url)
    try:
        table = await lobby.create(2)
        tid = table["id"]
        token = (await lobby.join(tid, "Ann"))["token"]
        await lobby.join(tid, "Bob")
        await lobby.start(tid)
    finally:
        await lobby.close()
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    ws = await dial(f"wss://127.0.0.1:{https}/ws/tables/{tid}", ssl=context,
                    additional_headers={"Origin": f"https://{HOST}"})
    try:
        assert ws.response.status_code == 101
        await ws.send(pack({"t": "hello", "token": token}))
        frames: list[dict] = []

        async def received(t: str) -> dict | None:
            frames.append(unpack(await asyncio.wait_for(ws.recv(), 20)))
            return next((f for f in frames if f["t"] == t), None)

        welcome = await until(lambda: received("welcome"), 30, "the welcome through nginx")
        assert welcome["seat"] == 0
        await ws.send(pack({"t": "chat", "text": "through the front proxy"}))
        said = await until(lambda: received("chat"), 30, "the chat line back")
        assert said["text"] == "through the front proxy"
    finally:
        await ws.close()
