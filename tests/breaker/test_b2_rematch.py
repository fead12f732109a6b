"""B2 finding on rematch (server/http/rematch.py): the rematch of a rated table between two
accounts is built by ``new_meta``/``take_seat``, which copy neither ``rated`` nor the
seats' accounts. The rematch is silently unrated, its seats are guests' seats, and it is
missing from the players' "my games" (so it cannot be continued on another device)."""

from __future__ import annotations

import asyncio

from tests.server.client import Member, Seats, Socket, ended, unique


async def _wait_ended(m: Member, tid: str) -> None:
    for _ in range(200):  # bounded: 10 s
        if (await m.get(f"/api/tables/{tid}")).json()["status"] == "ended":
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"{tid} did not end")


async def test_the_rematch_of_a_rated_table_is_rated_and_keeps_the_accounts(server):
    anna, ben = Member(server.url), Member(server.url)
    await anna.sign_up(unique("anna"))
    await ben.sign_up(unique("ben"))
    table = await anna.create(2, rated=True)
    tid = table["id"]
    tokens = [(await anna.join(tid, "x", token=table["owner_token"]))["token"],
              (await ben.join(tid, "x"))["token"]]
    await anna.start(tid)
    socks = [await Socket(server.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(socks, seed=11)
    for _ in range(400):  # bounded
        if any(ended(f) for f in socks[0].frames):
            break
        await seats.step()
    await _wait_ended(anna, tid)
    old = (await anna.get(f"/api/tables/{tid}")).json()
    assert old["rated"] and all(s.get("account") for s in old["seats"])  # the premise
    first = await anna.rematch(tid, tokens[0])
    second = await ben.rematch(tid, tokens[1])
    assert first.status_code == 200 and second.status_code == 200, (first.text, second.text)
    new = second.json()["table"]
    nid = new["id"]
    games = (await anna.get("/api/me/games")).json()
    listed = [g["id"] for rows in games.values() for g in rows]
    for s in socks:
        await s.close()
    await anna.close()
    await ben.close()
    problems = []
    if not new["rated"]:
        problems.append("the rematch is not rated")
    if not all(s.get("account") for s in new["seats"]):
        problems.append(f"its seats hold no account: {new['seats']}")
    if nid not in listed:
        problems.append("it is not in the first player's games")
    assert not problems, problems
