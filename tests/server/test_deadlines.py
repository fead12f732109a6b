"""Move deadlines enforced by whichever process is alive (server/play/deadlines.py), on real
server processes sharing one Redis, with the injectable clock (``CARDTABLE_CLOCK_FILE``)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest
import redis

from engine.verify import verify_record
from server.play.deadlines import BOT_WAKE_MS
from server.store import streams as store
from server.store.deadlines import DEADLINES
from tests.conftest import RedisProcess, ServerProcess, stored_entries
from tests.server.client import ClockFile, Lobby, Socket, ended, has_event
from tests.waiting import until

FAST = {"kind": "live", "preset": "fast"}


def stored(redis_url: str, tid: str) -> list[dict]:
    r = redis.Redis.from_url(redis_url)
    try:
        return stored_entries(r, tid)
    finally:
        r.close()


def types(entries: list[dict]) -> list[str]:
    return [e["e"]["type"] for e in entries]


async def clocked_table(lobby: Lobby, tc: dict, names=("Anna", "Ben")) -> tuple[str, list[str]]:
    table = await lobby.create(len(names), time_control=tc)
    tid = table["id"]
    assert table["time_control"]["kind"] == tc["kind"]
    tokens = [(await lobby.join(tid, n))["token"] for n in names]
    await lobby.start(tid)
    return tid, tokens


async def clock_of(sock: Socket, after: int = 0) -> dict:
    """The newest clock a socket was told of (welcome or clock message) after frame
    ``after``."""
    def told() -> list[dict]:
        return [f for f in sock.frames[after:] if f["t"] in ("welcome", "clock")
                and f.get("clock")]

    return (await until(told, timeout=20, what="a clock"))[-1]["clock"]


def scans(server: ServerProcess) -> float:
    """The deadline scans ``server`` has done (``cardtable_deadline_scans_total``)."""
    text = httpx.get(server.url + "/metrics", timeout=10).text
    return float(re.search(r"^cardtable_deadline_scans_total (\S+)$", text, re.M)[1])


async def scanned(*servers: ServerProcess) -> None:
    """Each of ``servers`` has done a whole deadline scan that began after this call (the
    barrier before checking that a scan did nothing): two more than it had done."""
    for server in servers:
        n = await asyncio.to_thread(scans, server)
        await until(lambda s=server, n=n: asyncio.to_thread(lambda: scans(s) >= n + 2),
                    what="two more deadline scans")


def grown(url: str, tid: str, seq: int):
    """A predicate for ``until``: the table has stored entries past ``seq``."""
    return lambda: len(stored(url, tid)) > seq


@pytest.fixture
def clock(tmp_path: Path) -> ClockFile:
    return ClockFile(tmp_path / "clock")


async def test_a_deadline_fires_from_the_surviving_process_once(redis_url, clock):
    """The process holding every socket of the table dies mid-move; the other process,
    which holds none, enforces the deadline: one ``seat_timed_out`` then the bot's move,
    at the servers' time when B found it due (their clock is stopped there)."""
    a = ServerProcess(redis_url, env=clock.env).start()
    b = ServerProcess(redis_url, env=clock.env).start()
    socks: list[Socket] = []
    try:
        lobby = Lobby(a.url)
        tid, tokens = await clocked_table(lobby, FAST)
        socks = [await Socket(a.ws_url, tid).connect(token=t) for t in tokens]
        welcome = await socks[0].wait(lambda f: f["t"] == "welcome")
        first = await socks[0].wait(lambda f: f["t"] == "clock")  # right after the welcome
        assert socks[0].frames.index(first) > socks[0].frames.index(welcome)
        c = first["clock"]
        mover = c["seat"]
        assert c["deadline"] == c["turn_at"] + 15_000 + 60_000  # fast: 15 s + 60 s reserve
        seq = welcome["seq"]
        clock.stop_at(c["deadline"] - 2000)  # stopped two seconds before: nothing happens
        await scanned(a, b)
        assert len(stored(redis_url, tid)) == seq
        a.kill()  # every socket of the table was on A
        # Stopped just past the deadline: the time B enforces it at is known exactly,
        # however long B takes to scan, load and replay the table.
        at = c["deadline"] + 20
        clock.stop_at(at)
        await until(grown(redis_url, tid, seq), what="the timeout stored")
        entries = stored(redis_url, tid)
        assert types(entries)[seq] == "seat_timed_out"
        assert entries[seq]["e"] == {"type": "seat_timed_out", "seat": mover, "count": 1}
        move = entries[seq + 1]
        assert move["a"]["seat"] == mover, "the bot's move for the timed-out seat follows"
        enforced_at = entries[-1]["c"]["turn_at"]
        assert enforced_at == at, enforced_at - c["deadline"]
        await scanned(b)  # B's later scans must not store a second one
        entries = stored(redis_url, tid)
        assert types(entries).count("seat_timed_out") == 1
        after = entries[-1]["c"]
        assert after["reserve"][mover] == 0 and after["timeouts"][mover] == 1
        r = redis.Redis.from_url(redis_url)
        acts = {k.decode() for k in r.hgetall(store.acts_key(tid))}
        r.close()
        assert acts == {f"b:{mover}:timeout:{seq}"}  # roles.act_key: a bot's key
        # B reports the new deadline of the next seat to a socket that comes now.
        watcher = await Socket(b.ws_url, tid).connect()
        socks.append(watcher)
        w = await watcher.wait(lambda f: f["t"] == "welcome")
        told = await watcher.wait(lambda f: f["t"] == "clock")
        nxt = w["view"]["current_seat"]
        assert told["clock"]["seat"] == nxt
        # The timed-out seat has no reserve left; the other still has all of it.
        assert told["clock"]["reserve"] == [0 if s == mover else 60_000 for s in (0, 1)]
        assert told["clock"]["deadline"] == enforced_at + 15_000 + (
            0 if nxt == mover else 60_000)
        assert told["now"] == at  # the servers' clock is still stopped there
    finally:
        for s in socks:
            await s.close()
        a.kill()
        b.stop()


