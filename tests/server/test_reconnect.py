"""Reconnecting with ``last_seq`` delivers exactly the missed deltas: no gap, no duplicate,
the same frames as a socket that never left (from the recent ring or rebuilt by replay)."""

from __future__ import annotations

from tests.server.client import Lobby, Seats, Socket


async def test_reconnect_with_last_seq_gets_exactly_the_missed_deltas(server):
    # The session server keeps only 4 recent deltas per table.
    lobby = Lobby(server.url)
    table = await lobby.create(3)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{i}"))["token"] for i in range(3)]
    await lobby.start(tid)  # the owner (host) starts
    players = [await Socket(server.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(players, seed=3)
    steady = await Socket(server.ws_url, tid).connect()
    await steady.wait(lambda f: f["t"] == "welcome")

    leaver = await Socket(server.ws_url, tid).connect()
    welcome = await leaver.wait(lambda f: f["t"] == "welcome")
    collected = []
    view_seq = welcome["seq"]
    for missed in (2, 25):  # 2 come from the recent ring (size 4), 25 are rebuilt by replay
        await seats.step(3)
        await leaver.wait(lambda f, v=view_seq: f["t"] == "delta" and f["seq"] >= v + 2)
        await leaver.close()
        collected += [f for f in leaver.deltas() if f not in collected]
        last = collected[-1]["seq"]
        target = last + missed
        while max(d["seq"] for d in players[0].deltas()) < target:
            await seats.step()
        now = max(d["seq"] for d in players[0].deltas())
        leaver = await Socket(server.ws_url, tid).connect(last_seq=last)
        hello = await leaver.wait(lambda f: f["t"] == "welcome")
        assert hello["view"] is None and hello["seq"] >= now
        await leaver.wait(lambda f, s=hello["seq"]: f["t"] == "delta" and f["seq"] == s)
        again = leaver.deltas()
        # The missed deltas up to the welcome's seq, then possibly live ones already on
        # their way: consecutive from last+1 either way (no gap, no duplicate).
        got = [d["seq"] for d in again]
        assert got == list(range(last + 1, last + 1 + len(got))) and got[-1] >= hello["seq"]
        collected += again
        view_seq = hello["seq"]
    await seats.step(2)
    final = max(d["seq"] for d in steady.deltas())
    await leaver.wait(lambda f: f["t"] == "delta" and f["seq"] == final)
    collected += [f for f in leaver.deltas() if f["seq"] > collected[-1]["seq"]]
    # Deltas of the last steps may still be arriving: compare once the socket that never
    # left has caught up with everything the leaver holds.
    seen = collected[-1]["seq"]
    assert seen >= final
    await steady.wait(lambda f: f["t"] == "delta" and f["seq"] >= seen)
    # Exactly what the socket that never left received, frame for frame.
    reference = [d for d in steady.deltas() if d["seq"] > welcome["seq"]]
    assert collected == reference[:len(collected)]
    assert [d["seq"] for d in collected] == list(range(welcome["seq"] + 1, seen + 1))
    for s in (*players, steady, leaver):
        await s.close()
    await lobby.close()
