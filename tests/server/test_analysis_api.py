"""``GET /api/tables/{id}/analysis`` (server/http/analysis.py) through a real server and
Redis: refused while the game runs, started (202) and then served once it has ended,
computed once and then served from Redis, and limited per address and per account."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
import redis

from engine.analysis import MARK_NAMES
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Member, Socket, ended, unique
from tests.waiting import until

LIMIT = 3


def hour() -> int:
    """The window of the server's request counters (``Store.hit``: the clock hour)."""
    return int(time.time()) // 3600


def analyses(metrics_text: str, result: str) -> float:
    found = re.search(rf'^cardtable_analyses_total{{result="{result}"}} (\S+)$', metrics_text,
                      re.M)
    return float(found.group(1)) if found else 0.0


async def finished(srv: ServerProcess, lobby: Lobby) -> dict:
    """A two-seat table of random bots, played to its end; its summary."""
    table = await lobby.create(2)
    for seat in range(2):
        await lobby.bot(table["id"], seat)
    watcher = await Socket(srv.ws_url, table["id"]).connect()
    await watcher.wait(lambda f: f["t"] == "welcome")
    await lobby.start(table["id"], table["owner_token"])
    await watcher.wait(ended, timeout=60)
    await watcher.close()
    return table


async def test_a_stopping_server_cancels_its_analysis_quietly(own_redis):
    """An analysis being computed when the server stops ends without an error logged (the
    server watch fails the test otherwise) and without keeping a partial answer."""
    srv = ServerProcess(own_redis.url, env={"CARDTABLE_BOT_SEARCH_TIMEOUT": "300"}).start()
    lobby = Lobby(srv.url)
    try:
        table = await finished(srv, lobby)
        started = await lobby.get(f"/api/tables/{table['id']}/analysis")
        assert started.status_code == 202  # the default budget: it runs for a while
    finally:
        await lobby.close()
        srv.stop()
    assert redis.Redis.from_url(own_redis.url).exists(f"t:{{{table['id']}}}:analysis") == 0


async def test_analysis_refused_running_served_ended_cached_and_limited(own_redis):
    # A generous hang timeout of the pool: on a machine at load 40 a part of the analysis
    # (a decision or two) may outlast the default 30 s, and the pool is then replaced.
    srv = ServerProcess(own_redis.url, env={"CARDTABLE_ANALYSES_PER_HOUR": str(LIMIT),
                                            "CARDTABLE_ANALYSIS_BUDGET_MS": "4",
                                            "CARDTABLE_BOT_SEARCH_TIMEOUT": "300"}).start()
    lobby = Lobby(srv.url)
    try:
        # A running game (a person's seat that never acts): refused, nothing counted.
        running = await lobby.create(2)
        await lobby.join(running["id"], "Ann", 0)
        await lobby.bot(running["id"], 1)
        await lobby.start(running["id"], running["owner_token"])
        refused = await lobby.get(f"/api/tables/{running['id']}/analysis")
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "not_ended"
        missing = await lobby.get("/api/tables/nope/analysis")
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "no_table"

        table = await finished(srv, lobby)
        record = (await lobby.get(f"/api/tables/{table['id']}/record")).json()

        url = f"/api/tables/{table['id']}/analysis"
        counted: list[tuple[int, int]] = []  # the clock hour before and after each counted

        async def get_counted():
            before = hour()
            r = await lobby.get(url)
            counted.append((before, hour()))
            return r

        started = await get_counted()
        assert started.status_code == 202, started.text
        assert started.json() == {"status": "computing"} and started.headers["retry-after"]

        async def answered():
            before = hour()
            r = await lobby.get(url)
            assert r.status_code in (200, 202), r.text
            if r.status_code == 202:
                return None
            counted.append((before, hour()))
            return r

        # Polls while it is computed (202) are not counted; the answer is (2 of LIMIT).
        first = await until(answered, 240, "the analysis to be computed", interval=0.5)
        body = first.json()
        assert body["game"] == record["game"]
        assert [d["index"] for d in body["decisions"]] == list(range(len(record["actions"])))
        assert [d["action"] for d in body["decisions"]] == record["actions"]
        seqs = [d["seq"] for d in body["decisions"]]  # each action's first event
        assert seqs == sorted(set(seqs)) and seqs[0] >= 1
        assert all(d["loss"] >= 0 and (d["loss"] > 0 or d["best"] == d["action"])
                   and d["mark"] in (None, *MARK_NAMES) for d in body["decisions"])
        assert len(body["luck"]) == len(body["summary"]) == 2
        for s in body["summary"]:  # each seat's unforced decisions, their losses summed
            mine = [d for d in body["decisions"] if d["seat"] == s["seat"] and not d["forced"]]
            assert s["decisions"] == len(mine)
            assert s["loss"] == pytest.approx(sum(d["loss"] for d in mine), abs=1e-3)
            assert s["luck"] == body["luck"][s["seat"]]
        assert set(body["marks"]) == set(MARK_NAMES)
        key = f"t:{{{table['id']}}}:analysis"
        assert redis.Redis.from_url(own_redis.url).exists(key) == 1

        second = await get_counted()  # 3 of LIMIT
        assert second.status_code == 200 and second.content == first.content
        metrics = (await lobby.get("/metrics")).text
        assert (analyses(metrics, "computed"), analyses(metrics, "cached")) == (1, 2)

        # Requests until the limit refuses one: exactly LIMIT were counted in its hour.
        # (Store.hit counts per clock hour of this machine: when an hour begins during
        # the test, the counting goes on in the new one; a request sent across the turn
        # of the hour may have been counted in either, and is allowed for as such.)
        for _ in range(3 * LIMIT):
            before = hour()
            r = await lobby.get(url)
            now = hour()
            if r.status_code == 200:
                counted.append((before, now))
                continue
            assert r.status_code == 429, r.text
            assert r.json()["error"]["code"] == "rate_limited"
            if before == now:
                sure = sum(1 for b, a in counted if b == a == now)
                maybe = sum(1 for b, a in counted if b != a and now in (b, a))
                assert sure <= LIMIT <= sure + maybe, counted  # == sure, unless an hour turned
                break
        else:
            raise AssertionError(f"never refused: {counted}")
        assert (await lobby.get(f"/api/tables/{table['id']}")).status_code == 200
    finally:
        await lobby.close()
        srv.stop()


