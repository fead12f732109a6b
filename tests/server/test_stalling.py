"""No stalling among strangers (server/play/clock.py ``for_table``): only a private table may
have no clock; a public table gets the default "normal" one, so a connected player who
never moves times out and is replaced by the table's rules, on a real server with the
injectable clock (``CARDTABLE_CLOCK_FILE``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.play import clock as clocks
from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Lobby, Socket, has_event
from tests.server.test_deadlines import clock_of, stored
from tests.waiting import until


def test_only_a_private_table_keeps_no_clock() -> None:
    assert clocks.for_table(None, private=False) == clocks.PUBLIC_DEFAULT
    assert clocks.for_table({"kind": "none"}, private=False) == clocks.PUBLIC_DEFAULT
    assert clocks.for_table({"kind": "none"}, private=True) == {"kind": "none"}
    assert clocks.for_table(None, private=True) == {}
    fast = {"kind": "live", "preset": "fast"}
    assert clocks.for_table(fast, private=False) == fast
    with pytest.raises(ValueError):
        clocks.for_table({"kind": "live", "preset": "sloth"}, private=False)


async def test_a_public_table_gets_a_clock_a_private_one_may_have_none(
        server: ServerProcess) -> None:
    lobby = Lobby(server.url)
    try:
        for tc in (None, {"kind": "none"}):
            table = await lobby.create(2, time_control=tc)
            assert (table["time_control"]["kind"], table["time_control"]["preset"]) == (
                "live", "normal")
            assert (await lobby.get(f"/api/tables/{table['id']}")).json()[
                "time_control"]["kind"] == "live"
        private = await lobby.create(2, private=True, time_control={"kind": "none"})
        assert private["time_control"]["kind"] == "none"
        slow = await lobby.create(2, time_control={"kind": "live", "preset": "slow"})
        assert slow["time_control"]["preset"] == "slow"
    finally:
        await lobby.close()


@pytest.fixture
def clock(tmp_path: Path) -> ClockFile:
    return ClockFile(tmp_path / "clock")


async def test_a_connected_idler_at_a_public_table_times_out_and_a_bot_takes_the_seat(
        redis_url: str, clock: ClockFile) -> None:
    """Both players hold sockets; whoever is to move never moves. At a public table made
    without a time control the "normal" clock runs: each deadline times the seat out, and
    the third timeout in a row hands it to a bot (the table's rules), which plays."""
    server = ServerProcess(redis_url, env=clock.env).start()
    socks: list[Socket] = []
    lobby = Lobby(server.url)
    try:
        table = await lobby.create(2)
        tid = table["id"]
        tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
        await lobby.start(tid)
        for t in tokens:
            socks.append(await Socket(server.ws_url, tid).connect(token=t))
        watcher = socks[0]
        await watcher.wait(lambda f: f["t"] == "welcome")
        # Both players are there (their sockets' presence is in), and the clock stands
        # still, so no seat can be away long enough for a claim however slow the machine.
        await watcher.wait(lambda f: f["t"] == "presence"
                           and [s["state"] for s in f["seats"]] == ["online", "online"])
        c = await clock_of(watcher)
        clock.stop_at(clock.now_ms())
        # A claim finds the idler present: the untimed table's dead end (409 not_away).
        to_move = c["seat"]
        r = await lobby.seat_call(tid, f"seats/{to_move}/claim", tokens[1 - to_move])
        assert (r.status_code, r.json()["error"]["code"]) == (409, "not_away")
        seen = 0
        while not any(e["e"]["type"] == "seat_controller_changed"
                      for e in stored(redis_url, tid)):
            c = await clock_of(watcher, seen)
            seen = len(watcher.frames)
            assert c["deadline"] is not None  # a public table always has a deadline
            n = len(stored(redis_url, tid))
            clock.reach(c["deadline"])
            await watcher.wait(lambda f, n=n: has_event(
                f, lambda x: x["seq"] > n and x["event"]["type"] == "seat_timed_out"))
        entries = stored(redis_url, tid)
        change = next(e["e"] for e in entries if e["e"]["type"] == "seat_controller_changed")
        assert (change["by"], change["reason"]) == ("bot", "timeout")
        seat = change["seat"]
        outs = [e["e"]["count"] for e in entries
                if e["e"]["type"] == "seat_timed_out" and e["e"]["seat"] == seat]
        assert outs == [1, 2, 3]
        # The bot plays the seat: with the clock standing still, nobody else acts, so a
        # game event after the change is the bot's move (or what it brought about).
        at = next(i for i, e in enumerate(entries)
                  if e["e"]["type"] == "seat_controller_changed") + 1

        def bot_moved() -> bool:
            return any(e["e"]["type"] not in ("seat_timed_out", "seat_controller_changed")
                       for e in stored(redis_url, tid)[at:])

        await until(bot_moved, timeout=60, what="the bot's move")
    finally:
        for s in socks:
            await s.close()
        await lobby.close()
        server.stop()
