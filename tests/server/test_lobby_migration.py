"""The lobby lists of an older version (server/store/lobby_migration.py): written in their old
layout into a real Redis, a service started on it lists their tables, the old lists are
gone, and a second run changes nothing."""

from __future__ import annotations

import secrets
import time

import httpx

from engine.chain import genesis
from server.store import lobby_migration
from server.store.client import connect_sync
from server.store.lobby_index import LobbyIndex
from server.store.streams import Store, meta_key
from server.table.meta import Seat, TableMeta, token_hash
from tests.conftest import ServerProcess
from tests.waiting import until


def old_meta(status: str, private: bool = False) -> TableMeta:
    meta = TableMeta(id="old" + secrets.token_hex(5), game="einauge", status=status,
                     name=f"an old {status} table", options={},
                     seats=[Seat(name="Ann", kind="human"), Seat(name="Bob", kind="human")],
                     contributions=["", ""], commitment="c" * 64, server_seed="5" * 64,
                     created_at=time.time() - 100, tokens=[token_hash("a"), token_hash("b")],
                     version="4", invite="ab" * 32 if private else "")
    meta.head = genesis(meta.id, meta.commitment).hex()
    if status == "ended":
        meta.winners = [1]
    return meta


def write_old_layout(redis_url: str, metas: list[TableMeta], gone: str) -> None:
    """What the version before the read model stored: the meta hash (without the fields
    added since) and the id in ``tables:<status>``, scored by creation time."""
    r = connect_sync(redis_url)
    try:
        for meta in metas:
            fields = meta.to_fields()
            for newer in ("time_control", "rated", "host"):
                fields.pop(newer)
            if meta.winners is not None:
                fields["winners"] = "[1]"
            r.hset(meta_key(meta.id), mapping=fields)
            if meta.status == "open":
                r.expire(meta_key(meta.id), 600)
            r.zadd(lobby_migration.old_list(meta.status), {meta.id: meta.created_at})
        r.zadd(lobby_migration.old_list("open"), {gone: time.time()})  # its meta expired
    finally:
        r.close()


async def listed(base: str, status: str) -> dict[str, dict]:
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        r = await http.get("/api/tables", params={"status": status})
        assert r.status_code == 200, r.text
        return {t["id"]: t for t in r.json()["tables"]}


async def test_a_service_lists_the_tables_of_the_old_lobby_lists(redis_url) -> None:
    metas = {s: old_meta(s) for s in ("open", "running", "ended")}
    hidden = old_meta("open", private=True)
    gone = "gone" + secrets.token_hex(5)
    write_old_layout(redis_url, [*metas.values(), hidden], gone)

    server = ServerProcess(redis_url).start()
    try:
        async def migrated() -> dict | None:  # the migration runs in the background at start
            rows = {s: await listed(server.url, s) for s in metas}
            return rows if all(m.id in rows[s] for s, m in metas.items()) else None

        rows = await until(migrated, timeout=20, what="the old lists migrated")
        for status, meta in metas.items():
            assert rows[status][meta.id] == meta.summary()
            others = [s for s in metas if s != status]
            assert all(meta.id not in rows[s] for s in others)
        assert all(hidden.id not in r and gone not in r for r in rows.values())
        # the API answers for the tables as before
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            got = await http.get(f"/api/tables/{metas['running'].id}")
            assert got.json() == metas["running"].summary()
    finally:
        server.stop()

    r = connect_sync(redis_url)
    try:
        assert r.exists(*(lobby_migration.old_list(s) for s in metas)) == 0
    finally:
        r.close()

    # Idempotent: a second run (another process starting) copies nothing, changes nothing.
    store = Store.from_url(redis_url)
    try:
        index = LobbyIndex(store.redis)
        before = await index.listing(list(metas), 1000, time.time())
        assert await lobby_migration.migrate(store, 3600) == 0
        assert await index.listing(list(metas), 1000, time.time()) == before
    finally:
        await store.close()


async def test_of_the_old_ended_list_only_the_newest_are_copied(redis_url) -> None:
    ended = [old_meta("ended") for _ in range(5)]
    for i, meta in enumerate(ended):
        meta.created_at = time.time() - 50 + i
    r = connect_sync(redis_url)
    try:
        r.delete(lobby_migration.old_list("ended"))
    finally:
        r.close()
    write_old_layout(redis_url, ended, "gone" + secrets.token_hex(5))
    store = Store.from_url(redis_url)
    try:
        copied = await lobby_migration.migrate(store, 3600, keep_ended=2)
        assert copied == 2
        ids = await LobbyIndex(store.redis).ids("ended", 10_000)
        assert ended[4].id in ids and ended[3].id in ids
        assert not {m.id for m in ended[:3]} & set(ids)
        assert await store.redis.exists(lobby_migration.old_list("ended")) == 0
    finally:
        await store.close()
