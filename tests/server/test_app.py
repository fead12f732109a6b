"""The app in-process: static files of the web client with the single-page fallback,
/healthz and /metrics."""

from __future__ import annotations

import warnings

from server.app import create_app
from server.config import Settings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # it prefers httpx2 now; httpx is what we have
    from starlette.testclient import TestClient


def test_static_client_spa_routes_health_and_metrics(redis_url, tmp_path):
    (tmp_path / "index.html").write_text("<html>einauge</html>")
    (tmp_path / "app.js").write_text("console.log(1)")
    app = create_app(Settings(redis_url=redis_url, static_dir=str(tmp_path)))
    with TestClient(app) as client:
        assert client.get("/").text == "<html>einauge</html>"
        assert client.get("/table/abc").text == "<html>einauge</html>"
        assert client.get("/replay/abc").text == "<html>einauge</html>"
        assert client.get("/replay").text == "<html>einauge</html>"  # open a record file
        assert client.get("/app.js").text == "console.log(1)"
        assert client.get("/healthz").json() == {"ok": True}
        r = client.post("/api/tables", json={"seats": 2})
        assert r.status_code == 201
        metrics = client.get("/metrics").text
        assert "einauge_action_latency_seconds" in metrics
        assert r.json()["owner_token"] not in metrics


def test_healthz_reports_an_unreachable_redis(redis_url):
    app = create_app(Settings(redis_url=redis_url))
    with TestClient(app) as client:
        app.state.svc.store.redis.connection_pool.connection_kwargs["port"] = 1
        app.state.svc.store.redis.connection_pool.reset()
        r = client.get("/healthz")
        assert r.status_code == 503 and r.json()["ok"] is False
