"""Reconnecting with ``last_seq`` delivers exactly the missed events: no gap, no duplicate,
the same frames as a socket that never left from the recent ring, one frame with them all
when rebuilt by replay, and the same view either way."""

from __future__ import annotations

from tests.server.client import Lobby, Seats, Socket, apply_deltas, events_of, reaches


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
    collected: list[dict] = []
    view_seq = welcome["seq"]
    for missed in (2, 25):  # 2 come from the recent ring (size 4), 25 are rebuilt by replay
        await seats.step(3)
        await leaver.wait(lambda f, v=view_seq: reaches(f, v + 2))
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
        await leaver.wait(lambda f, s=hello["seq"]: f["t"] == "deltas" and f["seq"] == s)
        again = leaver.deltas()
        # The missed events up to the welcome's seq, then possibly live ones already on
        # their way: consecutive from last+1 either way (no gap, no duplicate), each
        # frame's patch on the view of the frame before it.
        got = [e["seq"] for e in events_of(again)]
        assert got == list(range(last + 1, last + 1 + len(got))) and got[-1] >= hello["seq"]
        assert [f["prev"] for f in again] == [last] + [f["seq"] for f in again[:-1]]
        caught = [f for f in again if f["seq"] <= hello["seq"]]
        reference = [f for f in steady.deltas() if last < f["seq"] <= hello["seq"]]
        if missed == 2:  # from the ring: the very frames the socket that never left got
            assert caught == reference
        else:  # rebuilt by replay: all of them in one frame
            assert len(caught) == 1 < len(reference)
            assert events_of(caught) == events_of(reference)
        collected += again
        view_seq = hello["seq"]
    await seats.step(2)
    final = max(d["seq"] for d in steady.deltas())
    await leaver.wait(lambda f: f["t"] == "deltas" and f["seq"] == final)
    collected += [f for f in leaver.deltas() if f["seq"] > collected[-1]["seq"]]
    # Deltas of the last steps may still be arriving: compare once the socket that never
    # left has caught up with everything the leaver holds.
    seen = collected[-1]["seq"]
    assert seen >= final
    await steady.wait(lambda f: reaches(f, seen))
    # Exactly what the socket that never left received: the same events, and the same
    # view at the end.
    reference = [d for d in steady.deltas() if welcome["seq"] < d["seq"] <= seen]
    assert events_of(collected) == events_of(reference)
    assert [e["seq"] for e in events_of(collected)] == list(range(welcome["seq"] + 1, seen + 1))
    start = welcome["view"]
    assert apply_deltas(start, collected) == apply_deltas(start, reference)
    for s in (*players, steady, leaver):
        await s.close()
    await lobby.close()
