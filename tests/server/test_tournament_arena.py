"""An arena on a real server process, its duration run on the servers' test clock
(``ClockFile``, stopped: only the test moves it): four accounts on two-seat tables; the
two players of whichever game ends first are seated again at once while the other game
is still being played; nobody is paired once the pairing time is over, the games under
way count when they end, then it is finished, with each game's points by place (win 2,
draw 1, loss 0) as the tables' stored totals give them, and the standings in arena
order (server/tournaments/model.py ``_plan_arena``, runner.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from protocol.lobby import Member
from server.store.embedded import EmbeddedRedis, free_port
from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Player, unique
from tests.server.tournament_play import expected_points
from tests.waiting import until

MINUTES = 5


@pytest.fixture
def clock(tmp_path_factory: pytest.TempPathFactory) -> ClockFile:
    return ClockFile(tmp_path_factory.mktemp("arena-clock") / "clock")


@pytest.fixture
def arena_server(tmp_path_factory: pytest.TempPathFactory, clock: ClockFile) -> Any:
    """A server on a Redis of its own: no other process of the test session (on the real
    clock) steps this arena."""
    redis = EmbeddedRedis(tmp_path_factory.mktemp("arena-redis"), port=free_port())
    url = redis.start()
    s = ServerProcess(url, env={**clock.env, "CARDTABLE_TOURNAMENT_SCAN": "0.1"}).start()
    yield s
    s.stop()
    redis.stop()


async def play_board(members: dict[str, Member], board: dict[str, Any], base: str,
                     seed: int) -> None:
    """Both seats of ``board`` play random legal moves to the game's end."""
    players = []
    for name in board["players"]:
        held = await members[name].seat_token(board["table"])
        assert board["players"][held["seat"]] == name
        players.append(Player(lambda: base, board["table"], held["token"], seed + len(players)))
    await asyncio.gather(*(p.run(120) for p in players))


async def test_finishers_are_paired_again_at_once_and_points_go_by_place(
        arena_server: ServerProcess, clock: ClockFile) -> None:
    t0 = int(time.time() * 1000)
    clock.stop_at(t0)
    members: dict[str, Member] = {}
    for _ in range(4):
        name = unique("ar")
        m = Member(arena_server.url)
        await m.sign_up(name)
        members[name] = m
    creator = next(iter(members.values()))
    tid = (await creator.create_tournament(
        name="Arena", game="einauge", kind="arena", seats=2, minutes=MINUTES,
        # A day per move: moving the clock past the pairing time times out no move.
        time_control={"kind": "async", "days": 1}, rated=False,
        starts_at=t0 / 1000 + 60))["id"]
    for m in members.values():
        assert (await m.tournament_call(tid, "join")).status_code == 200
    started = (await creator.tournament_call(tid, "start")).json()
    assert started["status"] == "running"
    assert started["ends_at"] == (t0 + MINUTES * 60_000) / 1000

    async def playing(count: int) -> list[dict[str, Any]] | None:
        t = await creator.tournament(tid)
        live = [b for b in t["boards"] if b["status"] == "playing"]
        planned = [b for b in t["boards"] if b["status"] == "planned"]
        return live if len(live) == count and not planned else None

    first = await until(lambda: playing(2), timeout=30, what="the first wave's two games")
    assert sorted(p for b in first for p in b["players"]) == sorted(members)
    # The first game ends; its two players are seated again while the other game goes on.
    await play_board(members, first[0], arena_server.ws_url, seed=1)

    async def repaired(players: list[str], after: int) -> dict[str, Any] | None:
        t = await creator.tournament(tid)
        new = [b for b in t["boards"][after:] if sorted(b["players"]) == sorted(players)
               and b["status"] == "playing"]
        return new[0] if new else None
    again = await until(lambda: repaired(first[0]["players"], 2), timeout=30,
                        what="the finishers paired again")
    t = await creator.tournament(tid)
    other = next(b for b in t["boards"] if b["table"] == first[1]["table"])
    assert other["status"] == "playing", "paired again only once the other game ended"
    assert len(t["boards"]) == 3 and again["round"] == 2
    # The second first-wave game ends: its players, waiting alone, are paired too.
    await play_board(members, first[1], arena_server.ws_url, seed=3)
    third = await until(lambda: repaired(first[1]["players"], 3), timeout=30,
                        what="the second game's players paired again")
    assert third["round"] == 3
    # The pairing time runs out: the games under way finish, nobody is paired again.
    clock.stop_at(t0 + MINUTES * 60_000 + 1)
    await play_board(members, again, arena_server.ws_url, seed=5)
    await play_board(members, third, arena_server.ws_url, seed=7)

    seen: list[dict[str, Any]] = []

    async def finished() -> dict[str, Any] | None:
        seen[:] = [await creator.tournament(tid)]
        return seen[0] if seen[0]["status"] == "finished" else None
    try:
        t = await until(finished, timeout=60, what="the arena finished")
    except AssertionError:
        raise AssertionError(f"not finished: {seen}") from None
    assert len(t["boards"]) == 4 and all(b["status"] == "done" for b in t["boards"])
    summaries = {b["table"]: (await creator.get(f"/api/tables/{b['table']}")).json()
                 for b in t["boards"]}
    assert all(s["status"] == "ended" for s in summaries.values())
    for b in t["boards"]:
        assert sorted(b["points"]) in ([0, 2], [1, 1]), b  # loss/win or a draw
    points = expected_points(t, summaries)
    rows = {r["player"]: r for r in t["standings"]}
    assert {n: r["points"] for n, r in rows.items()} == points
    assert all(r["games"] == 2 for r in rows.values())
    for n, r in rows.items():
        assert r["wins"] == sum(1 for b in t["boards"] for s, p in enumerate(b["players"])
                                if p == n and b["places"][s] == 1), n
    keys = [(-r["points"], -r["wins"], r["games"]) for r in t["standings"]]
    assert keys == sorted(keys) and [r["rank"] for r in t["standings"]] == [1, 2, 3, 4]
    for m in members.values():
        await m.close()
