"""A tournament board's table reaches the lobby index even when the index write fails in
the pass that makes and starts it (server/tournaments/boards.py ``Boards.ensure``): the
board stays planned, and a later pass writes the row."""

from __future__ import annotations

import redis

from protocol.lobby import Member
from server.store.lobby_index import index_keys
from tests.conftest import ServerProcess
from tests.server.client import unique
from tests.server.tournament_play import swiss_body
from tests.waiting import until


async def test_a_board_whose_lobby_row_failed_is_listed_by_a_later_pass(own_redis) -> None:
    srv = ServerProcess(own_redis.url).start()
    r = redis.Redis.from_url(own_redis.url)
    members = []
    try:
        for _ in range(2):
            m = Member(srv.url)
            await m.sign_up(unique("ix"))
            members.append(m)
        creator = members[0]
        t = await creator.create_tournament(**swiss_body(rounds=1))
        tid = t["id"]
        for m in members:
            assert (await m.tournament_call(tid, "join")).status_code == 200

        # The index's version hash made a string: every lobby row write fails (WRONGTYPE)
        # until it is deleted again.
        versions = index_keys()[4]
        assert r.exists(versions) == 0  # no table was listed yet on this Redis
        r.set(versions, "broken")
        assert (await creator.tournament_call(tid, "start")).json()["status"] == "running"

        async def made_and_started() -> str | None:
            boards = (await creator.tournament(tid))["boards"]
            if not boards:
                return None
            table = boards[0]["table"]
            meta = r.hgetall(f"t:{{{table}}}:meta")
            return table if meta.get(b"status") == b"running" else None

        table = await until(made_and_started, 30, "the board's table made and started")

        # Either the pass failed on the row (the board stays planned: the fix) or it went
        # on and marked the board playing; in both cases the row must come once Redis
        # takes it again.
        async def failed_or_playing() -> bool:
            boards = (await creator.tournament(tid))["boards"]
            return (f"lobby row of {table}" in srv.read_log()
                    or boards[0]["status"] == "playing")

        await until(failed_or_playing, 30, "the pass with the broken index to end")
        assert table not in r.hkeys(index_keys()[3])  # not listed yet
        r.delete(versions)

        async def listed() -> bool:
            rows = (await creator.get("/api/tables?status=running")).json()
            return any(row["id"] == table for row in rows["tables"])

        await until(listed, 30, "the board's table in the lobby's running list")
        boards = (await creator.tournament(tid))["boards"]
        assert boards[0]["status"] == "playing"
    finally:
        for m in members:
            await m.close()
        srv.stop()
