"""Settings from the environment and flags, and the embedded Redis."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from server import config
from server.store.embedded import EmbeddedRedis, RedisMissing
from tests.conftest import ROOT


def test_env_then_flags(monkeypatch):
    for name, value in {"REDIS_URL": "redis://x", "EINAUGE_PORT": "9000",
                        "EINAUGE_ALLOWED_ORIGINS": "https://a, https://b",
                        "EINAUGE_BOT_DELAY": "0.25", "EINAUGE_LOG_JSON": "yes"}.items():
        monkeypatch.setenv(name, value)
    s = config.from_env(port=8001)
    assert (s.redis_url, s.port, s.bot_delay, s.log_json) == ("redis://x", 8001, 0.25, True)
    assert s.allowed_origins == ("https://a", "https://b")
    assert s.replace(port=None, bot_workers=0).bot_workers == 0
    monkeypatch.delenv("REDIS_URL")
    assert config.from_env().redis_url is None


@pytest.mark.parametrize(("name", "value", "allowed"), [
    ("EINAUGE_LOG_JSON", "ture", "expected a boolean (true/false, 1/0, yes/no, on/off)"),
    ("EINAUGE_PORT", "many", "valid integer"),
    ("EINAUGE_PORT", "80.5", "valid integer"),
    ("EINAUGE_BOT_WORKERS", "-1", "greater than or equal to 0"),
    ("EINAUGE_RATE_PER_S", "fast", "valid number"),
    ("EINAUGE_LOG_LEVEL", "loud", "'critical', 'error', 'warning', 'info', 'debug' or 'trace'"),
])
def test_a_bad_value_names_the_variable_the_value_and_what_is_allowed(
        monkeypatch, name, value, allowed):
    monkeypatch.setenv(name, value)
    with pytest.raises(config.SettingsError) as e:
        config.from_env()
    assert str(e.value).startswith(f"{name}={value!r}: ")
    assert allowed in str(e.value)


def test_an_unknown_einauge_variable_is_refused_by_name(monkeypatch):
    monkeypatch.setenv("EINAUGE_BOT_DELAYS", "1")
    with pytest.raises(config.SettingsError, match=r"unknown setting EINAUGE_BOT_DELAYS; "
                       r"known: .*EINAUGE_BOT_DELAY,"):
        config.from_env()


@pytest.mark.parametrize(("env", "message"), [
    ({"EINAUGE_LOG_JSON": "ture"}, "EINAUGE_LOG_JSON='ture': expected a boolean"),
    ({"EINAUGE_BACKLOG": "lots"}, "EINAUGE_BACKLOG='lots': Input should be a valid integer"),
    ({"EINAUGE_FOO": "1"}, "unknown setting EINAUGE_FOO"),
])
def test_einauge_serve_stops_at_start_up_on_a_bad_setting(env, message):
    """The real command: exit code 2 before it starts Redis or listens, one clear line."""
    run_env = {k: v for k, v in os.environ.items()
               if not k.startswith("EINAUGE_") and k != "REDIS_URL"}
    done = subprocess.run([sys.executable, "-m", "cli", "serve"], cwd=ROOT,
                          env={**run_env, **env}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"einauge serve: {message}")
    assert "Traceback" not in done.stderr


def test_the_protocol_docs_settings_table_is_the_settings_class():
    """docs/protocol.md §4 lists exactly the fields of ``Settings``, their variables,
    types, defaults and docstrings (regenerate with ``python -m server.config``)."""
    doc = (ROOT / "docs" / "protocol.md").read_text()
    start = doc.index("| variable | type | default | meaning |")
    end = doc.index("<!-- end of settings table -->")
    assert doc[start:end] == config.markdown_table(), (
        "docs/protocol.md's settings table differs from server/config.py: replace it with "
        "the output of `.venv/bin/python -m server.config`")


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
