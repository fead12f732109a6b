"""A Redis data set written by an older version of the service, as a portable fixture
(tests/server/test_upgrade.py): ``export`` writes every key of a Redis (type, value as
base64, remaining time to live) to JSON, ``load`` writes it into another Redis.

Run as a program it produces the fixture from an older commit's own code, its server and
its test client, on a fresh redis-server::

    OLD=$(mktemp -d) && git archive 5ebf3c0 | tar -x -C "$OLD"
    .venv/bin/python -m tests.server.olddata "$OLD" tests/server/data/before-a21c4a3.json \
        5ebf3c0

5ebf3c0 is the commit before a21c4a3, which replaced the lobby lists (``tables:open``,
``tables:running``, ``tables:ended``) by the read model; it also predates sealed seeds
(8dedb1e), seat tokens dropped from the accounts' held rows and the ``p:``/``b:`` action-id
keys: every data migration CHANGELOG.md names for 0.1.0. What it writes: an account
``oldanna`` (password ``correct horse 1``) that created an open table and holds seat 0 of
a running game against a random bot (waiting for her move), and a game of three random
bots played to its end. The table ids are in the fixture's ``made`` field.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis

PASSWORD = "correct horse 1"


def _b(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _u(text: str) -> bytes:
    return base64.b64decode(text)


def export(client: redis.Redis) -> list[dict[str, Any]]:
    """Every key of ``client``'s Redis, sorted by name."""
    out = []
    for key in sorted(client.scan_iter(count=1000)):
        kind = client.type(key).decode()
        value: Any
        if kind == "string":
            value = _b(client.get(key) or b"")
        elif kind == "hash":
            value = {_b(k): _b(v) for k, v in client.hgetall(key).items()}
        elif kind == "list":
            value = [_b(v) for v in client.lrange(key, 0, -1)]
        elif kind == "set":
            value = sorted(_b(v) for v in client.smembers(key))
        elif kind == "zset":
            value = [[_b(m), s] for m, s in client.zrange(key, 0, -1, withscores=True)]
        elif kind == "stream":
            value = [[rid.decode(), {_b(k): _b(v) for k, v in fields.items()}]
                     for rid, fields in client.xrange(key)]
        else:
            raise ValueError(f"{key!r}: type {kind} not exported")
        ttl = client.pttl(key)
        out.append({"key": _b(key), "type": kind, "value": value,
                    "pttl": ttl if ttl > 0 else None})
    return out


def load(client: Any, keys: list[dict[str, Any]]) -> None:
    """Write ``keys`` (``export``'s) into ``client``'s Redis (a cluster client too: one
    key per command), each with its time to live counted from now."""
    for row in keys:
        key, kind, value = _u(row["key"]), row["type"], row["value"]
        if kind == "string":
            client.set(key, _u(value))
        elif kind == "hash":
            client.hset(key, mapping={_u(k): _u(v) for k, v in value.items()})
        elif kind == "list":
            client.rpush(key, *[_u(v) for v in value])
        elif kind == "set":
            client.sadd(key, *[_u(v) for v in value])
        elif kind == "zset":
            client.zadd(key, {_u(m): s for m, s in value})
        elif kind == "stream":
            for rid, fields in value:
                client.xadd(key, {_u(k): _u(v) for k, v in fields.items()}, id=rid)
        if row["pttl"]:
            client.pexpire(key, row["pttl"])


PLAY = """
import asyncio, json, sys, time
from tests.server.client import Lobby, Member  # the old checkout's own client

async def play(url):
    anna = Member(url)
    await anna.sign_up("oldanna", "correct horse 1")
    open_table = await anna.create(3)
    await anna.join(open_table["id"], "oldanna", seat=0, token=open_table["owner_token"])
    running = await anna.create(2)
    await anna.join(running["id"], "oldanna", seat=0, token=running["owner_token"])
    await anna.bot(running["id"], 1)
    await anna.start(running["id"])
    bots = Lobby(url)
    ended = await bots.create(3)
    for seat in range(3):
        await bots.bot(ended["id"], seat)
    await bots.start(ended["id"])
    deadline = time.monotonic() + 120
    while (await bots.get("/api/tables/" + ended["id"])).json()["status"] != "ended":
        assert time.monotonic() < deadline, "the old bots' game did not end"
        await asyncio.sleep(0.2)
    while (await bots.get("/api/tables/" + running["id"])).json().get("seq", 0) == 0:
        await asyncio.sleep(0.2)  # the bot moves first: wait until oldanna is to move
    await anna.close()
    await bots.close()
    print(json.dumps({"open": open_table["id"], "running": running["id"],
                      "ended": ended["id"]}))

asyncio.run(play(sys.argv[1]))
"""
"""What the old version's own test client does (see the module docstring); run in the old
checkout, it prints the table ids as JSON."""


def main(old: Path, out: Path, commit: str) -> None:
    """Produce the fixture (see the module docstring)."""
    from server.store.embedded import EmbeddedRedis, free_port

    with tempfile.TemporaryDirectory() as tmp:
        store = EmbeddedRedis(Path(tmp) / "redis", port=free_port())
        url = store.start()
        port = free_port()
        env = {**os.environ, "EINAUGE_BOT_DELAY": "0", "EINAUGE_LOG_LEVEL": "warning"}
        server = subprocess.Popen([sys.executable, "-m", "cli", "serve", "--port", str(port),
                                   "--redis-url", url], cwd=old, env=env)
        try:
            base = f"http://127.0.0.1:{port}"
            import httpx

            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(base + "/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "the old server did not start"
                time.sleep(0.2)
            done = subprocess.run([sys.executable, "-c", PLAY, base], cwd=old, env=env,
                                  capture_output=True, text=True, timeout=300, check=True)
            made = json.loads(done.stdout.strip().splitlines()[-1])
        finally:
            server.terminate()
            server.wait(30)
        client = redis.Redis.from_url(url)
        data = {"commit": commit, "made": made, "keys": export(client)}
        client.close()
        store.stop()
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]), sys.argv[3])
