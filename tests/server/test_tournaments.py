"""Tournaments over the HTTP API and the standings socket on one server process: who may
create, join, withdraw and start, bad input refused with nothing changed, and a rated
two-round Swiss tournament of four accounts played to the end with its standings pushed
live and its ratings applied (server/tournaments/, server/http/tournaments.py)."""

from __future__ import annotations

import json
import time

import pytest

from protocol.connection import dial
from protocol.lobby import Member
from tests.server.client import unique
from tests.server.tournament_play import boards_of, expected_points, play_round, swiss_body
from tests.waiting import until


async def member(base: str, prefix: str = "t") -> tuple[str, Member]:
    name = unique(prefix)
    m = Member(base)
    await m.sign_up(name)
    return name, m


@pytest.mark.parametrize("change,code", [
    ({"kind": "knockout"}, "bad_message"),
    ({"game": "chess"}, "no_game"),
    ({"seats": 6}, "bad_message"),
    ({"seats": 5, "game": "keltis"}, "bad_message"),
    ({"time_control": {"kind": "none"}}, "bad_message"),
    ({"time_control": None}, "bad_message"),
    ({"rounds": None}, "bad_message"),
    ({"rounds": 16}, "bad_message"),
    ({"minutes": 10}, "bad_message"),
    ({"kind": "arena"}, "bad_message"),
    ({"starts_at": 1.0}, "bad_message"),
    ({"starts_at": "soon"}, "bad_message"),
    # Every number of the body bounded (1e306 seconds once overflowed into a 500).
    ({"starts_at": 1e306}, "bad_message"),
    ({"starts_at": 5e9}, "bad_message"),
    ({"starts_at": -1e306}, "bad_message"),
    ({"seats": 1e306}, "bad_message"),
    ({"seats": 2.0}, "bad_message"),
    ({"rounds": 1e306}, "bad_message"),
    ({"rounds": -(10 ** 30)}, "bad_message"),
    ({"kind": "arena", "rounds": None, "minutes": 1e306}, "bad_message"),
    ({"kind": "arena", "rounds": None, "minutes": 10 ** 30}, "bad_message"),
    ({"time_control": {"kind": "async", "days": 1e306}}, "bad_message"),
    ({"name": ""}, "bad_message"),
    ({"name": "x\u202ey"}, "bad_message"),
    ({"options": {"no_such_option": 1}}, "bad_message"),
    ({"extra": 1}, "bad_message"),
])
async def test_bad_bodies_are_refused_and_nothing_is_created(server, change, code) -> None:
    _, m = await member(server.url)
    before = (await m.get("/api/tournaments?status=all")).json()["tournaments"]
    body = {k: v for k, v in {**swiss_body(), **change}.items() if v is not None}
    r = await m.http.post("/api/tournaments", json=body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == code
    after = (await m.get("/api/tournaments?status=all")).json()["tournaments"]
    # The same tournaments (another test's may have started or been cancelled meanwhile:
    # the server is shared and its clock runs).
    assert [x["id"] for x in after] == [x["id"] for x in before]
    await m.close()


@pytest.mark.parametrize("raw", [b"Infinity", b"-Infinity", b"NaN", b"1e400"])
async def test_a_non_finite_start_is_refused(server, raw: bytes) -> None:
    """``starts_at`` as JSON's non-finite extensions (Python's parser takes them) or a
    number that overflows a float: 400 with the field named, nothing created."""
    name, m = await member(server.url)
    fields = {k: v for k, v in swiss_body().items() if k != "starts_at"}
    body = json.dumps(fields).encode()[:-1] + b', "starts_at": ' + raw + b"}"
    r = await m.http.post("/api/tournaments", content=body,
                          headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_message" and err["message"].startswith("starts_at"), err
    assert (await m.get(f"/api/tournaments?player={name}")).json()["tournaments"] == []
    await m.close()


async def test_who_may_do_what(server) -> None:
    creator_name, creator = await member(server.url)
    guest = Member(server.url)
    r = await guest.http.post("/api/tournaments", json=swiss_body())
    assert (r.status_code, r.json()["error"]["code"]) == (401, "no_session")
    t = await creator.create_tournament(**swiss_body())
    tid = t["id"]
    assert t["status"] == "scheduled" and t["creator"] == creator_name
    for what in ("join", "withdraw", "start"):
        r = await guest.tournament_call(tid, what)
        assert (r.status_code, r.json()["error"]["code"]) == (401, "no_session"), what
    other_name, other = await member(server.url)
    r = await other.tournament_call(tid, "withdraw")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_joined")
    assert (await other.tournament_call(tid, "join")).status_code == 200
    r = await other.tournament_call(tid, "join")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "joined")
    r = await other.tournament_call(tid, "start")
    assert (r.status_code, r.json()["error"]["code"]) == (403, "not_creator")
    got = await guest.tournament(tid)
    assert got["status"] == "scheduled" and got["players"] == 1 and "me" not in got
    assert [row["player"] for row in got["standings"]] == [other_name]
    assert "secret" not in json.dumps(got)
    mine = (await other.tournament(tid))["me"]
    assert mine == {"joined": True, "withdrawn": False, "creator": False, "board": None}
    # A CSRF-less change from a logged-in account is refused before the handler.
    r = await other.http.post(f"/api/tournaments/{tid}/withdraw",
                              headers={"X-CSRF-Token": "wrong"})
    assert r.status_code == 403
    assert (await guest.tournament(tid))["players"] == 1
    for bad in ("nope-none", "a" * 40, "bad%20id"):
        r = await guest.get(f"/api/tournaments/{bad}")
        assert r.status_code == 404 and r.json()["error"]["code"] == "no_tournament", bad
        r = await other.tournament_call(bad, "join")
        assert r.status_code == 404, bad
    r = await guest.get("/api/tournaments?status=later")
    assert r.status_code == 400
    r = await guest.get("/api/tournaments?player=nobody-by-this-name")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "no_player")
    listed = (await guest.get(f"/api/tournaments?player={other_name}")).json()["tournaments"]
    assert [x["id"] for x in listed] == [tid]
    # Started by its creator with one player: cancelled, nothing more to join.
    started = (await creator.tournament_call(tid, "start")).json()
    assert started["status"] == "cancelled"
    r = await other.tournament_call(tid, "join")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "finished")
    r = await creator.tournament_call(tid, "start")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "started")
    for m in (creator, guest, other):
        await m.close()


