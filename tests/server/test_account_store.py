"""server/store/accounts.py on a real Redis: the failed-login window."""

from __future__ import annotations

import asyncio
import time

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
    # 10 s: a loop held up for seconds on a busy machine still sends every failure of
    # the burst inside the window (3 s once left 1.8 s of slack).
    window = 10
    try:
        assert await store.failures(who, window) == 0
        assert await store.fail(who, window) == 1
        opened = time.monotonic()  # the window opened before this (its EXPIRE was sent)
        # The window is real time in Redis (its key's expiry): these sleeps are the clock.
        await asyncio.sleep(1.2)  # later failures, at least 1.2 s into the window
        for n in range(2, 6):
            assert await store.fail(who, window) == n
        assert await store.failures(who, window) == 5
        since = time.monotonic() - opened  # at least this long ago it opened
        ttl = await client.pttl(failures_key(who))
        # Counted from the first failure, not pushed back by the later ones.
        assert 0 < ttl <= (window - since) * 1000 + 1, (ttl, since)
        await asyncio.sleep(ttl / 1000 + 0.2)  # past the window's end (Redis expires it)
        assert await store.failures(who, window) == 0  # the window ended: a fresh start
    finally:
        await client.aclose()
