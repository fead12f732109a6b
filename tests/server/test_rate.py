"""The hourly per-address (and per-account) request counters (server/http/rate.py) through a
real server and Redis: every route that counts a kind of request answers a counter that
cannot be read alike (503 ``unavailable``, ``cardtable_redis_errors_total`` up by one, the
warning ``rate counter failed`` logged) and changes nothing; the 429 answers themselves
are tested beside each route (test_lobby, test_seeks, test_analysis_api, test_branch_api,
test_passwords, test_accounts)."""

from __future__ import annotations

import re
import time

import redis

from tests.conftest import ServerProcess
from tests.server.client import Lobby
from tests.server.test_analysis_api import finished


def hour() -> int:
    """The window of the server's request counters (``Store.hit``: the clock hour)."""
    return int(time.time()) // 3600


def redis_errors(metrics_text: str) -> float:
    found = re.search(r"^cardtable_redis_errors_total (\S+)$", metrics_text, re.M)
    return float(found.group(1)) if found else 0.0


def break_counter(r: redis.Redis, name: str) -> None:
    """Make the counter ``name`` of 127.0.0.1 unreadable (a hash where ``INCR`` needs a
    string: WRONGTYPE) in this hour and the next, so that the request fails on it even
    when an hour begins between here and the server's count."""
    now = hour()
    for h in (now, now + 1):
        r.delete(f"rl:{name}:127.0.0.1:{h}")  # a count so far
        r.hset(f"rl:{name}:127.0.0.1:{h}", "broken", "1")


async def test_an_unreadable_counter_refuses_alike_on_every_route(own_redis):
    srv = ServerProcess(own_redis.url, env={"CARDTABLE_ANALYSIS_BUDGET_MS": "4",
                                            "CARDTABLE_BOT_SEARCH_TIMEOUT": "300"}).start()
    lobby = Lobby(srv.url)
    r = redis.Redis.from_url(own_redis.url)
    try:
        ended = await finished(srv, lobby)
        requests = {
            "create": lambda: lobby.http.post("/api/tables", json={"seats": 2}),
            "seek": lambda: lobby.http.post("/api/seeks", json={"game": "einauge",
                                                                "seats": 2}),
            "analysis": lambda: lobby.get(f"/api/tables/{ended['id']}/analysis"),
            "branch": lambda: lobby.branch(ended["id"], {"index": 0, "seat": 0}),
            "passkey": lambda: lobby.http.post("/api/account/passkey/begin", json={}),
        }
        tables_before = (await lobby.get("/api/tables?status=open")).json()
        for name, request in requests.items():
            before = redis_errors((await lobby.get("/metrics")).text)
            warned = srv.read_log().count("rate counter failed")
            break_counter(r, name)
            answer = await request()
            assert answer.status_code == 503, (name, answer.text)
            assert answer.json() == {"error": {"code": "unavailable", "message":
                                               "the store is unavailable; try again"}}, name
            after = redis_errors((await lobby.get("/metrics")).text)
            assert after == before + 1, (name, before, after)
            # The log line is written before the answer is sent.
            assert srv.read_log().count("rate counter failed") == warned + 1, name
        # Nothing was made: no new table, no seek, no analysis started.
        assert (await lobby.get("/api/tables?status=open")).json() == tables_before
        assert (await lobby.get("/api/seeks")).json()["pools"].get("einauge", 0) == 0
        assert r.exists(f"t:{{{ended['id']}}}:analysis") == 0
    finally:
        await lobby.close()
        srv.stop()
