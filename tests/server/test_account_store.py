"""server/store/accounts.py on a real Redis: the failed-login window."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from server.store.accounts import AccountStore, failures_key
from tests.server.client import unique


async def test_the_failure_window_opens_with_the_first_failure_and_is_not_extended(
        redis_url) -> None:
    """Every failure of a burst counts, wherever the clock's buckets would cut it (CI once
    let the right password through after five wrong ones: the five straddled a 900 s
    bucket edge), and later failures do not push the window's end back."""
    client = aioredis.Redis.from_url(redis_url)
    store = AccountStore(client)
    who = f"n:{unique('w')}:127.0.0.1"
    try:
        assert await store.failures(who, 3) == 0
        assert await store.fail(who, 3) == 1
        # The window is real time in Redis (its key's expiry): these sleeps are the clock.
        await asyncio.sleep(1.2)  # later failures, 1.2 s into the 3 s window
        for n in range(2, 6):
            assert await store.fail(who, 3) == n
        assert await store.failures(who, 3) == 5
        ttl = await client.pttl(failures_key(who))
        assert 0 < ttl <= 1900, ttl  # 3 s from the first failure, 1.2 s ago
        await asyncio.sleep(ttl / 1000 + 0.2)  # past the window's end (Redis expires it)
        assert await store.failures(who, 3) == 0  # the window ended: a fresh start
    finally:
        await client.aclose()
