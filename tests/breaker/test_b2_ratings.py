"""B2 finding on ratings (server/accounts/ratings.py, app.game_ended): a rated game that one
account resigns before it made a single move is rated in full. Two accounts of one
person (same address, one after the other) farm rating points: one resigns at once, a
bot plays its seat to the end, the other collects the win."""

from __future__ import annotations

import asyncio

from tests.server.client import Member, Seats, Socket, ended, unique


async def test_a_game_resigned_before_any_own_move_is_not_rated(server):
    farmer, sock_puppet = Member(server.url), Member(server.url)
    fname, pname = unique("farm"), unique("puppet")
    await farmer.sign_up(fname)
    await sock_puppet.sign_up(pname)
    table = await farmer.create(2, rated=True)
    tid = table["id"]
    tokens = [(await farmer.join(tid, "x", token=table["owner_token"]))["token"],
              (await sock_puppet.join(tid, "x"))["token"]]
    await farmer.start(tid)
    r = await sock_puppet.seat_call(tid, "resign", tokens[1])
    assert r.status_code == 200, r.text
    sock = await Socket(server.ws_url, tid).connect(token=tokens[0])
    seats = Seats([sock], seed=2)
    for _ in range(400):  # bounded
        if any(ended(f) for f in sock.frames):
            break
        await seats.step()
    for _ in range(200):  # bounded: the end is settled in the background
        if (await farmer.get(f"/api/tables/{tid}")).json()["status"] == "ended":
            break
        await asyncio.sleep(0.05)
    profile = (await farmer.get(f"/api/players/{fname}")).json()
    await sock.close()
    await farmer.close()
    await sock_puppet.close()
    got = profile["ratings"].get("einauge", {"rating": 1500, "games": 0})
    assert got["games"] == 0, f"farmer rated from a resigned-at-once game: {got}"
