"""The app in-process: static files of the web client with the single-page fallback,
/healthz and /metrics, and the API's JSON errors for routes and methods that do not exist."""

from __future__ import annotations

import socket
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from engine import GAMES
from server.app import create_app
from server.config import Settings
from tests.conftest import ServerProcess

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # it prefers httpx2 now; httpx is what we have
    from starlette.testclient import TestClient


def test_static_client_spa_routes_health_and_metrics(redis_url, tmp_path):
    (tmp_path / "index.html").write_text("<html>einauge</html>")
    (tmp_path / "app.js").write_text("console.log(1)")
    # Its own limit of tables per hour: the shared Redis counts 127.0.0.1's other tables.
    app = create_app(Settings(redis_url=redis_url, static_dir=str(tmp_path),
                              tables_per_hour=100_000))
    with TestClient(app, client=("127.0.0.1", 50000)) as client:  # metrics: loopback only
        assert client.get("/").text == "<html>einauge</html>"
        assert client.get("/table/abc").text == "<html>einauge</html>"
        assert client.get("/replay/abc").text == "<html>einauge</html>"
        assert client.get("/replay").text == "<html>einauge</html>"  # open a record file
        assert client.get("/app.js").text == "console.log(1)"
        assert client.get("/healthz").json() == {"ok": True, "redis": "ok"}
        r = client.post("/api/tables", json={"seats": 2})
        assert r.status_code == 201
        metrics = client.get("/metrics").text
        assert "cardtable_action_latency_seconds" in metrics
        assert r.json()["owner_token"] not in metrics


def test_unmatched_api_routes_and_methods_answer_the_api_json_error(redis_url, tmp_path):
    (tmp_path / "index.html").write_text("<html>einauge</html>")
    for static in (str(tmp_path), "/nonexistent"):  # with the web client's files and without
        app = create_app(Settings(redis_url=redis_url, static_dir=static))
        with TestClient(app) as client:
            for method, path, status, code in [
                    ("GET", "/api/nothing", 404, "not_found"),
                    ("GET", "/api/tables/abc/nothing", 404, "not_found"),
                    ("POST", "/api/games/einauge/cards", 405, "method_not_allowed"),
                    ("PUT", "/api/tables", 405, "method_not_allowed"),
                    ("DELETE", "/api/replay", 405, "method_not_allowed"),
                    ("POST", "/healthz", 405, "method_not_allowed")]:
                r = client.request(method, path)
                assert r.status_code == status, (static, method, path, r.text)
                assert r.headers["content-type"] == "application/json", (method, path)
                error = r.json()["error"]
                assert error["code"] == code and path in error["message"], error
            # Outside the API the page routes and static files answer as before.
            missing = client.get("/no-such-file.js")
            assert missing.status_code == 404
            assert not missing.headers["content-type"].startswith("application/json")
        if static != "/nonexistent":
            # A fresh app: each TestClient runs the lifespan on a loop of its own, and a
            # Redis connection pooled on the first loop must not be used on the second.
            with TestClient(create_app(Settings(redis_url=redis_url,
                                                static_dir=static))) as client:
                assert client.get("/table/abc").text == "<html>einauge</html>"


def test_healthz_reports_an_unreachable_redis(redis_url):
    app = create_app(Settings(redis_url=redis_url))
    with TestClient(app) as client:
        app.state.svc.store.redis.connection_pool.connection_kwargs["port"] = 1
        app.state.svc.store.redis.connection_pool.reset()
        r = client.get("/healthz")
        assert r.status_code == 503 and r.json() == {"ok": False, "redis": "unavailable"}


def test_the_service_refuses_a_redis_that_may_evict_keys(own_redis, tmp_path):
    """Redis deleting keys under memory pressure would delete games and accounts: the
    service does not start on one whose maxmemory-policy is not noeviction."""
    r = redis.Redis.from_url(own_redis.url)
    try:
        r.config_set("maxmemory-policy", "allkeys-lru")
        app = create_app(Settings(redis_url=own_redis.url, seed_keys=str(tmp_path / "k")))
        refused = r"maxmemory-policy is allkeys-lru: .* set maxmemory-policy noeviction"
        with pytest.raises(RuntimeError, match=refused), TestClient(app):
            pass
        r.config_set("maxmemory-policy", "noeviction")  # the control: the same app starts
        app = create_app(Settings(redis_url=own_redis.url, seed_keys=str(tmp_path / "k")))
        with TestClient(app) as client:
            assert client.get("/healthz").json() == {"ok": True, "redis": "ok"}
    finally:
        r.close()


# The attack these tests guard against (found in a security review):
# Breaker b4: the rules pages ``/rules/<game>`` (server/app.py) against path tricks, sent
# byte for byte over a raw socket (an HTTP client would normalise ``..`` away) to a real
# server process serving a client build.
#
# Held: no path reaches a file outside the build (``..``, encoded slashes and dots,
# backslashes, overlong UTF-8), none gives a 500. Found: every name at all got the page with
# 200, unknown games too (``/rules/nosuch``, ``/rules/..``, ``/rules/%``, a 20,000-character
# name): a soft 404 that monitors, caches and crawlers take for a page. Fixed: a name that
# is no game of the engine's registry gets the same page (the client shows its not-found
# view) with 404.


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
