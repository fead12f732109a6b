"""Bot leases on a real Redis (server/bots/leases.py): one holder at a time, renewal by
the holder only, release by the holder only, and a takeover once a holder stops renewing."""

from __future__ import annotations

import secrets

import pytest

from server.bots.leases import BotLeases
from server.store.streams import Store, bot_lease_key
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
