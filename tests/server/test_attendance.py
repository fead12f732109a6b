"""Presence across server processes (server/play/attendance.py) and claims of abandoned seats
(server/http/takeover.py), on real processes sharing one Redis with the injectable clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.verify import verify_record
from server.store.client import Client, connect
from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Lobby, Socket, events_of, has_event
from tests.waiting import until


def states(frame: dict) -> list[str]:
    return [s["state"] for s in frame["seats"]]


def presence_where(sock: Socket, pred) -> object:
    return sock.wait(lambda f: f["t"] == "presence" and pred(f))


async def gone_at(store: Client, key: str, left: int) -> bool:
    """Seat 1's claims dropped from the presence hash ``key``, last seen at ``left``."""
    fields = {k.decode(): v.decode() for k, v in (await store.hgetall(key)).items()}
    return fields.get("seen:1") == str(left) and not any(k.startswith("on:1:") for k in fields)


@pytest.fixture
def clock(tmp_path: Path) -> ClockFile:
    return ClockFile(tmp_path / "clock")


async def test_presence_spans_processes_and_a_dead_process_lapses(redis_url, clock):
    """Anna's socket is on A, Ben's on B, spectators on both. Each sees the other online
    and the spectators summed; Ben closes his page: Anna sees him away at once (after the
    reload grace); Ben comes back on A; then A is SIGKILLed: Ben's B-side view shows
    Anna away once A's claim lapses, counted from when A last vouched."""
    env = {**clock.env, "CARDTABLE_PRESENCE_GRACE": "1"}
    a = ServerProcess(redis_url, env=env).start()
    b = ServerProcess(redis_url, env=env).start()
    socks: list[Socket] = []
    try:
        lobby = Lobby(a.url)
        table = await lobby.create(3, time_control={"kind": "live", "preset": "slow"})
        tid = table["id"]
        tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
        await lobby.bot(tid, 2)
        await lobby.start(tid)
        anna = await Socket(a.ws_url, tid).connect(token=tokens[0])
        ben = await Socket(b.ws_url, tid).connect(token=tokens[1])
        specs = [await Socket(base, tid).connect() for base in (a.ws_url, a.ws_url, b.ws_url)]
        socks += [anna, ben, *specs]
        for s in (anna, ben):
            msg = await presence_where(s, lambda f: states(f) == ["online", "online", "bot"]
                                       and f["spectators"] == 3)
            assert msg["claim_after"] == 60_000
        await ben.close()
        away = await presence_where(anna, lambda f: states(f)[1] == "away")
        assert away["seats"][1]["since"] <= away["now"]
        assert away["seats"][0] == {"seat": 0, "state": "online", "since": None}
        ben = await Socket(a.ws_url, tid).connect(token=tokens[1])  # back, on A now
        socks.append(ben)
        # A newcomer is told the presence even when nothing changed for the others.
        back = await ben.wait(lambda f: f["t"] == "presence")
        assert back["spectators"] == 3
        await presence_where(specs[2], lambda f: states(f)[:2] == ["online", "online"])
        # Ben reopens on B too, then A dies with Anna's only socket.
        ben_b = await Socket(b.ws_url, tid).connect(token=tokens[1])
        socks.append(ben_b)
        await ben_b.wait(lambda f: f["t"] == "welcome")
        a.kill()
        msg = await presence_where(ben_b, lambda f: states(f)[0] == "away"
                                   and f["spectators"] == 1)
        assert states(msg)[1] == "online"  # Ben still has his B socket
        # Long enough away (slow: 60 s), Anna's seat is gone: Ben may claim it.
        r = await Lobby(b.url).seat_call(tid, "seats/0/claim", tokens[1])
        assert (r.status_code, r.json()["error"]["code"]) == (409, "not_away")
        clock.set(61)
        msg = await presence_where(ben_b, lambda f: states(f)[0] == "gone")
        r = await Lobby(b.url).seat_call(tid, "seats/0/claim", tokens[1])
        assert r.status_code == 200, r.text
        assert r.json()["seats"][0]["kind"] == "bot"
        frame = await ben_b.wait(lambda f: has_event(
            f, lambda e: e["event"]["type"] == "seat_controller_changed"))
        assert frame["events"][0]["event"] == {
            "type": "seat_controller_changed", "seat": 0, "by": "bot",
            "reason": "abandoned", "bot": "greedy"}
        # A second claim of the same seat changes nothing.
        r = await Lobby(b.url).seat_call(tid, "seats/0/claim", tokens[1])
        assert (r.status_code, r.json()["error"]["code"]) == (409, "not_a_player")
    finally:
        for s in socks:
            await s.close()
        a.kill()
        b.stop()


