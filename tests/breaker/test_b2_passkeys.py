"""B2 finding on passkeys (server/accounts/passkeys.py, account_api.py): ``POST
/api/account/passkey/begin`` needs no account and has no limit; every call stores a
ceremony in Redis for five minutes, so one client fills Redis at the speed of its
requests."""

from __future__ import annotations

from tests.conftest import ServerProcess
from tests.server.client import Member

LIMIT = 60
"""The service's default ``CARDTABLE_PASSKEY_LOGINS_PER_HOUR``."""
CALLS = LIMIT + 3


async def test_passkey_login_ceremonies_are_limited_per_address(own_redis):
    # A server of its own at the service's default limit: the session's servers raise it
    # for the other tests, and the counter lives in Redis, so spending it on the shared
    # Redis would refuse every later passkey test from this address.
    server = ServerProcess(own_redis.url,
                           env={"CARDTABLE_PASSKEY_LOGINS_PER_HOUR": str(LIMIT)}).start()
    m = Member(server.url)
    answers = []
    tickets = set()
    try:
        for _ in range(CALLS):  # bounded
            r = await m.http.post("/api/account/passkey/begin", json={})
            answers.append((r.status_code, r.json().get("error", {}).get("code")))
            if r.status_code == 200:
                tickets.add(r.json()["ticket"])
    finally:
        await m.close()
        server.stop()
    # Exactly the limit's ceremonies begin (each its own ticket), every later one is
    # refused (docs/protocol.md: 429 rate_limited).
    assert answers == [(200, None)] * LIMIT + [(429, "rate_limited")] * (CALLS - LIMIT)
    assert len(tickets) == LIMIT
