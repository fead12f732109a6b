"""Settings from the environment and flags, and the embedded Redis."""

from __future__ import annotations

import pytest

from server import config
from server.redis_embedded import EmbeddedRedis, RedisMissing


def test_env_then_flags():
    s = config.from_env({"REDIS_URL": "redis://x", "EINAUGE_PORT": "9000",
                         "EINAUGE_ALLOWED_ORIGINS": "https://a, https://b",
                         "EINAUGE_BOT_DELAY": "0.25", "EINAUGE_LOG_JSON": "yes"}, port=8001)
    assert (s.redis_url, s.port, s.bot_delay, s.log_json) == ("redis://x", 8001, 0.25, True)
    assert s.allowed_origins == ("https://a", "https://b")
    assert config.from_env({}).redis_url is None
    with pytest.raises(ValueError, match="EINAUGE_PORT"):
        config.from_env({"EINAUGE_PORT": "many"})


def test_missing_redis_server_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RedisMissing, match="apt-get install redis-server"):
        EmbeddedRedis(tmp_path / "r").start()


def test_embedded_redis_on_a_unix_socket_keeps_its_data(tmp_path):
    import redis

    with EmbeddedRedis(tmp_path / "r") as r:
        assert r.url.startswith("unix://")
        client = redis.Redis.from_url(r.url)
        client.set("k", "v")
        client.close()
    assert (tmp_path / "r" / "appendonlydir").is_dir()
    with EmbeddedRedis(tmp_path / "r") as r:
        client = redis.Redis.from_url(r.url)
        assert client.get("k") == b"v"
        client.close()