async def test_away_and_gone_are_told_at_their_moment_without_a_tick(redis_url, clock):
    """No tick comes (the interval is an hour): Ben's away is told by the timer set, from
    the hash read when he left, for the end of his reload grace, with no read of Redis,
    and his gone by the next one, set when away was told, at ``claim_after`` (20 s: the
    timer sleeps that long in real time, which the test waits). The servers' clock is
    stopped, then moved: each message comes when the clock shows exactly his last sight
    plus the grace, then plus ``claim_after``, not a moment before."""
    env = {**clock.env, "CARDTABLE_PRESENCE_INTERVAL": "3600",
           "CARDTABLE_PRESENCE_TTL": "10800", "CARDTABLE_PRESENCE_GRACE": "1"}
    s = ServerProcess(redis_url, env=env).start()
    socks: list[Socket] = []
    try:
        lobby = Lobby(s.url)
        table = await lobby.create(2, time_control={"kind": "live", "preset": "fast"})
        tid = table["id"]
        tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
        await lobby.start(tid)
        anna = await Socket(s.ws_url, tid).connect(token=tokens[0])
        ben = await Socket(s.ws_url, tid).connect(token=tokens[1])
        socks += [anna, ben]
        await presence_where(anna, lambda f: states(f) == ["online", "online"])
        left = clock.now_ms()
        clock.stop_at(left)
        await ben.close()
        store = connect(redis_url)  # a Redis Cluster too
        try:  # the server has written Ben's leave (his claim dropped, last seen `left`)
            await until(lambda: gone_at(store, f"t:{{{tid}}}:presence", left),
                        what="Ben's leave written")
        finally:
            await store.aclose()
        clock.stop_at(left + 1000)
        away = await presence_where(anna, lambda f: states(f)[1] != "online")
        assert away["seats"][1] == {"seat": 1, "state": "away", "since": left}
        assert away["now"] == left + 1000
        assert away["seats"][0] == {"seat": 0, "state": "online", "since": None}
        clock.stop_at(left + 20_000)  # fast: claim_after 20 s
        gone = await anna.wait(lambda f: f["t"] == "presence" and states(f)[1] == "gone",
                               timeout=60)
        assert gone["seats"][1] == {"seat": 1, "state": "gone", "since": left}
        assert (gone["now"], gone["claim_after"]) == (left + 20_000, 20_000)
    finally:
        for sock in socks:
            await sock.close()
        clock.set(0)
        s.stop()


