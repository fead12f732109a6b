"""Archived games (server/table/archive.py): once a finished game is no longer watched its events
and action ids give way to its archive, and every history endpoint answers byte for byte
as before, rebuilt by replay (also in a process that never saw the game)."""

from __future__ import annotations

import time

import httpx
import pytest

from server.store import streams as st
from server.store.client import connect_sync
from server.store.streams import Store
from server.table import archive
from server.table.meta import PACKED, PLAIN, TableMeta, compact, expand
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Socket, ended
from tests.waiting import until

PATHS = ("", "/view", "/events", "/events?from=7", "/deltas", "/deltas?from=30", "/record")


async def answers(base: str, tid: str) -> dict[str, bytes]:
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        out = {}
        for path in PATHS:
            r = await http.get(f"/api/tables/{tid}{path}")
            assert r.status_code == 200, (path, r.text)
            out[path] = r.content
        return out


def memory(r, keys: list[str]) -> int:
    return sum(r.memory_usage(k, samples=0) or 0 for k in keys)


@pytest.fixture
def server(redis_url):
    """A server that archives a finished game as soon as nothing watches it."""
    s = ServerProcess(redis_url, env={"CARDTABLE_ARCHIVE_AFTER": "0"}).start()
    yield s
    s.stop()


async def test_an_unwatched_finished_game_is_archived_and_answers_the_same(
        server, redis_url) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create(3)
    tid = table["id"]
    for seat in range(3):
        await lobby.bot(tid, seat)
    watcher = await Socket(server.ws_url, tid).connect()
    await watcher.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid, table["owner_token"])
    await watcher.wait(ended, timeout=60)
    r = connect_sync(redis_url)
    try:
        # The end is marked in the background.
        await until(lambda: r.hget(st.meta_key(tid), "status") == b"ended", what="ended")
        before = await answers(server.url, tid)
        live = [st.events_key(tid), st.acts_key(tid)]
        size_before = memory(r, live)
        meta_before = memory(r, [st.meta_key(tid)])
        fields_before = r.hgetall(st.meta_key(tid))
        assert r.exists(st.archive_key(tid)) == 0  # watched: still live

        await watcher.close()
        await until(lambda: r.exists(st.archive_key(tid)), timeout=20, what="archived")
        assert r.exists(*live) == 0
        size_after = memory(r, [st.archive_key(tid)])
        assert size_after < size_before
        # The meta is compacted: the scripts' fields stay, the rest is packed, and it
        # expands to exactly the fields it had.
        fields_after = r.hgetall(st.meta_key(tid))
        assert {k.decode() for k in fields_after} == {*PLAIN, PACKED}
        assert expand(fields_after) == expand(fields_before)
        meta_after = memory(r, [st.meta_key(tid)])
        assert meta_after < meta_before
        assert await answers(server.url, tid) == before
        # A process that never had the game rebuilds it from the archive alone.
        fresh = ServerProcess(redis_url).start()
        try:
            assert await answers(fresh.url, tid) == before
        finally:
            fresh.stop()
        seq = int(r.hget(st.meta_key(tid), "seq"))
        whole_before, whole_after = size_before + meta_before, size_after + meta_after
        print(f"\narchive: {seq} events; events+acts {size_before} B -> archive "
              f"{size_after} B ({size_before / size_after:.1f}x); meta {meta_before} B -> "
              f"{meta_after} B; all keys {whole_before} B -> {whole_after} B "
              f"({whole_before / whole_after:.1f}x)")
    finally:
        r.close()
        await lobby.close()


def test_an_archive_that_does_not_end_on_the_meta_head_is_refused() -> None:
    from engine.chain import genesis
    from engine.shuffle import combine_seed, commitment
    from server.table.live import LiveTable
    from server.table.meta import Seat

    meta = TableMeta(id="arch", game="einauge", status="ended", name="", options={},
                     seats=[Seat(name=n, kind="human") for n in ("A", "B")],
                     contributions=["", ""], commitment=commitment("ab" * 32),
                     server_seed="ab" * 32, created_at=1.0, tokens=["", ""])
    meta.head = genesis(meta.id, meta.commitment).hex()
    table = LiveTable(meta, 4)

    events = list(table.game.start(meta.players(), meta.options,
                                   combine_seed(meta.server_seed, meta.contributions)))
    entries, head = table.chain(events, None)
    table.apply(entries, 1)
    for _ in range(5):
        seat = table.game.to_move(table.state)[0]
        action = table.game.legal_actions(table.state, seat)[0]
        more, head = table.chain(list(table.game.decide(table.state, action)), action)
        table.apply(more, table.seq + 1)
        entries += more
    meta.seq, meta.head = len(entries), head
    blob = archive.pack(meta, entries)
    assert [st.pack(e) for e in archive.rebuild(meta, blob)] == [st.pack(e) for e in entries]
    meta.head = "0" * 64
    with pytest.raises(archive.ArchiveError):
        archive.rebuild(meta, blob)
    tampered = [*entries[:-1], {**entries[-1], "h": "f" * 64}]
    meta.head = head
    with pytest.raises(archive.ArchiveError):
        archive.pack(meta, tampered)


def test_a_compacted_meta_expands_to_exactly_its_fields() -> None:
    fields = {"status": "ended", "seq": "12", "head": "ab" * 32, "version": "7",
              "server_seed": "0f" * 32, "tok:0": "", "tok:1": "AB" * 32, "odd": "abc",
              "short": "10", "created_at": "1764578400.25", "name": "Zoë's table 🂡",
              "seats": '[{"name": "A", "kind": "human"}]', "rated": "1"}
    packed = compact(fields)
    assert len(packed) < sum(len(k) + len(v) for k, v in fields.items() if k not in PLAIN)
    raw = {k.encode(): v.encode() for k, v in fields.items() if k in PLAIN}
    raw[PACKED.encode()] = packed
    assert expand(raw) == fields
    # A field stored plainly after the compaction wins over the packed one.
    assert expand({**raw, b"rematch": b"xyz", b"name": b"new"}) == {
        **fields, "rematch": "xyz", "name": "new"}
    assert expand({k.encode(): v.encode() for k, v in fields.items()}) == fields


async def test_archiving_compacts_the_meta_but_keeps_a_field_written_since(redis_url) -> None:
    store = Store.from_url(redis_url)
    try:
        tid = "cm" + str(time.monotonic_ns())
        fields = {"game": "einauge", "status": "ended", "seq": "1", "head": "ab" * 32,
                  "version": "3", "name": "t", "server_seed": "cd" * 32, "tok:0": "ef" * 32}
        await store.redis.hset(st.meta_key(tid), mapping=fields)
        await store.redis.rpush(st.events_key(tid), st.pack({"e": {}, "h": "ab" * 32}))
        loaded = await store.load_meta(tid)
        assert loaded == fields
        # another process renames the table between the load and the archive
        await store.redis.hset(st.meta_key(tid), "name", "renamed")
        assert await store.archive(tid, 1, b"blob", loaded)
        stored = await store.redis.hgetall(st.meta_key(tid))
        assert {k.decode() for k in stored} == {*PLAIN, PACKED, "name"}
        assert await store.load_meta(tid) == {**fields, "name": "renamed"}
        assert (await store.metas([tid]))[0] == {**fields, "name": "renamed"}
        assert not await store.archive(tid, 1, b"blob", loaded)  # once only
    finally:
        await store.close()