async def test_an_account_may_run_only_so_many_tournaments(server) -> None:
    _, m = await member(server.url)
    made = [await m.create_tournament(**swiss_body(name=f"Cup {i}")) for i in range(3)]
    r = await m.http.post("/api/tournaments", json=swiss_body())
    assert (r.status_code, r.json()["error"]["code"]) == (429, "too_many_tournaments")
    await m.tournament_call(made[0]["id"], "start")  # cancelled: one player short
    await m.create_tournament(**swiss_body(name="Cup 4"))
    await m.close()


async def test_swiss_of_four_played_to_the_end_with_live_standings(server) -> None:
    names_members = [await member(server.url, "sw") for _ in range(4)]
    members = dict(names_members)
    creator = names_members[0][1]
    before = {n: (await creator.get(f"/api/players/{n}")).json()["ratings"]
              for n in members}
    assert all("einauge" not in r for r in before.values())
    t = await creator.create_tournament(**swiss_body())
    tid = t["id"]
    for m in members.values():
        assert (await m.tournament_call(tid, "join")).status_code == 200
    frames: list[dict] = []
    async with dial(f"{server.ws_url}/ws/tournaments/{tid}") as ws:
        first = json.loads(await ws.recv())
        assert first["t"] == "tournament" and first["tournament"]["players"] == 4
        assert (await creator.tournament_call(tid, "start")).json()["status"] == "running"
        for round_no in (1, 2):
            await play_round(members, tid, round_no, lambda: server.ws_url, seed=round_no)

        async def pushed_finished() -> dict | None:
            frames.append(json.loads(await ws.recv()))
            last = frames[-1]["tournament"]
            return last if last["status"] == "finished" else None
        final = await until(pushed_finished, timeout=60, what="the finished standings pushed")
    versions = [f["version"] for f in frames]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    got = await creator.tournament(tid)
    assert final == {k: v for k, v in got.items() if k != "me"}
    assert got["round"] == 2 and len(got["boards"]) == 4
    assert all(b["status"] == "done" for b in got["boards"])
    pairs = [frozenset(b["players"]) for b in got["boards"]]
    assert len(set(pairs)) == 4, "a pair met twice"
    # Round 2 pairs the round-1 winners and the round-1 losers (a draw aside).
    summaries = {b["table"]: (await creator.get(f"/api/tables/{b['table']}")).json()
                 for b in got["boards"]}
    assert all(s["status"] == "ended" and s["rated"] for s in summaries.values())
    # Each board table names its tournament and round as fields (a page words them in its
    # language); the stored English name stays for older clients.
    for b in got["boards"]:
        assert summaries[b["table"]]["tournament"] == {
            "id": tid, "name": t["name"], "kind": "swiss", "round": b["round"]}
        assert summaries[b["table"]]["name"] == f"{t['name']} · round {b['round']}"
    points = expected_points(got, summaries)
    assert {r["player"]: r["points"] for r in got["standings"]} == points
    ranked = [r["points"] for r in got["standings"]]
    assert ranked == sorted(ranked, reverse=True)
    assert [r["rank"] for r in got["standings"]] == [1, 2, 3, 4]
    for n in members:
        profile = (await creator.get(f"/api/players/{n}")).json()
        assert profile["ratings"]["einauge"]["games"] == 2, n
        assert {g["id"] for g in profile["recent"]} == {
            b["table"] for b in got["boards"] if n in b["players"]}
    listed = (await creator.get("/api/tournaments?status=finished")).json()["tournaments"]
    mine = [x for x in listed if x["id"] == tid]
    assert len(mine) == 1 and mine[0]["winner"] == got["standings"][0]["player"]
    assert "place" not in mine[0]  # a place only in a player's list
    for row in got["standings"]:  # each profile's list: the player's place in it
        of = (await creator.get(f"/api/tournaments?status=all&player={row['player']}")
              ).json()["tournaments"]
        assert [(x["id"], x["place"]) for x in of] == [(tid, row["rank"])], row
    assert time.time() >= got["finished_at"] >= got["starts_at"]
    for m in members.values():
        await m.close()


async def test_a_swiss_round_keeps_a_blocked_pair_apart(server) -> None:
    """Break test finding: a tournament seated two accounts where one blocked the other.
    Four join in order (round 1 pairs neighbours in the joining order: first with
    second); the first blocked the second, so round 1 pairs first with third."""
    joined = [await member(server.url, "tb") for _ in range(4)]
    names = [n for n, _ in joined]
    first = joined[0][1]
    r = await first.http.put(f"/api/me/blocks/{names[1]}")
    assert r.status_code == 200, r.text
    tid = (await first.create_tournament(**swiss_body(name="Blocks")))["id"]
    for _, m in joined:
        assert (await m.tournament_call(tid, "join")).status_code == 200
    assert (await first.tournament_call(tid, "start")).status_code == 200
    boards = await boards_of(first, tid, 1)
    assert sorted(sorted(b["players"]) for b in boards) == sorted(
        [sorted([names[0], names[2]]), sorted([names[1], names[3]])])
    for _, m in joined:
        await m.close()
