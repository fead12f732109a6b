"""Bot leases on a real Redis (server/bot_leases.py): one holder at a time, renewal by
the holder only, release by the holder only, and a takeover once a holder stops renewing."""

from __future__ import annotations

import asyncio
import secrets

import pytest

from server.bot_leases import BotLeases
from server.store import Store, bot_lease_key


@pytest.fixture
async def store(redis_url):
    s = Store.from_url(redis_url)
    yield s
    await s.close()


async def test_one_process_holds_a_tables_lease_until_it_lapses(store) -> None:
    tid = secrets.token_urlsafe(9)
    a, b = BotLeases(store, 300), BotLeases(store, 300)
    assert await a.claim(tid) and tid in a.held
    assert not await b.claim(tid) and tid not in b.held
    assert await a.claim(tid)  # its own: renewed
    assert await store.redis.get(bot_lease_key(tid)) == a.owner.encode()
    # Renewals keep it past its first term.
    for _ in range(4):
        await asyncio.sleep(0.12)
        assert await a.renew() == []
    assert not await b.claim(tid)
    # A holder that stops renewing (a dead process) loses it to the next claim.
    await asyncio.sleep(0.4)
    assert await b.claim(tid)
    assert await a.renew() == [tid] and tid not in a.held


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
