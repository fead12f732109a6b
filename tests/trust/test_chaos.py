"""Chaos (issue 7, short CI version; bench/soak.py is the long one): three server processes
on one Redis, bot games watched by spectators; at chosen points of the games (events the
spectators saw) one process is killed with SIGKILL and restarted while the spectators
reconnect to whichever answers. Every game
finishes, every record verifies with ``cardtable verify``, and no spectator saw a gap, a
duplicate, or an event or chain head other than the record's."""

from __future__ import annotations

import asyncio
import random

import httpx

from tests.trust.chaos import (
    Spectator,
    check_against_record,
    create_bot_table,
    kill_at,
    poke,
    start_table,
    verify_record,
)
from tests.trust.wire import crashes
from tests.waiting import until

TABLES = 12
SPECTATORS = 2
KILLS_AT = [24, 72]  # events seen by all spectators together: early in every game
# Bots think long enough for several kills per game: a restarted process resumes its
# running bot games at once (docs/reliability.md), so games no longer wait for a visit.
ENV = {"CARDTABLE_BOT_DELAY": "0.25", "CARDTABLE_LOG_LEVEL": "warning"}


async def test_games_survive_killed_processes(own_redis, spawn, tmp_path) -> None:
    rng = random.Random(7)
    servers = [spawn(own_redis.url, f"server{i}", ENV) for i in range(len(KILLS_AT) + 1)]
    for s in servers:
        await asyncio.to_thread(s.start)
    http = httpx.AsyncClient(base_url=servers[0].url, timeout=10)
    tables = [await create_bot_table(http, rng.randrange(2, 5)) for _ in range(TABLES)]
    spectators = [Spectator(tid, servers, random.Random(f"{tid}/{i}"))
                  for tid, _ in tables for i in range(SPECTATORS)]
    watchers = [asyncio.create_task(s.run(timeout=150)) for s in spectators]
    # Every spectator follows its table before the start: they see every event.
    await until(lambda: all(s.welcomed for s in spectators), timeout=30,
                what="every spectator welcomed")
    for tid, owner in tables:
        await start_table(http, tid, owner)
    kills: list[float] = []
    chaos = asyncio.create_task(kill_at(servers, KILLS_AT, lambda: sum(
        len(s.deltas) for s in spectators), rng, kills))
    pending = set(watchers)
    while pending:
        _, pending = await asyncio.wait(pending, timeout=3)
        for s in spectators:  # a table whose bots' process died resumes on any visit
            if not s.done:
                await poke(servers, s.table_id, http)
    await chaos
    await http.aclose()
    for w in watchers:
        w.result()

    problems = []
    verified = 0
    async with httpx.AsyncClient(base_url=servers[0].url, timeout=10) as http:
        for tid, _ in tables:
            r = await http.get(f"/api/tables/{tid}/record")
            assert r.status_code == 200, r.text
            record = r.json()
            done = verify_record(record, tmp_path / f"{tid}.json")
            assert done.returncode == 0, done.stdout + done.stderr
            verified += 1
            for s in spectators:
                if s.table_id == tid:
                    problems += s.problems + check_against_record(s, record)
    for s in servers:
        s.stop()
    assert problems == []
    assert verified == TABLES and len(kills) == len(KILLS_AT)
    for s in servers:
        assert not crashes(s.log_text()), crashes(s.log_text())[:5]
    reconnects = sum(s.reconnects for s in spectators)
    resyncs = sum(s.resyncs for s in spectators)
    print(f"\nchaos: {TABLES} games, {len(spectators)} spectators, {len(kills)} SIGKILLs, "
          f"{reconnects} reconnects ({resyncs} answered with a full view), "
          f"{verified} records verified")
