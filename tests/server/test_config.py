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
    for name, value in {"REDIS_URL": "redis://x", "CARDTABLE_PORT": "9000",
                        "CARDTABLE_ALLOWED_ORIGINS": "https://a, https://b",
                        "CARDTABLE_BOT_DELAY": "0.25", "CARDTABLE_LOG_JSON": "yes"}.items():
        monkeypatch.setenv(name, value)
    s = config.from_env(port=8001)
    assert (s.redis_url, s.port, s.bot_delay, s.log_json) == ("redis://x", 8001, 0.25, True)
    assert s.allowed_origins == ("https://a", "https://b")
    assert s.replace(port=None, bot_workers=0).bot_workers == 0
    monkeypatch.delenv("REDIS_URL")
    assert config.from_env().redis_url is None


@pytest.mark.parametrize(("name", "value", "allowed"), [
    ("CARDTABLE_LOG_JSON", "ture", "expected a boolean (true/false, 1/0, yes/no, on/off)"),
    ("CARDTABLE_PORT", "many", "valid integer"),
    ("CARDTABLE_PORT", "80.5", "valid integer"),
    ("CARDTABLE_BOT_WORKERS", "-1", "greater than or equal to 0"),
    ("CARDTABLE_RATE_PER_S", "fast", "valid number"),
    ("CARDTABLE_LOG_LEVEL", "loud", "'critical', 'error', 'warning', 'info', 'debug' or 'trace'"),
])
def test_a_bad_value_names_the_variable_the_value_and_what_is_allowed(
        monkeypatch, name, value, allowed):
    monkeypatch.setenv(name, value)
    with pytest.raises(config.SettingsError) as e:
        config.from_env()
    assert str(e.value).startswith(f"{name}={value!r}: ")
    assert allowed in str(e.value)


@pytest.mark.parametrize(("name", "meant"), [("CARDTABLE_BOT_DELAYS", "CARDTABLE_BOT_DELAY"),
                                             ("EINAUGE_BOT_DELAYS", "CARDTABLE_BOT_DELAY"),
                                             ("CARDTABLE_REDIS_URL", "REDIS_URL")])
def test_an_unknown_variable_is_refused_by_name_with_the_likely_one(monkeypatch, name, meant):
    monkeypatch.setenv(name, "1")
    with pytest.raises(config.SettingsError, match=rf"unknown setting {name} \(did you mean "
                       rf"{meant}\?\); known: .*CARDTABLE_BOT_DELAY,"):
        config.from_env()


def test_the_former_einauge_names_still_work_with_a_warning_naming_the_new_one(monkeypatch):
    """For one release ``EINAUGE_<NAME>`` is read when ``CARDTABLE_<NAME>`` is not set;
    ``CARDTABLE_`` wins when both are; start-up warns once per former name."""
    from structlog.testing import capture_logs

    for name, value in {"EINAUGE_PORT": "9000", "EINAUGE_BOT_DELAY": "0.25",
                        "EINAUGE_ALLOWED_ORIGINS": "https://a, https://b",
                        "CARDTABLE_BOT_DELAY": "0.5"}.items():
        monkeypatch.setenv(name, value)
    s = config.from_env()
    assert (s.port, s.bot_delay, s.allowed_origins) == (9000, 0.5, ("https://a", "https://b"))
    assert config.from_env(port=8001).port == 8001  # flags still win
    with capture_logs() as logs:
        config.warn_legacy()
    said = [e["detail"].split()[0] for e in logs
            if e["event"] == "renamed_setting" and e["log_level"] == "warning"]
    notes = {e["detail"].split()[0]: e["detail"] for e in logs}
    for old in ("EINAUGE_ALLOWED_ORIGINS", "EINAUGE_BOT_DELAY", "EINAUGE_PORT"):
        assert said.count(old) == 1  # once per former variable
    assert notes["EINAUGE_PORT"].startswith("EINAUGE_PORT is CARDTABLE_PORT now")
    assert "both are set: CARDTABLE_BOT_DELAY wins" in notes["EINAUGE_BOT_DELAY"]
    # A bad value under the former name is reported under that name.
    monkeypatch.setenv("EINAUGE_PORT", "many")
    with pytest.raises(config.SettingsError, match=r"^EINAUGE_PORT='many': "):
        config.from_env()


def test_the_default_game_is_a_registered_game(monkeypatch):
    assert config.from_env().default_game == "einauge"
    monkeypatch.setenv("CARDTABLE_DEFAULT_GAME", "keltis")
    assert config.from_env().default_game == "keltis"
    monkeypatch.setenv("CARDTABLE_DEFAULT_GAME", "chess")
    with pytest.raises(config.SettingsError, match=r"^CARDTABLE_DEFAULT_GAME='chess': .*"
                       r"no game 'chess'; known: einauge, keltis, loot-island"):
        config.from_env()


@pytest.mark.parametrize(("env", "message"), [
    ({"CARDTABLE_LOG_JSON": "ture"}, "CARDTABLE_LOG_JSON='ture': expected a boolean"),
    ({"CARDTABLE_BACKLOG": "lots"}, "CARDTABLE_BACKLOG='lots': Input should be a valid integer"),
    ({"CARDTABLE_FOO": "1"}, "unknown setting CARDTABLE_FOO"),
])
def test_cardtable_serve_stops_at_start_up_on_a_bad_setting(env, message):
    """The real command: exit code 2 before it starts Redis or listens, one clear line."""
    run_env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CARDTABLE_", "EINAUGE_")) and k != "REDIS_URL"}
    done = subprocess.run([sys.executable, "-m", "cli", "serve"], cwd=ROOT,
                          env={**run_env, **env}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"cardtable serve: {message}")
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