async def test_analysis_requests_are_limited_per_account_across_addresses(own_redis):
    # An account asking from a new address each time: no address reaches the limit, the
    # account does (its requests counted together), while a guest at another address is
    # still served.
    srv = ServerProcess(own_redis.url, env={"CARDTABLE_ANALYSES_PER_HOUR": "2",
                                            "CARDTABLE_ANALYSIS_BUDGET_MS": "4",
                                            "CARDTABLE_BOT_SEARCH_TIMEOUT": "300"}).start()
    lobby = Lobby(srv.url)
    clients: list[Lobby] = []
    try:
        table = await finished(srv, lobby)
        url = f"/api/tables/{table['id']}/analysis"
        computer = Lobby(srv.url, "127.0.0.9")  # starts it (counted once), then polls
        clients.append(computer)
        assert (await computer.get(url)).status_code == 202

        async def answered():
            r = await computer.get(url)
            assert r.status_code in (200, 202), r.text
            return r if r.status_code == 200 else None

        await until(answered, 240, "the analysis to be computed", interval=0.5)
        if time.time() % 3600 > 3500:  # the counters are per clock hour: not across a turn
            await asyncio.sleep(3601 - time.time() % 3600)
        member = Member(srv.url, "127.0.0.2")
        clients.append(member)
        await member.sign_up(unique("an"))
        answers = []
        for n in range(3, 6):  # the account's 1st, 2nd, 3rd: each from its own address
            other = Member(srv.url, f"127.0.0.{n}")
            clients.append(other)
            other.http.cookies = member.http.cookies
            answers.append(await other.get(url))
        assert [r.status_code for r in answers] == [200, 200, 429], [r.text for r in answers]
        refused = answers[-1].json()["error"]
        assert refused["code"] == "rate_limited" and "per account" in refused["message"]
        guest = Lobby(srv.url, "127.0.0.6")
        clients.append(guest)
        assert (await guest.get(url)).status_code == 200
    finally:
        for c in clients:
            await c.close()
        await lobby.close()
        srv.stop()
