"""B2 finding on passkeys (server/accounts/passkeys.py, account_api.py): ``POST
/api/account/passkey/begin`` needs no account and has no limit; every call stores a
ceremony in Redis for five minutes, so one client fills Redis at the speed of its
requests."""

from __future__ import annotations

from tests.conftest import ServerProcess
from tests.server.client import Member

CALLS = 300


async def test_passkey_login_ceremonies_are_limited_per_address(own_redis):
    # A server of its own at the service's default limit (60 an hour): the session's
    # servers raise it for the other tests, and the counter lives in Redis, so spending it
    # on the shared Redis would refuse every later passkey test from this address.
    server = ServerProcess(own_redis.url, env={"CARDTABLE_PASSKEY_LOGINS_PER_HOUR": "60"}).start()
    m = Member(server.url)
    statuses = []
    tickets = set()
    for _ in range(CALLS):  # bounded
        r = await m.http.post("/api/account/passkey/begin", json={})
        statuses.append(r.status_code)
        if r.status_code == 200:
            tickets.add(r.json()["ticket"])
    await m.close()
    server.stop()
    assert 429 in statuses, f"{len(tickets)} ceremonies stored for one address, no 429"
