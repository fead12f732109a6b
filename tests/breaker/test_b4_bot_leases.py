"""Breaking the bot leases (server/bot_leases.py) with real processes on one real Redis:
the lease holder stalled (SIGSTOP) past its lease while its bot waits to store a move,
then resumed (SIGCONT) after another process took the table over; and the lease key
deleted under a running holder. Each time the table must keep moving, and every stored
move must be one bot move per turn, stored once, under the seq it was decided at."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections import Counter

import httpx
import redis

from server import store
from tests.conftest import ServerProcess
from tests.server.client import Lobby

ENV = {"EINAUGE_BOT_DELAY": "0.15", "EINAUGE_BOT_LEASE": "1"}


def _bot_moves(base: str) -> float:
    text = httpx.get(base + "/metrics", timeout=5).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("einauge_bot_moves_total "))


def _stored(r: redis.Redis, tid: str) -> tuple[str, int]:
    meta = r.hgetall(store.meta_key(tid))
    return meta[b"status"].decode(), int(meta[b"seq"])


async def _until(pred, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        await asyncio.sleep(0.05)
    return pred()


def _check_stream(r: redis.Redis, tid: str) -> None:
    """One stored action per move, each a bot's ``bot:<seq>`` at the seq of its own
    first event, none twice; the chain of heads unbroken."""
    entries = [store.unpack(b) for b in r.lrange(store.events_key(tid), 0, -1)]
    acts = {k.decode(): int(v) for k, v in r.hgetall(store.acts_key(tid)).items()}
    moves = [i for i, e in enumerate(entries) if "a" in e]
    assert len(acts) == len(moves)
    seqs = [int(k.split(":")[-1]) for k in acts]
    assert not [s for s, n in Counter(seqs).items() if n > 1]
    assert sorted(seqs) == moves


async def _bot_table(lobby: Lobby, game: str, seats: int) -> str:
    table = (await lobby.create(seats) if game == "einauge"
             else await lobby.create_game(game, seats))
    tid = table["id"]
    for seat in range(seats):
        await lobby.bot(tid, seat)
    await lobby.start(tid, table["owner_token"])
    return tid


async def test_a_holder_stalled_past_its_lease_stores_no_stale_move(own_redis) -> None:
    """SIGSTOP the process driving the bots (its bot has usually decided and waits out
    its delay), wait until the other process took the table over and moved it on, then
    SIGCONT: the stalled process wakes with a move decided at an old seq; it must not be
    stored, and the old holder must stop driving (one holder again)."""
    r = redis.Redis.from_url(own_redis.url)
    procs = [ServerProcess(own_redis.url, env=ENV) for _ in range(2)]
    await asyncio.gather(*(asyncio.to_thread(p.start) for p in procs))
    lobby = Lobby(procs[0].url)
    stopped = None
    try:
        tid = await _bot_table(lobby, "keltis", 3)
        assert await _until(lambda: _stored(r, tid)[1] >= 8, 30)
        moves = [_bot_moves(p.url) for p in procs]
        holder = procs[0] if moves[0] > moves[1] else procs[1]
        other = procs[1] if holder is procs[0] else procs[0]
        assert holder.proc is not None
        other_before = _bot_moves(other.url)
        os.kill(holder.proc.pid, signal.SIGSTOP)
        stopped = holder
        at_stop = _stored(r, tid)[1]
        # The other takes over after the lease (1 s) and its next resume scan.
        assert await _until(lambda: _stored(r, tid)[1] >= at_stop + 6, 15), _stored(r, tid)
        assert _bot_moves(other.url) > other_before  # the other drives it now
        os.kill(holder.proc.pid, signal.SIGCONT)
        stopped = None
        before = _bot_moves(holder.url)
        assert await _until(lambda: _stored(r, tid)[0] == "ended", 240), _stored(r, tid)
        _check_stream(r, tid)
        # Once woken, the old holder lost the lease: at most the move it had decided
        # before the stop (and one decided before it noticed the loss) is counted there.
        assert _bot_moves(holder.url) - before <= 2
    finally:
        if stopped is not None and stopped.proc is not None:
            os.kill(stopped.proc.pid, signal.SIGCONT)
        await lobby.close()
        for p in procs:
            p.stop()
        r.close()


async def test_lease_key_deleted_and_holder_killed_mid_game(own_redis) -> None:
    """DEL the lease key under a running holder (a FLUSH of that key, an operator's
    mistake): the table goes on with one move per turn; then SIGKILL the holder: the
    other process (and a third one started later) finishes the game."""
    r = redis.Redis.from_url(own_redis.url)
    procs = [ServerProcess(own_redis.url, env=ENV) for _ in range(2)]
    await asyncio.gather(*(asyncio.to_thread(p.start) for p in procs))
    third = ServerProcess(own_redis.url, env=ENV)
    lobby = Lobby(procs[0].url)
    try:
        tid = await _bot_table(lobby, "loot-island", 3)
        assert await _until(lambda: _stored(r, tid)[1] >= 5, 30)
        for _ in range(5):
            r.delete(store.bot_lease_key(tid))
            await asyncio.sleep(0.4)
        at = _stored(r, tid)[1]
        assert await _until(lambda: _stored(r, tid)[1] > at + 3, 15) or \
            _stored(r, tid)[0] == "ended"
        moves = [_bot_moves(p.url) for p in procs]
        holder = procs[0] if moves[0] > moves[1] else procs[1]
        holder.kill()
        await asyncio.to_thread(third.start)
        assert await _until(lambda: _stored(r, tid)[0] == "ended", 240), _stored(r, tid)
        _check_stream(r, tid)
    finally:
        await lobby.close()
        for p in (*procs, third):
            p.stop()
        r.close()