async def test_timeouts_in_a_row_hand_the_seat_to_a_bot_and_the_log_keeps_them(redis_url, clock):
    """Nobody moves: each deadline times out whoever is to move. The third timeout of a
    seat in a row gives it to a bot (``timeouts_to_bot`` = 3), in the same append; the
    bot then plays it; the record carries every change and verifies."""
    server = ServerProcess(redis_url, env=clock.env).start()
    socks: list[Socket] = []
    try:
        lobby = Lobby(server.url)
        tid, tokens = await clocked_table(lobby, FAST)
        watcher = await Socket(server.ws_url, tid).connect()
        ben = await Socket(server.ws_url, tid).connect(token=tokens[1])
        socks += [watcher, ben]
        await watcher.wait(lambda f: f["t"] == "welcome")
        seen = 0
        while True:
            c = await clock_of(watcher, seen)
            seen = len(watcher.frames)
            entries = stored(redis_url, tid)
            if any(e["e"]["type"] == "seat_controller_changed" for e in entries):
                break
            assert c["deadline"] is not None
            clock.reach(c["deadline"])
            n = len(entries)
            await watcher.wait(lambda f, n=n: has_event(
                f, lambda x: x["seq"] > n and x["event"]["type"] == "seat_timed_out"))
        entries = stored(redis_url, tid)
        outs = [e["e"] for e in entries if e["e"]["type"] == "seat_timed_out"]
        change = next(e["e"] for e in entries if e["e"]["type"] == "seat_controller_changed")
        seat = change["seat"]
        assert [o["count"] for o in outs if o["seat"] == seat] == [1, 2, 3]
        assert change == {"type": "seat_controller_changed", "seat": seat, "by": "bot",
                          "reason": "timeout", "bot": "greedy"}
        # Every socket heard it: the delta (for the log) and the new seats.
        await watcher.wait(lambda f: has_event(
            f, lambda e: e["event"]["type"] == "seat_controller_changed"))
        await watcher.wait(lambda f: f["t"] == "table"
                           and f["table"]["seats"][seat]["kind"] == "bot")
        # The bot plays on without any clock; the other seat still times out.
        summary = (await lobby.get(f"/api/tables/{tid}")).json()
        assert summary["seats"][seat]["name"] == ("Anna", "Ben")[seat]
        # The seat's player takes it back (Ben holds a socket, Anna does not).
        r = await lobby.seat_call(tid, "return", tokens[seat])
        assert r.status_code == 200, r.text
        assert r.json()["seats"][seat]["kind"] == "human"
        # Back at the seat, the player starts a fresh count: the next timeout is the
        # first in a row, not the fourth that would hand the seat straight back.
        back = stored(redis_url, tid)[-1]
        assert back["e"] == {"type": "seat_controller_changed", "seat": seat, "by": "player",
                             "reason": "returned"}
        assert back["c"]["timeouts"][seat] == 0
        r = await lobby.seat_call(tid, "return", tokens[seat])
        assert (r.status_code, r.json()["error"]["code"]) == (409, "playing")
        # Finish the game with both seats resigned: bots play to the end.
        for t in tokens:
            r = await lobby.seat_call(tid, "resign", t)
            assert r.status_code == 200, r.text
        r = await lobby.seat_call(tid, "return", tokens[0])
        assert (r.status_code, r.json()["error"]["code"]) == (409, "resigned")
        await watcher.wait(ended, timeout=120)
        async def the_record() -> dict | None:
            r = await lobby.get(f"/api/tables/{tid}/record")
            return r.json() if r.status_code == 200 else None

        record = await until(the_record, what="the record")
        report = verify_record(record)
        assert report.ok, [(c.name, c.detail) for c in report.failed()]
        reasons = [(c["seat"], c.get("reason")) for c in record["seat_changes"]
                   if c["type"] == "seat_controller_changed"]
        assert reasons == [(seat, "timeout"), (seat, "returned"), (0, "resigned"),
                           (1, "resigned")]
        assert record["resigned"] == [0, 1]
        # A record with a seat change dropped no longer chains to its head.
        forged = {**record, "seat_changes": record["seat_changes"][1:]}
        assert not verify_record(forged).ok
        final = (await lobby.get(f"/api/tables/{tid}")).json()
        assert final["seats"][0].get("resigned") and final["seats"][1].get("resigned")
        assert final.get("winners", []) == []  # a resigned seat cannot win
    finally:
        for s in socks:
            await s.close()
        server.stop()


