"""Crashes mid-game: ``kill -9`` of the server process, and a Redis restart (append-only
file). Players reconnect (or retry) and finish; no acknowledged action is lost."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import redis

from engine.einauge import EINAUGE
from engine.einauge.view import public_view
from server.play import roles
from server.store import streams as store
from server.store.lobby_index import index_keys
from tests.conftest import RedisProcess, ServerProcess, stored_entries
from tests.server.client import Lobby, Player, Socket
from tests.waiting import until

replay_record = EINAUGE.replay_record


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """This module's own Redis (to restart) and server process (to kill)."""
    r = RedisProcess(tmp_path_factory.mktemp("faults") / "redis")
    r.start()
    s = ServerProcess(r.url).start()
    yield r, s
    s.stop()
    r.stop()


async def start_players(server: ServerProcess, seats: int = 3,
                        **declared: Any) -> tuple[str, list[Player]]:
    """``declared``: what the test provokes (``Player``'s ``allow_errors``, ``allow_drops``)."""
    lobby = Lobby(server.url)
    table = await lobby.create(seats)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{i}"))["token"] for i in range(seats)]
    await lobby.start(tid)  # the owner (host) starts
    await lobby.close()
    players = [Player(lambda: server.ws_url, tid, t, seed=i, delay=0.01, **declared)
               for i, t in enumerate(tokens)]
    return tid, players


async def wait_seq(players: list[Player], seq: int) -> None:
    await until(lambda: max(p.seq or 0 for p in players) >= seq, timeout=60, interval=0.005,
                what=f"a player at seq {seq}")


def check_acks_stored(redis_url: str, tid: str, players: list[Player]) -> list[dict[str, Any]]:
    """Every acknowledged action is stored, at the acknowledged seq, exactly as sent."""
    r = redis.Redis.from_url(redis_url)
    entries = stored_entries(r, tid)
    acts = {k.decode(): int(v) for k, v in r.hgetall(store.acts_key(tid)).items()}
    r.close()
    ends: dict[int, dict[str, Any]] = {}  # seq after an action → that action
    current = None
    for i, entry in enumerate(entries):
        if "a" in entry:
            current = entry["a"]
        if current is not None and (i + 1 == len(entries) or "a" in entries[i + 1]):
            ends[i + 1] = current
    total = 0
    for seat, p in enumerate(players):
        for ack in p.acks:
            total += 1
            assert acts[roles.act_key(seat, ack["id"], by_bot=False)] == ack["seq"]
            assert ends[ack["seq"]] == p.sent[ack["id"]]
    assert total > 10
    return entries


async def finish_and_check(server: ServerProcess, redis_url: str, tid: str,
                           players: list[Player], tasks: list[asyncio.Task[None]]) -> None:
    await asyncio.gather(*tasks)
    entries = check_acks_stored(redis_url, tid, players)
    for p in players:
        assert p.done and [d["seq"] for d in p.deltas][-1] == len(entries)
    lobby = Lobby(server.url)
    record = (await lobby.get(f"/api/tables/{tid}/record")).json()
    view = (await lobby.get(f"/api/tables/{tid}/view")).json()
    await lobby.close()
    state, _ = replay_record(json.loads(json.dumps(record)))
    assert public_view(state)["result"] == view["result"]
    assert record["head"] == entries[-1]["h"]


async def test_one_redis_round_trip_per_accepted_action(stack):
    own_redis, server = stack
    r = redis.Redis.from_url(own_redis.url)
    tid, players = await start_players(server)
    r.config_resetstat()
    await asyncio.gather(*(p.run(timeout=90) for p in players))
    # The end is marked in the background: the meta's status, then the lobby row (the
    # last script of the end). Each poll is two HGETs, taken off the stats below.
    polls = 0
    async with asyncio.timeout(30):
        while True:
            polls += 1
            status = r.hget(store.meta_key(tid), "status")
            row = r.hget(index_keys()[3], tid)
            if status == b"ended" and row is not None and json.loads(row)["status"] == "ended":
                break
            await asyncio.sleep(0.02)  # polling (counted: its HGETs are taken off below)
    stats = r.info("commandstats")
    r.close()
    stats["cmdstat_hget"]["calls"] -= 2 * polls
    acks = sum(len(p.acks) for p in players)
    ok = stats["cmdstat_evalsha"]["calls"] - stats["cmdstat_evalsha"].get("failed_calls", 0)
    # every action's append, and at the end the status change and its lobby row
    assert ok == acks + 2
    # Commands run as often as actions: only the script and what runs inside it.
    per_action = {k.removeprefix("cmdstat_") for k, v in stats.items() if v["calls"] >= acks}
    inside = {"exists", "hget", "rpush", "hset", "persist", "spublish"}
    # A public table always has a clock: each action also writes its deadline to the
    # index (ZADD, docs/benchmarks.md "Clocked tables").
    inside.add("zadd")
    assert "evalsha" in per_action and per_action <= {"evalsha"} | inside, stats


async def test_kill_9_of_the_server_mid_game_loses_no_acknowledged_action(stack):
    own_redis, server = stack
    # The killed process drops every socket; the players reconnect to the new one.
    tid, players = await start_players(server, allow_drops=True)
    tasks = [asyncio.create_task(p.run(timeout=90)) for p in players]
    await wait_seq(players, 25)
    server.kill()
    await asyncio.to_thread(server.start)
    await finish_and_check(server, own_redis.url, tid, players, tasks)
    assert all(p.reconnects >= 1 for p in players)


async def test_redis_restart_mid_game_loses_no_acknowledged_action(stack):
    own_redis, server = stack
    # An action sent while Redis restarts is answered unavailable (and resent).
    tid, players = await start_players(server, allow_errors={"unavailable"})
    tasks = [asyncio.create_task(p.run(timeout=90)) for p in players]
    await wait_seq(players, 25)
    await asyncio.to_thread(own_redis.restart)
    await finish_and_check(server, own_redis.url, tid, players, tasks)


async def test_shutdown_closes_sockets_with_going_away(stack):
    _, server = stack
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    await lobby.close()
    sockets = [await Socket(server.ws_url, table["id"], binary=b).connect() for b in (True, False)]
    for s in sockets:
        await s.wait(lambda f: f["t"] == "welcome")
    # uvicorn re-raises SIGTERM after its graceful shutdown: -15 is a clean stop.
    assert await asyncio.to_thread(server.stop) in (0, -15)
    for s in sockets:
        assert await s.wait_closed() == 1001
