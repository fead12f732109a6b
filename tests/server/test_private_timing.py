"""Finding 8: a private table's id answers 404 ``no_table`` like an unknown id, but
measurably later: the lobby (``table_or_404``) and the websocket (``tables.get`` before
``roles.admit``) loaded and replayed the whole private table before they checked its
secret, where an unknown id costs one ``HGETALL``. docs/protocol.md: a private table is
treated "exactly as for an id that does not exist"; GUIDE: nothing hidden leaks "through
a timing".

What is asserted is the work, not the time (a timed assertion on a shared machine fails
by chance; bench/ measures time): every Redis command the server sends while it refuses
a request without the table's secret, read with ``MONITOR`` on a Redis of the test's own,
is the same, command for command and key for key (the id aside), for a private table's id
and for an id that does not exist, over HTTP and over the websocket, and it reads nothing
of the table but its meta (no ``LRANGE`` of its events, no archive: no load, no replay).
The CPU work of the refusal in the process is not counted here."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from engine import GAMES
from server.store.deadlines import DEADLINES
from server.store.seeks import pending_key, pool_key
from server.store.streams import BOT_TABLES, meta_key
from server.tournaments.store import INDEX as TOURNAMENTS
from tests.conftest import RedisProcess, ServerProcess, finished_bot_game
from tests.server.client import Socket
from tests.waiting import until

ROUNDS = 3
# Commands the server runs on its timers, whatever the requests (the deadline scan, the
# bot tables' resume scan, the tournaments' scan twice a second, each game's seek pool and
# pending pairings once a second): set apart by name and key. On a busy machine a window
# lasts long enough for these to land in it.
TIMERS = {("zrangebyscore", DEADLINES), ("srandmember", BOT_TABLES),
          ("zrange", f"{TOURNAMENTS}:active"),
          *(("zrange", pool_key(game)) for game in GAMES),
          *(("zrangebyscore", pending_key(game)) for game in GAMES)}


@pytest.fixture
def quiet(tmp_path: Path) -> Iterator[tuple[RedisProcess, ServerProcess]]:
    """A Redis and one server of this test alone: MONITOR then sees only this server's
    commands (no bot of another test's table), whatever ``--redis`` says. Its presence
    refresh (every second by default) is set past the test's end: the watcher's refreshes
    would land in the refusals' windows."""
    r = RedisProcess(tmp_path / "redis")
    r.start()
    s = ServerProcess(r.url, env={"CARDTABLE_PRESENCE_INTERVAL": "600",
                                  "CARDTABLE_PRESENCE_TTL": "1200",
                                  # the finished game's archive (a minute after its end,
                                  # unwatched) would land in a slow run's windows
                                  "CARDTABLE_ARCHIVE_AFTER": "3600"}).start()
    yield r, s
    s.stop()
    r.stop()


class Commands:
    """Every command Redis runs, as ``MONITOR`` reports them, cut at markers the test
    sends (``ECHO``): Redis runs commands one at a time, so the commands between two
    markers are exactly the ones it ran between them."""

    def __init__(self, url: str) -> None:
        self.redis = aioredis.Redis.from_url(url)
        self.monitor: Any = None
        self.n = 0

    async def __aenter__(self) -> Commands:
        self.monitor = await self.redis.monitor().__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.monitor.__aexit__(*exc)
        await self.redis.aclose()

    @contextlib.asynccontextmanager
    async def during(self) -> AsyncIterator[list[list[str]]]:
        """The commands (each a list of lowercase name and its arguments) run while the
        block ran: filled in when the block exits."""
        self.n += 1
        start, end = f"mark-{self.n}-start", f"mark-{self.n}-end"
        out: list[list[str]] = []
        await self.redis.echo(start)
        yield out
        await self.redis.echo(end)
        seen = False
        while True:
            cmd = await asyncio.wait_for(self.monitor.next_command(), 10)
            words = cmd["command"].split(" ")
            if words[0].lower() == "echo" and words[1:] == [start]:
                seen = True
            elif words[0].lower() == "echo" and words[1:] == [end]:
                assert seen
                return
            elif seen and not any(words[0].lower() == name and key in cmd["command"]
                                  for name, key in TIMERS):
                out.append([words[0].lower(), *words[1:]])


def generic(commands: list[list[str]], table_id: str) -> list[list[str]]:
    """``commands`` with ``table_id`` written ``<id>``."""
    return [[w.replace(table_id, "<id>") for w in c] for c in commands]


async def test_a_private_tables_refusal_does_the_work_of_an_unknown_ids(quiet) -> None:
    own_redis, server = quiet
    game = await finished_bot_game(server.url, private=True)
    private = game["id"]
    # The summary says "ended" before the end is settled in the background: the meta
    # marked ended, the lobby row, and last the table taken off the bot tables. Those
    # writes would land in the first windows; their end is the barrier.
    plain = aioredis.Redis.from_url(own_redis.url)
    try:
        async def settled() -> bool:
            return (await plain.hget(meta_key(private), "status") == b"ended"
                    and not await plain.sismember(BOT_TABLES, private))

        await until(settled, timeout=30, what="the end of the game settled")
    finally:
        await plain.aclose()
    unknown = "x" * len(private)
    seen: dict[str, dict[str, list[list[list[str]]]]] = {
        f"{path}{how}": {private: [], unknown: []}
        for path in ("http", "ws") for how in ("", " watched")}
    async with Commands(own_redis.url) as commands, \
            httpx.AsyncClient(base_url=server.url) as http:

        async def refusals(how: str) -> None:
            for _ in range(ROUNDS):
                for tid in (private, unknown):  # interleaved: a cache would show as a change
                    async with commands.during() as ran:
                        r = await http.get(f"/api/tables/{tid}/view")
                    assert (r.status_code, r.json()["error"]["code"]) == (404, "no_table")
                    seen[f"http{how}"][tid].append(generic(ran, tid))
                    async with commands.during() as ran:
                        sock = await Socket(server.ws_url, tid).connect()
                        code = await sock.wait_closed()
                    assert (code, sock.frames) == (4004, [])
                    seen[f"ws{how}"][tid].append(generic(ran, tid))

        await refusals("")
        # Watched by a socket with its secret, the table is cached on this process: a
        # refusal still costs the meta read an unknown id costs (it cost nothing here).
        watcher = await Socket(server.ws_url, private).connect(key=game["invite_key"])
        assert watcher.frames and watcher.frames[0]["t"] == "welcome", watcher.frames
        for _ in range(100):  # until its presence is written (in the background)
            async with commands.during() as ran:
                # Those writes announce their end by nothing: the event is a 0.1 s
                # window in which MONITOR sees no command.
                await asyncio.sleep(0.1)  # polling: one window of MONITOR
            if not ran:
                break
        assert not ran, ran
        await refusals(" watched")
        await watcher.close()
        # The control: with its secret the same request reads the table itself, and
        # MONITOR sees it.
        async with commands.during() as ran:
            r = await http.get(f"/api/tables/{private}/view",
                               headers={"X-Table-Key": game["invite_key"]})
        assert r.status_code == 200, r.text
        loaded = generic(ran, private)
    meta = meta_key("<id>")
    assert any(c[1:2] != [meta] for c in loaded), loaded
    for path, runs in seen.items():
        refusal = runs[unknown][0]
        # Every refusal the same commands on the same keys, the private table's as the
        # unknown id's.
        assert runs[private] == runs[unknown] == [refusal] * ROUNDS, (path, runs)
        # Its meta read, nothing else of it: no LRANGE of its events, no archive.
        assert refusal and all(c == ["hgetall", meta] for c in refusal), (path, refusal)
