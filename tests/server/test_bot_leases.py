"""Bot leases on a real Redis (server/bots/leases.py): one holder at a time, renewal by
the holder only, release by the holder only, and a takeover once a holder stops renewing."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import time
from collections import Counter

import httpx
import pytest
import redis

from server.bots.leases import BotLeases
from server.store import streams
from server.store.streams import Store, bot_lease_key
from tests.conftest import ServerProcess, stored_entries
from tests.server.client import Lobby
from tests.waiting import until


@pytest.fixture
async def store(redis_url):
    s = Store.from_url(redis_url)
    yield s
    await s.close()


async def test_one_process_holds_a_tables_lease_until_it_lapses(store) -> None:
    """Time passing is stood in for by shortening the key's TTL (PEXPIRE), so no wall-clock
    race decides the outcome: a renewal restores the full term; a lapsed one is taken."""
    tid = secrets.token_urlsafe(9)
    key = bot_lease_key(tid)
    a, b = BotLeases(store, 10_000), BotLeases(store, 10_000)
    assert await a.claim(tid) and tid in a.held
    assert not await b.claim(tid) and tid not in b.held
    await store.redis.pexpire(key, 1000)  # most of its term gone
    assert await a.claim(tid)  # its own: renewed
    assert 5000 < await store.redis.pttl(key) <= 10_000
    assert await store.redis.get(key) == a.owner.encode()
    # Renewals keep it past its first term: each one restores the whole term.
    for _ in range(3):
        await store.redis.pexpire(key, 1000)
        assert await a.renew() == [] and tid in a.held
        assert 5000 < await store.redis.pttl(key) <= 10_000
    assert not await b.claim(tid)
    # A holder that stops renewing (a dead process) loses it to the next claim.
    await store.redis.pexpire(key, 1)
    async def expired() -> bool:
        return not await store.redis.exists(key)

    await until(expired, interval=0.01, what="the lease expired")
    assert await b.claim(tid)
    assert await a.renew() == [tid] and tid not in a.held
    assert await store.redis.get(key) == b.owner.encode()


async def test_only_the_holder_releases_a_lease(store) -> None:
    tid = secrets.token_urlsafe(9)
    a, b = BotLeases(store, 10_000), BotLeases(store, 10_000)
    assert await a.claim(tid)
    await b.release(tid)  # not b's: nothing happens
    assert not await b.claim(tid)
    await a.release(tid)
    assert tid not in a.held and await store.redis.get(bot_lease_key(tid)) is None
    assert await b.claim(tid)
    assert 0 < await store.redis.pttl(bot_lease_key(tid)) <= 10_000


# The attack these tests guard against (found in a security review):
# Breaking the bot leases (server/bots/leases.py) with real processes on one real Redis:
# the lease holder stalled (SIGSTOP) past its lease while its bot waits to store a move,
# then resumed (SIGCONT) after another process took the table over; and the lease key
# deleted under a running holder. Each time the table must keep moving, and every stored
# move must be one bot move per turn, stored once, under the seq it was decided at.


ENV = {"CARDTABLE_BOT_DELAY": "0.15", "CARDTABLE_BOT_LEASE": "1"}


def _bot_moves(base: str) -> float:
    text = httpx.get(base + "/metrics", timeout=5).text
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith("cardtable_bot_moves_total "))


def _stored(r: redis.Redis, tid: str) -> tuple[str, int]:
    meta = r.hgetall(streams.meta_key(tid))
    return meta[b"status"].decode(), int(meta[b"seq"])


async def _until(pred, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        await asyncio.sleep(0.05)  # polling: the pause between two asks
    return pred()


def _check_stream(r: redis.Redis, tid: str, people: int = 0) -> None:
    """One stored action per move, each bot move's id ``bot:<seq>`` at the seq of its
    own first event, none twice (``people``: seats played by people, whose ids are
    theirs)."""
    entries = stored_entries(r, tid)
    acts = {k.decode(): int(v) for k, v in r.hgetall(streams.acts_key(tid)).items()}
    moves = [i for i, e in enumerate(entries) if "a" in e]
    assert len(acts) == len(moves)
    bots = {k: v for k, v in acts.items() if ":bot:" in k or k.startswith("bot:")}
    seqs = [int(k.split(":")[-1]) for k in bots]
    assert not [s for s, n in Counter(seqs).items() if n > 1]
    if not people:
        assert sorted(seqs) == moves
    else:
        assert len(bots) < len(acts) and set(seqs) <= set(moves)


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
        assert await _until(lambda: _stored(r, tid)[1] >= at_stop + 6, 60), _stored(r, tid)
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
            r.delete(streams.bot_lease_key(tid))
            # Under the 1 s lease: time for the holder (or the other process) to take the
            # key again and move between two deletes.
            await asyncio.sleep(0.4)  # a pause the behaviour needs
        at = _stored(r, tid)[1]
        assert await _until(lambda: _stored(r, tid)[1] > at + 3, 60) or \
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


async def test_a_person_on_the_other_process_and_a_redis_restart_mid_game(own_redis) -> None:
    """One person (on the process not driving the bots) plays with two bots; Redis
    restarts mid-game (its append-only file keeps the stream and the lease with what was
    left of its time): the person's moves and the bots' go on to the end, each stored
    once, every person's action acknowledged."""
    from tests.server.client import Player

    if not hasattr(own_redis, "restart"):
        import pytest

        pytest.skip("a cluster has no single restart")
    r = redis.Redis.from_url(own_redis.url)
    procs = [ServerProcess(own_redis.url, env=ENV) for _ in range(2)]
    await asyncio.gather(*(asyncio.to_thread(p.start) for p in procs))
    lobby = Lobby(procs[0].url)
    try:
        table = await lobby.create_game("keltis", 3)
        tid = table["id"]
        token = (await lobby.join(tid, "Anna"))["token"]
        for seat in (1, 2):
            await lobby.bot(tid, seat)
        await lobby.start(tid, table["owner_token"])
        assert await _until(lambda: _stored(r, tid)[1] >= 3, 30)
        moves = [_bot_moves(p.url) for p in procs]
        elsewhere = procs[1] if moves[0] >= moves[1] else procs[0]
        player = Player(lambda: elsewhere.ws_url, tid, token, seed=4, delay=0.05)
        playing = asyncio.create_task(player.run(timeout=240))
        assert await _until(lambda: _stored(r, tid)[1] >= 20, 60), _stored(r, tid)
        await asyncio.to_thread(own_redis.restart)
        r.close()
        r = redis.Redis.from_url(own_redis.url)
        await playing  # the player saw the game's last event; the meta follows it
        assert await _until(lambda: _stored(r, tid)[0] == "ended", 60), _stored(r, tid)
        _check_stream(r, tid, people=1)
        # Nothing acknowledged is lost across the restart.
        acts = {k.decode() for k in r.hkeys(streams.acts_key(tid))}
        acked = {a["id"] for a in player.acks}
        assert acked and {f"p:0:{i}" for i in acked} <= acts
    finally:
        await lobby.close()
        for p in procs:
            p.stop()
        r.close()
