"""Playing a tournament's rounds through the wire, for the tournament tests: each
player's account asks for its board and its seat token, and a ``Player`` plays it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from protocol.lobby import Member
from server.accounts import ratings
from server.tournaments.standings import game_points
from tests.server.client import Player
from tests.waiting import until


def swiss_body(**extra: Any) -> dict[str, Any]:
    """A rated two-round Swiss tournament of two-seat Einauge on the fast live clock,
    starting in a minute (tests start it with ``start``)."""
    return {"name": "Cup", "game": "einauge", "kind": "swiss", "seats": 2, "rounds": 2,
            "time_control": {"kind": "live", "preset": "fast"}, "rated": True,
            "starts_at": time.time() + 60, **extra}


async def boards_of(member: Member, tid: str, round_no: int) -> list[dict[str, Any]]:
    """The boards of round ``round_no`` once they are all ``playing`` (or done)."""
    async def ready() -> list[dict[str, Any]] | None:
        t = await member.tournament(tid)
        boards = [b for b in t["boards"] if b["round"] == round_no]
        return boards if boards and all(b["status"] != "planned" for b in boards) else None
    return await until(ready, timeout=30, what=f"round {round_no} started")


async def play_round(members: dict[str, Member], tid: str, round_no: int,
                     base: Callable[[], str], seed: int, **player_kw: Any) -> list[Player]:
    """Every player of round ``round_no`` plays its board to the end (random legal
    moves); returns the players."""
    any_member = next(iter(members.values()))
    boards = await boards_of(any_member, tid, round_no)
    players = []
    for b in boards:
        if b["bye"]:
            continue
        for name in b["players"]:
            held = await members[name].seat_token(b["table"])
            assert b["players"][held["seat"]] == name
            players.append(Player(base, b["table"], held["token"], seed + len(players),
                                  **player_kw))
    await asyncio.gather(*(p.run(120) for p in players))
    return players


def expected_points(t: dict[str, Any], summaries: dict[str, dict[str, Any]]
                    ) -> dict[str, float]:
    """Each player's points computed from the tables' stored totals (not from the
    tournament's own record of them)."""
    out = {row["player"]: 0.0 for row in t["standings"]}
    for b in t["boards"]:
        if b["bye"]:
            out[b["players"][0]] += 1.0
            continue
        scores = summaries[b["table"]]["scores"]
        places = ratings.ranks({"scores": [{"total": s} for s in scores]})
        assert places is not None
        for seat, name in enumerate(b["players"]):
            out[name] += game_points(places, seat, t["kind"])
    return out
