"""A deleted account's name and e-mail address leave Redis entirely: no key or value holds
them (not a pending confirmation link, a reset link or a failed-login counter), and the
append-only file is rewritten after the deletion, so neither its base nor its increment
files hold them (server/store/aof.py; docs/operations.md, "Deleting personal data").
A real redis-server with the append-only file on, a real server process and a real SMTP
server (aiosmtpd)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from aiosmtpd.controller import Controller

from server.store.aof import rewrite_everywhere
from server.store.client import connect
from server.store.embedded import free_port
from tests.conftest import RedisProcess, ServerProcess
from tests.server.client import Member, unique
from tests.server.test_account_deletion import _everything
from tests.server.test_notify import Inbox, confirm
from tests.waiting import until

PW = "correct horse 1"


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield inbox, port
    controller.stop()


def _aof_bytes(directory: Path) -> dict[str, bytes]:
    """Every file of the append-only directory (Redis 7: base, increments, manifest)."""
    return {p.name: p.read_bytes() for p in sorted((directory / "appendonlydir").iterdir())}


def _holding(directory: Path, needles: list[bytes]) -> list[str]:
    return [name for name, data in _aof_bytes(directory).items()
            if any(n in data.lower() for n in needles)]


async def _persistence(client: aioredis.Redis) -> dict:
    return await client.info("persistence")


async def _rewritten(client: aioredis.Redis, after: int, directory: Path) -> bool:
    """A rewrite counted after ``after`` rewrites is done and the files it replaced are
    gone (Redis removes them right after it, in the background): the directory holds
    just what the manifest names."""
    info = await _persistence(client)
    if info["aof_rewrites"] <= after or info["aof_rewrite_in_progress"] \
            or info["aof_rewrite_scheduled"]:
        return False
    manifest = (directory / "appendonlydir" / "appendonly.aof.manifest").read_text()
    listed = {line.split()[1] for line in manifest.splitlines() if line.startswith("file ")}
    return set(_aof_bytes(directory)) == listed | {"appendonly.aof.manifest"}


async def test_a_deleted_accounts_name_and_address_leave_redis_and_its_append_only_file(
        tmp_path: Path, smtp: tuple[Inbox, int]) -> None:
    inbox, port = smtp
    redis_dir = tmp_path / "redis"
    store = RedisProcess(redis_dir)
    url = store.start()
    client = aioredis.from_url(url)
    # Uncompressed snapshots: the base file is searchable for the bytes it holds.
    await client.config_set("rdbcompression", "no")
    server = ServerProcess(url, env={
        "CARDTABLE_SMTP_HOST": "127.0.0.1", "CARDTABLE_SMTP_PORT": str(port),
        "CARDTABLE_PUBLIC_URL": "https://einauge.example",
        "CARDTABLE_PASSWORD_RESETS_PER_HOUR": "100"}).start()
    try:
        name = unique("erase")
        first, second = f"{name}-a@example.org", f"{name}-b@example.org"
        needles = [name.lower().encode(), first.encode(), second.encode()]
        m = Member(server.url)
        await m.sign_up(name, email=first)
        await confirm(inbox, m, first)
        # A pending reset link, a failed login's counter, and a new address whose
        # confirmation link is pending (its key holds the address).
        r = await m.http.post("/api/account/password-reset", json={"username": name})
        assert r.status_code == 202, r.text
        await until(lambda: any(first in rcpt and msg["Subject"] == "Reset your password"
                                for rcpt, msg in inbox.mails), what="the reset mail")
        assert (await Member(server.url).try_log_in(name, "not the password")).status_code \
            == 401
        r = await m.http.patch("/api/me/settings", json={"email": second})
        assert r.status_code == 200, r.text
        await until(lambda: inbox.confirmations(second), what="the second confirmation")
        everything = await _everything(client)
        holders = {k for k, vals in everything
                   if any(n in k.lower() for n in needles)
                   or any(n in v.lower() for v in vals for n in needles)}
        assert any(k.startswith(b"ev:") for k in holders)  # the pending confirmation
        assert any(k.startswith(b"lf:") for k in holders)  # the failed login's counter
        # A rewrite before the deletion puts the account into the base file: the search
        # below sees the base, not only the increments.
        before = (await _persistence(client))["aof_rewrites"]
        await client.bgrewriteaof()
        await until(lambda: _rewritten(client, before, redis_dir), 30, "the first rewrite")
        assert any(".base." in f for f in _holding(redis_dir, [first.encode()]))
        assert _holding(redis_dir, [second.encode()])  # in the increment file

        before = (await _persistence(client))["aof_rewrites"]
        r = await m.http.request("DELETE", "/api/me", json={"password": PW})
        assert r.status_code == 200, r.text
        await until(lambda: _rewritten(client, before, redis_dir), 30,
                    "the rewrite after the deletion")
        assert _holding(redis_dir, needles) == []
        left = [k for k, vals in await _everything(client)
                if any(n in k.lower() for n in needles)
                or any(n in v.lower() for v in vals for n in needles)]
        assert left == []
        await m.close()
    finally:
        server.stop()
        await client.aclose()
        store.stop()


async def test_the_rewrite_reaches_every_master_and_replica_of_a_cluster(cluster) -> None:
    """On a cluster (3 masters, 3 replicas) the rewrite after a deletion starts on all six
    nodes: the masters the client knows and the replicas they name."""
    nodes = [aioredis.from_url(f"redis://127.0.0.1:{p}/0") for p in cluster.ports]
    client = connect(cluster.url)
    try:
        before = [(await n.info("persistence"))["aof_rewrites"] for n in nodes]
        assert await rewrite_everywhere(client) == len(nodes) == 6

        async def all_rewritten() -> bool:
            infos = [await n.info("persistence") for n in nodes]
            return all(i["aof_rewrites"] > b and not i["aof_rewrite_in_progress"]
                       for i, b in zip(infos, before, strict=True))

        await until(all_rewritten, 30, "a rewrite on every node")
    finally:
        await client.aclose()
        for n in nodes:
            await n.aclose()
