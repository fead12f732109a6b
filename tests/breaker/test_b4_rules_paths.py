"""Breaker b4: the rules pages ``/rules/<game>`` (server/app.py) against path tricks, sent
byte for byte over a raw socket (an HTTP client would normalise ``..`` away) to a real
server process serving a client build.

Held: no path reaches a file outside the build (``..``, encoded slashes and dots,
backslashes, overlong UTF-8), none gives a 500. Found: every name at all got the page with
200, unknown games too (``/rules/nosuch``, ``/rules/..``, ``/rules/%``, a 20,000-character
name): a soft 404 that monitors, caches and crawlers take for a page. Fixed: a name that
is no game of the engine's registry gets the same page (the client shows its not-found
view) with 404.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import GAMES
from tests.conftest import ServerProcess

INDEX = b"<html>the client build</html>"
SECRET = b"outside the build"


@pytest.fixture
def site(redis_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    build = tmp_path / "dist"
    (build / "assets").mkdir(parents=True)
    (build / "index.html").write_bytes(INDEX)
    (build / "assets" / "app.js").write_bytes(b"js")
    (tmp_path / "secret.txt").write_bytes(SECRET)
    s = ServerProcess(redis_url, env={"CARDTABLE_STATIC_DIR": str(build)}).start()
    yield s
    s.stop()


def _get(port: int, target: str) -> tuple[int, bytes]:
    """``GET target`` as sent (no normalisation); the status and the body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as c:
        c.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .encode("latin-1"))
        data = b""
        while chunk := c.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body


TRICKS = ["/rules/../secret.txt", "/rules/../../secret.txt", "/rules/..%2fsecret.txt",
          "/rules/..%2f..%2fsecret.txt", "/rules/%2e%2e%2f%2e%2e%2fsecret.txt",
          "/rules/..%5c..%5csecret.txt", "/../secret.txt", "/%2e%2e/secret.txt",
          "/assets/../../secret.txt", "/assets/..%2f..%2fsecret.txt", "//secret.txt",
          "/rules/%c0%ae%c0%ae/secret.txt", "/rules/einauge/../../secret.txt"]
UNKNOWN = ["/rules/nosuch", "/rules/..", "/rules/%2e%2e", "/rules/%", "/rules/%00",
           "/rules/einauge%00", "/rules/EINAUGE", "/rules/loot_island", "/rules/%2F",
           "/rules/" + "a" * 20_000]


def test_rules_paths_stay_in_the_build_and_unknown_games_get_404(site) -> None:
    for target in TRICKS:
        status, body = _get(site.port, target)
        assert status == 404 and SECRET not in body, (target, status, body[:80])
    for target in UNKNOWN:
        status, body = _get(site.port, target)
        assert status == 404, (target[:60], status, body[:80])
    for name in GAMES:
        assert _get(site.port, f"/rules/{name}") == (200, INDEX), name
    assert _get(site.port, "/rules") == (200, INDEX)
    assert _get(site.port, "/assets/app.js") == (200, b"js")
    assert "Traceback" not in site.read_log()
