"""Rematch over the HTTP API (server/http/rematch.py) on two real server processes and one
real Redis: who may ask, the offer, rotation, bots coming along, two accepts at once,
and the start once every person has accepted."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from server.http.rematch import rematch_seats, rotated
from server.table.meta import Seat
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Member, Seats, Socket, ended, unique
from tests.waiting import until


@pytest.fixture(scope="module")
def server_b(redis_url: str) -> Iterator[ServerProcess]:
    s = ServerProcess(redis_url).start()
    yield s
    s.stop()


async def play_to_end(ws_url: str, tid: str, tokens: list[str]) -> list[Socket]:
    socks = [await Socket(ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(socks, seed=7)
    while not any(ended(f) for f in socks[0].frames):
        await seats.step()
    return socks


async def wait_status(lobby: Lobby, tid: str, status: str, key: str | None = None) -> dict:
    headers = {"X-Table-Key": key} if key else {}

    async def summary() -> dict | None:
        s = (await lobby.http.get(f"/api/tables/{tid}", headers=headers)).json()
        return s if s["status"] == status else None

    return await until(summary, what=f"{tid} {status}")


def test_seats_rotate_by_one_and_bots_keep_kind_and_level() -> None:
    old = [Seat("Anna", "human"), Seat("MCTS bot 2", "bot", "mcts", 2),
           Seat("Ben", "bot", "greedy", None)]  # Ben's seat was handed to a bot
    new = rematch_seats(old)
    assert [rotated(i, 3) for i in range(3)] == [1, 2, 0]
    assert new[1] == Seat("Anna", "human")
    assert new[2] == Seat("Mcts bot 3", "bot", "mcts", 2)
    assert new[0] == Seat("Greedy bot 1", "bot", "greedy", None)


async def test_offer_accept_and_start_when_everyone_accepted(server, server_b) -> None:
    lobby, lobby_b = Lobby(server.url), Lobby(server_b.url)
    created = await lobby.create(3)
    tid, owner = created["id"], created["owner_token"]
    anna = (await lobby.join(tid, "Anna"))["token"]
    ben = (await lobby.join(tid, "Ben"))["token"]
    await lobby.bot(tid, 2, "random")
    # Before the end: no rematch.
    r = await lobby.rematch(tid, anna)
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_ended"
    await lobby.start(tid)
    r = await lobby.rematch(tid, anna)
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_ended"
    socks = await play_to_end(server.ws_url, tid, [anna, ben])
    spectator = await Socket(server_b.ws_url, tid).connect()
    await spectator.wait(lambda f: f["t"] == "welcome")
    await wait_status(lobby, tid, "ended")

    # Who may: only a seat's token.
    for token in (None, "not-a-token", owner):
        r = await lobby.rematch(tid, token)
        assert r.status_code == 401 and r.json()["error"]["code"] == "bad_token", r.text
    assert "rematch" not in (await lobby.get(f"/api/tables/{tid}")).json()

    # Anna asks: the new table keeps Ben's seat for him, the bot sits at once.
    r = await lobby.rematch(tid, anna, player_seed="a" * 64)
    assert r.status_code == 200, r.text
    got = r.json()
    new = got["table"]
    nid = new["id"]
    assert got["seat"] == 1 and got["owner"] is True and new["status"] == "open"
    assert new["rematch_of"] == tid and new["options"] == created["options"]
    assert [(s["name"], s["kind"], s.get("waiting", False)) for s in new["seats"]] == [
        ("Random bot 1", "bot", False), ("Anna", "human", False), ("Ben", "human", True)]
    assert new["seats"][1]["seeded"] and new["commitment"] != created["commitment"]
    assert new["host"] == 1  # the first to ask hosts the rematch
    # Everyone at the old table is told (a `table` message with the offer).
    for s in (*socks, spectator):
        await s.wait(lambda f: f["t"] == "table" and f["table"].get("rematch") == nid)
    assert (await lobby_b.get(f"/api/tables/{tid}")).json()["rematch"] == nid
    # Asking again changes nothing and gives the same token.
    again = (await lobby_b.rematch(tid, anna)).json()
    assert again["token"] == got["token"] and again["seat"] == 1
    # Ben's kept seat: nobody else may take it, and the game cannot start without him.
    r = await lobby.http.post(f"/api/tables/{nid}/join", json={"name": "Eve", "seat": 2})
    assert r.status_code == 409 and r.json()["error"]["code"] == "seat_taken"
    r = await lobby.http.post(f"/api/tables/{nid}/join", json={"name": "Eve"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "table_full"
    r = await lobby.http.post(f"/api/tables/{nid}/start",
                              headers={"Authorization": f"Bearer {got['token']}"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "seats_empty"
    # An old token is no seat of the new table.
    old_tok = await Socket(server.ws_url, nid).connect(token=anna)
    assert await old_tok.wait_closed() == 1008

    # Ben accepts (on the other process): the game starts by itself.
    r = await lobby_b.rematch(tid, ben)
    assert r.status_code == 200, r.text
    bens = r.json()
    assert bens["table"]["id"] == nid and bens["seat"] == 2 and bens["owner"] is False
    assert bens["table"]["status"] == "running"
    view = (await lobby.get(f"/api/tables/{nid}/view")).json()
    assert [p["name"] for p in view["players"]] == ["Random bot 1", "Anna", "Ben"]
    player = await Socket(server.ws_url, nid).connect(token=got["token"])
    welcome = await player.wait(lambda f: f["t"] == "welcome")
    assert welcome["seat"] == 1
    # Late repeats after the start still answer with the seat (no new table, no change).
    late = (await lobby.rematch(tid, ben)).json()
    assert late["token"] == bens["token"] and late["table"]["id"] == nid
    for s in (*socks, spectator, player, old_tok):
        await s.close()
    await lobby.close()
    await lobby_b.close()


async def test_two_accepts_at_once_make_one_table_and_one_start(server, server_b) -> None:
    lobby, lobby_b = Lobby(server.url), Lobby(server_b.url)
    created = await lobby.create(3)
    tid = created["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben", "Cleo")]
    await lobby.start(tid)
    # Cleo leaves: she resigns, and the bot that plays her seat comes along to the rematch.
    # (It was the owner's handover; that needs Cleo gone for 60 s now, server/play/seat_rules.py.)
    r = await lobby.seat_call(tid, "resign", tokens[2])
    assert r.status_code == 200, r.text
    socks = await play_to_end(server.ws_url, tid, tokens[:2])
    await wait_status(lobby, tid, "ended")
    r = await lobby.rematch(tid, tokens[2])
    assert r.status_code == 403 and r.json()["error"]["code"] == "seat_handed_over"

    first, second = await asyncio.gather(lobby.rematch(tid, tokens[0]),
                                         lobby_b.rematch(tid, tokens[1]))
    assert first.status_code == second.status_code == 200, (first.text, second.text)
    a, b = first.json(), second.json()
    nid = a["table"]["id"]
    assert b["table"]["id"] == nid
    assert (await lobby.get(f"/api/tables/{tid}")).json()["rematch"] == nid
    assert sorted([a["owner"], b["owner"]]) == [False, True]
    assert (a["seat"], b["seat"]) == (1, 2)
    summary = await wait_status(lobby, nid, "running")
    assert [(s["name"], s["kind"], s.get("bot")) for s in summary["seats"]] == [
        ("Greedy bot 1", "bot", "greedy"), ("Anna", "human", None), ("Ben", "human", None)]
    # Started exactly once: one game_started event, at seq 1.
    events = (await lobby.get(f"/api/tables/{nid}/events")).json()["events"]
    assert [e["type"] for e in events].count("game_started") == 1
    assert events[0]["type"] == "game_started"
    # Only one rematch table was listed.
    opened = (await lobby.get("/api/tables?status=running")).json()["tables"]
    assert [t["id"] for t in opened if t.get("rematch_of") == tid] == [nid]
    for s in socks:
        await s.close()
    await lobby.close()
    await lobby_b.close()


async def test_a_private_tables_rematch_is_private_with_the_same_invite_and_clock(server) -> None:
    lobby = Lobby(server.url)
    r = await lobby.http.post("/api/tables", json={
        "seats": 2, "private": True, "time_control": {"kind": "async", "days": 2}})
    assert r.status_code == 201, r.text
    created = r.json()
    tid, key = created["id"], created["invite_key"]
    lobby.owners[tid] = created["owner_token"]
    anna = (await lobby.join(tid, "Anna", key=key))["token"]
    await lobby.bot(tid, 1, "random")
    await lobby.start(tid)
    socks = await play_to_end(server.ws_url, tid, [anna])
    await wait_status(lobby, tid, "ended", key)
    r = await lobby.rematch(tid, anna)
    assert r.status_code == 200, r.text
    new = r.json()["table"]
    nid = new["id"]
    # Anna is the only person: she has accepted, so it runs; private as before.
    assert new["private"] is True and new["status"] == "running"
    assert new["time_control"] == created["time_control"]
    assert new["time_control"]["kind"] == "async"
    assert (await lobby.get(f"/api/tables/{nid}")).status_code == 404
    with_key = await lobby.http.get(f"/api/tables/{nid}", headers={"X-Table-Key": key})
    assert with_key.status_code == 200 and with_key.json()["rematch_of"] == tid
    listed = (await lobby.get("/api/tables?status=running")).json()["tables"]
    assert nid not in [t["id"] for t in listed]
    for s in socks:
        await s.close()
    await lobby.close()


# The attack these tests guard against (found in a security review):
# B2 finding on rematch (server/http/rematch.py): the rematch of a rated table between two
# accounts is built by ``new_meta``/``take_seat``, which copy neither ``rated`` nor the
# seats' accounts. The rematch is silently unrated, its seats are guests' seats, and it is
# missing from the players' "my games" (so it cannot be continued on another device).


async def _wait_ended(m: Member, tid: str) -> None:
    async def over() -> bool:
        return (await m.get(f"/api/tables/{tid}")).json()["status"] == "ended"
    await until(over, 10, f"{tid} ended")


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