async def test_who_may_claim_resign_and_return(server):
    """Tokens are checked; a spectator, a stranger and a seat's own player cannot claim;
    before the start nothing can be claimed; a resignation is final and shows in the
    record, which verifies."""
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    r = await lobby.seat_call(tid, "resign", tokens[0])
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_started")
    await lobby.start(tid)
    for path, tok, status, code in [
        ("seats/1/claim", None, 401, "bad_token"),
        ("seats/1/claim", "nope", 401, "bad_token"),
        ("seats/0/claim", tokens[0], 409, "own_seat"),
        ("seats/1/claim", tokens[0], 409, "not_away"),  # normal: 30 s away needed
        ("seats/7/claim", tokens[0], 404, "no_seat"),
        ("return", tokens[0], 409, "playing"),
        ("resign", table["owner_token"], 401, "bad_token"),
    ]:
        r = await lobby.seat_call(tid, path, tok)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), (path, r.text)
    events_before = (await lobby.get(f"/api/tables/{tid}/events")).json()["seq"]
    r = await lobby.seat_call(tid, "resign", tokens[1])
    assert r.status_code == 200 and r.json()["seats"][1]["resigned"] is True
    r = await lobby.seat_call(tid, "resign", tokens[1])
    assert (r.status_code, r.json()["error"]["code"]) == (409, "resigned")
    r = await lobby.seat_call(tid, "return", tokens[1])
    assert (r.status_code, r.json()["error"]["code"]) == (409, "resigned")
    # The resigned player cannot claim either; Anna resigns too and bots finish.
    r = await lobby.seat_call(tid, "seats/0/claim", tokens[1])
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_playing")
    events = (await lobby.get(f"/api/tables/{tid}/events")).json()["events"]
    assert events[events_before] == {"type": "seat_controller_changed", "seat": 1, "by": "bot",
                                     "reason": "resigned", "bot": "greedy"}
    r = await lobby.seat_call(tid, "resign", tokens[0])
    assert r.status_code == 200
    async def the_record() -> dict | None:
        r = await lobby.get(f"/api/tables/{tid}/record")
        return r.json() if r.status_code == 200 else None

    record = await until(the_record, timeout=30, what="the record")
    assert verify_record(record).ok
    assert record["resigned"] == [0, 1]
    assert [c["before_action"] for c in record["seat_changes"]] == [0, 0]
    r = await lobby.seat_call(tid, "resign", tokens[0])
    assert (r.status_code, r.json()["error"]["code"]) == (409, "ended")
    # The replay viewer's deltas show the changes too.
    deltas = (await lobby.get(f"/api/tables/{tid}/deltas")).json()["deltas"]
    kinds = [e["event"]["type"] for e in events_of(deltas)]
    assert kinds.count("seat_controller_changed") == 2
    replayed = (await lobby.http.post("/api/replay", json=record)).json()["deltas"]
    assert [e["event"] for e in events_of(replayed)] == [e["event"] for e in events_of(deltas)]
    await lobby.close()


async def test_a_crowd_joining_is_not_told_of_each_spectator(redis_url):
    """A spectator joining tells the sockets already there nothing by itself (the count
    waits for the periodic refresh: here never, the interval is an hour); each newcomer is
    told the count as it is, and a seat's change carries the count to everyone at once.
    Told at once, N spectators joining one by one cost N²/2 presence messages."""
    s = ServerProcess(redis_url, env={"CARDTABLE_PRESENCE_INTERVAL": "3600",
                                      "CARDTABLE_PRESENCE_GRACE": "0"}).start()
    socks: list[Socket] = []
    try:
        lobby = Lobby(s.url)
        table = await lobby.create(2)
        tid = table["id"]
        token = (await lobby.join(tid, "Anna"))["token"]  # not connected: not online
        await lobby.bot(tid, 1)
        for n in range(1, 11):
            spec = await Socket(s.ws_url, tid).connect()
            socks.append(spec)
            first = await spec.wait(lambda f: f["t"] == "presence")
            assert first["spectators"] == n
            assert states(first)[0] != "online"
        socks.append(await Socket(s.ws_url, tid).connect(token=token))
        told = await presence_where(socks[0], lambda f: states(f)[0] == "online")
        assert told["spectators"] == 10
        presences = [f for f in socks[0].frames if f["t"] == "presence"]
        assert [p["spectators"] for p in presences] == [1, 10]
    finally:
        for sock in socks:
            await sock.close()
        s.stop()


async def test_the_spectator_count_follows_at_the_periodic_refresh(redis_url):
    s = ServerProcess(redis_url, env={"CARDTABLE_PRESENCE_INTERVAL": "0.2"}).start()
    socks: list[Socket] = []
    try:
        lobby = Lobby(s.url)
        tid = (await lobby.create(2))["id"]
        first = await Socket(s.ws_url, tid).connect()
        socks.append(first)
        await first.wait(lambda f: f["t"] == "presence")
        for _ in range(3):
            socks.append(await Socket(s.ws_url, tid).connect())
        await presence_where(first, lambda f: f["spectators"] == 4)
        await socks.pop().close()
        await presence_where(first, lambda f: f["spectators"] == 3)
    finally:
        for sock in socks:
            await sock.close()
        s.stop()
