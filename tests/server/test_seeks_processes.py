"""Quick pairing across processes (server/pairing/pool.py): two server processes pair
from one pool without ever seating a seek twice or losing one, a cancel racing the
pairing wins or loses cleanly, a pairing whose process was killed between its claim
and its table is finished by another process, and two accounts that blocked one another
(the block made on one process, the seeks on both) are never paired. Runs on a Redis Cluster too
(``--redis=cluster``, Makefile ``CLUSTER_SUITES``)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest

from protocol import Lobby, Member
from server.store.client import connect_sync
from server.store.seeks import pending_key
from tests.conftest import ServerProcess
from tests.server.client import ClockFile, unique
from tests.waiting import until

# Redis calls get 10 s, not 2: sixteen seekers at once on a loaded two-core machine once
# saw a call pass 2 s (503 unavailable); these tests are about who sits where, not latency.
ENV = {"CARDTABLE_SEEK_SCAN": "0.1", "CARDTABLE_SEEKS_PER_HOUR": "100000",
       "CARDTABLE_REDIS_TIMEOUT": "10"}


@pytest.fixture(scope="module")
def pair_of_servers(redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    a = ServerProcess(redis_url, env=ENV).start()
    b = ServerProcess(redis_url, env=ENV).start()
    yield a, b
    a.stop()
    b.stop()


async def final(lobbies: list[Lobby], seek: dict, i: int) -> dict:
    """The seek once it left ``waiting``, read through the process ``i`` did not use."""
    lobby = lobbies[(i + 1) % 2]

    async def look() -> dict | None:
        r = await lobby.seek_call("GET", seek["id"], seek["seek_token"])
        assert r.status_code == 200, r.text
        got = r.json()
        return got if got["status"] != "waiting" else None

    got = await until(look, timeout=30, what=f"seek {seek['id']} decided")
    assert isinstance(got, dict)
    return got


async def check_tables(lobby: Lobby, paired: list[dict], seats: int) -> None:
    """Every table holds exactly its paired seeks, one per seat, and runs."""
    by_table: dict[str, list[int]] = {}
    for p in paired:
        by_table.setdefault(p["table"], []).append(p["seat"])
    for table_id, taken in by_table.items():
        assert sorted(taken) == list(range(seats)), (table_id, taken)
        table = (await lobby.get(f"/api/tables/{table_id}")).json()
        assert table["status"] == "running"
        assert [s["kind"] for s in table["seats"]] == ["human"] * seats
    tokens = Counter(p["token"] for p in paired)
    assert max(tokens.values(), default=1) == 1


@pytest.mark.parametrize(("game", "seats", "seekers"), [("einauge", 2, 16), ("keltis", 3, 12)])
async def test_many_seekers_on_two_processes_each_seated_once(pair_of_servers, game, seats,
                                                              seekers):
    lobbies = [Lobby(s.url) for s in pair_of_servers]
    tc = {"kind": "async", "days": 2}  # a clock no other test of this module seeks
    made = await asyncio.gather(*(lobbies[i % 2].seek(game, seats, tc, name=f"P{i}")
                                  for i in range(seekers)))
    assert len({m["id"] for m in made}) == seekers
    got = [await final(lobbies, m, i) for i, m in enumerate(made)]
    assert [g["status"] for g in got] == ["paired"] * seekers
    assert len({g["table"] for g in got}) == seekers // seats
    await check_tables(lobbies[0], got, seats)
    for lobby in lobbies:
        await lobby.close()


async def test_a_cancel_racing_the_pairing_either_cancels_or_finds_it_paired(
        pair_of_servers):
    lobbies = [Lobby(s.url) for s in pair_of_servers]
    tc = {"kind": "async", "days": 3}
    n = 20

    async def seek_and_cancel(i: int) -> tuple[dict, int, str]:
        seek = await lobbies[i % 2].seek("einauge", 2, tc, name=f"C{i}")
        r = await lobbies[(i + 1) % 2].seek_call("DELETE", seek["id"], seek["seek_token"])
        body = r.json()
        return seek, r.status_code, body.get("status") or body["error"]["code"]

    results = await asyncio.gather(*(seek_and_cancel(i) for i in range(n)))
    paired = []
    for i, (seek, status, said) in enumerate(results):
        assert (status, said) in ((200, "cancelled"), (409, "seek_paired")), (status, said)
        got = await final(lobbies, seek, i)
        if status == 200:
            assert got["status"] == "cancelled" and "table" not in got
        else:
            assert got["status"] == "paired"
            paired.append(got)
    assert len(paired) % 2 == 0
    await check_tables(lobbies[0], paired, 2)
    for lobby in lobbies:
        await lobby.close()


async def test_accounts_that_blocked_one_another_are_never_paired_across_processes(
        pair_of_servers):
    a, b = pair_of_servers
    lobbies = [Lobby(a.url), Lobby(b.url)]
    names = [unique(p) for p in ("pbanna", "pbben", "pbcara", "pbdan")]
    anna, ben, cara, dan = (Member(s.url) for s in (a, b, b, a))
    for m, n in zip((anna, ben, cara, dan), names, strict=True):
        await m.sign_up(n)
    r = await anna.http.put(f"/api/me/blocks/{names[1]}")  # on process a
    assert r.status_code == 200, r.text
    tc = {"kind": "async", "days": 1}  # a game and clock no other seeking test uses
    seek_a = await anna.seek("loot-island", 2, tc)
    seek_b = await ben.seek("loot-island", 2, tc)  # through process b

    async def status(lobby: Lobby, seek: dict) -> dict:
        r = await lobby.seek_call("GET", seek["id"], seek["seek_token"])
        assert r.status_code == 200, r.text
        return r.json()

    # A barrier: two guests of another clock are paired by a pass that read the pool after
    # Anna's and Ben's seeks were in it, whichever process ran it.
    other = {"kind": "live", "preset": "slow"}
    guests = [await lobbies[i].seek("loot-island", 2, other, name=f"G{i}") for i in range(2)]
    for i, g in enumerate(guests):
        assert (await final(lobbies, g, i))["status"] == "paired"
    assert (await status(lobbies[0], seek_a))["status"] == "waiting"
    assert (await status(lobbies[1], seek_b))["status"] == "waiting"
    # Cara comes: Anna, the oldest, sits with her; Ben still waits.
    seek_c = await cara.seek("loot-island", 2, tc)
    got_a = await final(lobbies, seek_a, 0)
    got_c = await final(lobbies, seek_c, 1)
    assert got_a["status"] == got_c["status"] == "paired"
    assert got_a["table"] == got_c["table"]
    assert (await status(lobbies[1], seek_b))["status"] == "waiting"
    # Dan comes: Ben sits with him.
    seek_d = await dan.seek("loot-island", 2, tc)
    got_b = await final(lobbies, seek_b, 1)
    got_d = await final(lobbies, seek_d, 0)
    assert got_b["table"] == got_d["table"] != got_a["table"]
    table = (await lobbies[0].get(f"/api/tables/{got_a['table']}")).json()
    assert sorted(s["name"] for s in table["seats"]) == sorted([names[0], names[2]])
    for lobby in (*lobbies, anna, ben, cara, dan):
        await lobby.close()


async def test_a_pairing_whose_process_was_killed_is_finished_by_another(own_redis, tmp_path):
    clock = ClockFile(tmp_path / "clock")
    # This process stops between its claim and the table's creation; then it is killed.
    stuck = ServerProcess(own_redis.url, env={**ENV, **clock.env,
                                              "CARDTABLE_SEEK_FINISH_PAUSE": "3600"}).start()
    lobby = Lobby(stuck.url)
    made = [await lobby.seek("loot-island", 2, name=n) for n in ("Ana", "Bea")]
    store = connect_sync(own_redis.url)
    claimed = until(lambda: store.zrange(pending_key("loot-island"), 0, -1),
                    what="the pairing claimed")
    table_id = (await claimed)[0].decode()
    stuck.kill()
    await lobby.close()
    other = ServerProcess(own_redis.url, env={**ENV, **clock.env}).start()
    lobby = Lobby(other.url)
    try:
        # Claimed: not waiting in the pool, not cancellable, shown as waiting until its
        # table runs (within CARDTABLE_SEEK_GRACE, nobody finishes another's pairing).
        r = await lobby.seek_call("DELETE", made[0]["id"], made[0]["seek_token"])
        assert r.status_code == 409 and r.json()["error"]["code"] == "seek_paired"
        assert (await lobby.get("/api/seeks")).json()["pools"]["loot-island"] == 0
        clock.set(11.0)  # past CARDTABLE_SEEK_GRACE (10 s)
        got = [await final([lobby, lobby], m, i) for i, m in enumerate(made)]
        assert [g["status"] for g in got] == ["paired", "paired"]
        assert {g["table"] for g in got} == {table_id}
        await check_tables(lobby, got, 2)
        assert store.zcard(pending_key("loot-island")) == 0
    finally:
        await lobby.close()
        other.stop()
        store.close()