async def test_an_async_deadline_survives_a_full_restart(tmp_path: Path, clock):
    """An async table (1 day per move): Redis and the only server process stop; after
    both start again and a day has passed on the servers' clock, the move times out."""
    own = RedisProcess(tmp_path / "redis")
    url = own.start()
    server = ServerProcess(url, env=clock.env).start()
    try:
        lobby = Lobby(server.url)
        tid, _ = await clocked_table(lobby, {"kind": "async", "days": 1})
        watcher = await Socket(server.ws_url, tid).connect()
        c = (await watcher.wait(lambda f: f["t"] == "clock"))["clock"]
        await watcher.close()
        assert c["deadline"] == c["turn_at"] + 86_400_000
        seq = len(stored(url, tid))
        server.stop()
        own.restart()
        r = redis.Redis.from_url(url)
        assert r.zscore(DEADLINES, tid) is not None  # the index survived too
        # Even an index entry lost in a crash (its last second) comes back: a starting
        # process re-indexes the running clocked tables, with nobody opening this one.
        r.zrem(DEADLINES, tid)
        server = ServerProcess(url, env=clock.env, port=server.port).start()
        await until(lambda: r.zscore(DEADLINES, tid) is not None, what="re-indexed")
        assert r.zscore(DEADLINES, tid) == c["deadline"]
        r.close()
        clock.reach(c["deadline"], past=-60_000)
        await scanned(server)
        assert len(stored(url, tid)) == seq, "a minute early: nothing happens"
        at = c["deadline"] + 20
        clock.stop_at(at)  # the time of the timeout is then known exactly
        await until(grown(url, tid, seq), what="the timeout stored")
        entries = stored(url, tid)
        assert types(entries)[seq] == "seat_timed_out"
        assert entries[-1]["c"]["turn_at"] == at
        await lobby.close()
    finally:
        server.stop()
        own.stop()


async def test_a_bot_whose_process_died_is_woken_on_another(redis_url, clock):
    """A clocked table's bot thinks on A (slowly) when A dies; the deadline index wakes B
    (``BOT_WAKE_MS`` after the last settle, by the servers' clock), which loads the table
    and plays the bot's move."""
    a = ServerProcess(redis_url, env={**clock.env, "CARDTABLE_BOT_DELAY": "60"}).start()
    b = ServerProcess(redis_url, env=clock.env).start()
    try:
        lobby = Lobby(a.url)
        table = await lobby.create(2, time_control=FAST)
        tid = table["id"]
        token = (await lobby.join(tid, "Anna", seat=0))["token"]
        await lobby.bot(tid, 1)
        await lobby.start(tid)
        anna = await Socket(a.ws_url, tid).connect(token=token)
        n = 0
        while (view := (await lobby.get(f"/api/tables/{tid}/view")).json())["current_seat"] == 0:
            n += 1
            prompt = await anna.wait(lambda f, s=view["seq"]: f["t"] == "prompt" and f["seq"] == s)
            await anna.send({"t": "action", "id": f"a{n}", "action": prompt["legal_actions"][0],
                             "seq": prompt["seq"]})
            ack = await anna.wait(lambda f, n=n: f.get("id") == f"a{n}")
            assert ack["t"] == "ack", ack
        # A settles the index: a bot's turn wakes someone BOT_WAKE_MS after the settle
        # (before it, the score is the bound written before the append: 15 s after it).
        r = redis.Redis.from_url(redis_url)
        await until(lambda: r.zscore(DEADLINES, tid) <= clock.now_ms() + BOT_WAKE_MS,
                    what="the bot's wake in the index")
        r.close()
        seq = len(stored(redis_url, tid))
        a.kill()
        await scanned(b)
        assert len(stored(redis_url, tid)) == seq, "nobody plays the bot before the wake"
        clock.set(clock.offset + 11)
        await until(grown(redis_url, tid, seq), what="the bot's move, played by B")
        entries = stored(redis_url, tid)
        assert len(entries) > seq and entries[seq]["a"]["seat"] == 1
        await lobby.close()
    finally:
        a.kill()
        b.stop()
