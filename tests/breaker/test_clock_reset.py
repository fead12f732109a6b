"""Finding 3: a seat's player who takes the seat back (``POST …/return``) gets a fresh
move time and keeps the reserve the bot's interlude never charged (server/play/clock.py
``restarted``). The host may hand its *own* seat to a bot (``roles.require_hand_over``
does not look at the seat), so a host whose time is nearly out hands over and returns at
once, before the bot has moved: its clock starts again, as often as it likes. (Two
colluding players reach the same with a claim: one closes the page for ``claim_after``,
the other claims, the first returns.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Lobby, Socket

FAST = {"kind": "live", "preset": "fast"}  # 15 s a move, 60 s reserve


@pytest.fixture
def slow_bots(redis_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ClockFile]]:
    clock = ClockFile(tmp_path / "clock")
    # Bots think 3 s (the service default is 0.6 s): time for two HTTP calls.
    s = ServerProcess(redis_url, env={**clock.env, "CARDTABLE_BOT_DELAY": "3"}).start()
    yield s, clock
    s.stop()


async def test_a_host_cannot_restart_its_own_clock(slow_bots):
    """The host's own seat cannot be handed over (409 ``own_seat``); the colluders' way,
    a claim of the host's gone seat by Ben and the host's return, keeps the deadline.
    (The test first asserted that the host's own handover succeeds and checked the clock
    after it; refusing it is one half of the fix, so it asserts the refusal and goes on
    with the other way in.)"""
    server, clock = slow_bots
    lobby = Lobby(server.url)
    table = await lobby.create(2, time_control=FAST)
    tid, host = table["id"], table["owner_token"]
    await lobby.join(tid, "Host", token=host)  # seat 0, the host's seat
    ben = (await lobby.join(tid, "Ben"))["token"]
    await lobby.start(tid)
    socks = [await Socket(server.ws_url, tid).connect(token=t) for t in (host, ben)]
    try:
        mark = 0
        for n in range(20):  # Ben moves until the host's seat is to move
            f = await socks[1].wait(lambda f: f["t"] == "prompt" or (
                f["t"] == "clock" and f["clock"]["seat"] == 0), start=mark)
            mark = next(i for i in range(mark, len(socks[1].frames))
                        if socks[1].frames[i] is f) + 1
            if f["t"] == "clock":
                break
            await socks[1].send({"t": "action", "id": f"b{n}", "seq": f["seq"],
                                 "action": f["legal_actions"][0]})
        c = f["clock"]
        assert c["seat"] == 0 and c["deadline"] is not None
        before = c["deadline"]
        r = await lobby.http.post(f"/api/tables/{tid}/seats/0/bot", json={"kind": "random"},
                                  headers={"Authorization": f"Bearer {host}"})
        assert (r.status_code, r.json()["error"]["code"]) == (409, "own_seat"), r.text
        await socks[0].close()  # the host "leaves"; Ben, its accomplice, claims the seat
        await socks[1].wait(lambda f: f["t"] == "presence"
                            and f["seats"][0]["state"] == "away")
        clock.reach(before - 5_000)  # 70 s used: 5 s of the reserve left, gone for long
        await socks[1].wait(lambda f: f["t"] == "presence"
                            and f["seats"][0]["state"] == "gone")
        seen = len(socks[1].frames)
        r = await lobby.seat_call(tid, "seats/0/claim", ben)
        assert r.status_code == 200, r.text
        r = await lobby.seat_call(tid, "return", host)
        assert r.status_code == 200, r.text
        after = await socks[1].wait(
            lambda f: f["t"] == "clock" and f["clock"]["seat"] == 0
            and f["clock"]["deadline"] is not None, start=seen)
    finally:
        for s in socks:
            await s.close()
        await lobby.close()
    # A seat change leaves the clock alone: the deadline is the one before the claim.
    assert after["clock"]["deadline"] == before, (
        f"deadline moved {(after['clock']['deadline'] - before) / 1000:.1f} s")
