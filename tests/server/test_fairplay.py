"""Ratings that mean something (server/accounts/fairplay.py, ratings.py): enough play for a
rated game to count, leaving loses, repeated pairs capped and flagged (with the clock a
parameter), the record of games left on the profile, bots anchored and a person's change
capped; the farming scenario of the outside break test on a real server."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio as aioredis

from engine import GAMES
from engine.seat_control import Control, SeatControllerChanged
from server.accounts import fairplay, ratings
from server.store.accounts import AccountStore
from server.store.admin import AdminStore
from server.store.fairplay import FairPlayStore
from server.table.meta import Seat, TableMeta
from tests.conftest import ServerProcess
from tests.server.client import Member, Seats, Socket, ended, unique
from tests.waiting import until

DAY = fairplay.PAIR_WINDOW_MS


def test_every_game_declares_its_minimum_of_decisions() -> None:
    for game in GAMES.values():
        assert isinstance(game.rated_min_decisions, int) and game.rated_min_decisions >= 2


def test_too_few_own_decisions_abort_the_game() -> None:
    accounts = ["anna", "ben", "bot-random-0"]
    keys = ["p:0:a", "p:0:b", "p:0:c", "p:1:x", "b:1:y", "b:1:z", "b:2:q"]
    assert fairplay.too_few(accounts, keys, 3) == [1]  # a bot's moves for Ben are not his
    assert fairplay.too_few(accounts, [*keys, "p:1:w", "p:1:v"], 3) == []
    assert fairplay.too_few(["bot-random-0", "bot-greedy-0"], [], 3) == []


def test_a_seat_left_to_a_bot_is_marked_with_how_it_was_left() -> None:
    control = Control()
    for seat, reason in ((0, "timeout"), (1, "resigned"), (2, "handover"), (3, "timeout")):
        control.apply(SeatControllerChanged(seat, "bot", reason, "greedy"))
    control.apply(SeatControllerChanged(3, "player", "returned"))  # back at the end
    assert fairplay.left_seats(control, [0, 1, 2, 3]) == {
        0: "timed_out", 1: "resigned", 2: "abandoned"}
    assert fairplay.left_seats(control, [1]) == {1: "resigned"}  # a bot's own seat: none


def test_bots_are_anchored_and_a_first_loss_to_a_bot_moves_a_new_account_by_at_most_75():
    assert ratings.anchor("anna") is None
    mu, sigma = ratings.anchor("bot-greedy-0")  # type: ignore[misc]
    assert round(mu * ratings.SCALE) == ratings.ANCHORS[("greedy", 0)]
    assert round(ratings.anchor("bot-mcts-4")[0] * ratings.SCALE) == 2082  # type: ignore[index]
    out = ratings.outcome([None, {"mu": mu, "sigma": sigma, "games": 0}], [2, 1])
    raw = out[0]["mu1"] - out[0]["mu0"]
    assert ratings.display(abs(raw)) > ratings.MAX_CHANGE  # uncapped: the 158-point swing
    dmu, dsigma = ratings.capped(raw, out[0]["sigma1"] - out[0]["sigma0"])
    assert ratings.display(-dmu) == ratings.MAX_CHANGE == 75
    assert dsigma < 0  # the uncertainty shrinks, by the same share
    assert ratings.capped(0.5, -0.1) == (0.5, -0.1)  # within the cap: unchanged


def meta(accounts: list[str], table_id: str) -> TableMeta:
    seats = [Seat(name=f"P{i}", kind="bot" if a.startswith("bot-") else "human",
                  bot="greedy" if a.startswith("bot-") else None, account=a)
             for i, a in enumerate(accounts)]
    return TableMeta(id=table_id, game="einauge", status="ended", name="", options={},
                     seats=seats, contributions=[""] * len(seats), commitment="",
                     server_seed="", created_at=0.0, tokens=[""] * len(seats),
                     rated=True, accounts=list(accounts))


def result(*totals: int) -> dict[str, Any]:
    return {"scores": [{"seat": i, "total": t} for i, t in enumerate(totals)]}


PLAYED = ["p:0:a", "p:0:b", "p:0:c", "p:1:a", "p:1:b", "p:1:c"]


async def test_repeated_results_between_two_accounts_count_three_times_a_day_and_are_flagged(
        redis_url: str) -> None:
    """Four rated games of the same two accounts in one day: three count, the fourth
    changes nobody's rating and is flagged to the moderators once (a retry flags
    nothing more); a day later (the clock is the caller's) a game counts again."""
    client = aioredis.Redis.from_url(redis_url)
    accounts, fair, audit = AccountStore(client), FairPlayStore(client), AdminStore(client)
    a, b = unique("pa"), unique("pb")
    for uid in (a, b):
        await accounts.create_account(uid, {"username": uid, "created_at": "0"})
    flagged: list[dict[str, Any]] = []

    async def flag(entry: dict[str, Any]) -> str:
        flagged.append(entry)
        return await audit.audit_add(entry)

    async def game(tid: str, now_ms: int) -> str:
        return await fairplay.rate_finished(
            accounts, fair, flag, tid, "einauge", 3, meta([a, b], tid), Control(),
            result(10, 5), PLAYED, now_ms)

    t0 = 1_900_000_000_000
    tables = [unique("tp") for _ in range(6)]
    verdicts = [await game(tid, t0 + i * 3_600_000) for i, tid in enumerate(tables[:4])]
    assert verdicts == ["counted"] * 3 + ["capped"]
    assert (await accounts.rating(a, "einauge"))["games"] == 3
    assert (await accounts.rating(b, "einauge"))["games"] == 3
    assert await fair.verdict(tables[3]) == "capped"
    # A retry of the capped game (another process finishing it) flags nothing more.
    assert await game(tables[3], t0 + 4 * 3_600_000) == "capped"
    assert len(flagged) == 1
    assert flagged[0]["action"] == "rating_capped" and flagged[0]["target"] == tables[3]
    assert flagged[0]["detail"]["pairs"] == [sorted([a, b])]
    stream = await audit.audit(50)
    assert any(r["action"] == "rating_capped" and r["target"] == tables[3] for r in stream)
    # A retry of a counted game counts it once.
    assert await game(tables[0], t0 + 5 * 3_600_000) == "counted"
    assert (await accounts.rating(a, "einauge"))["games"] == 3
    # A day after the first three, the pair counts again.
    assert await game(tables[4], t0 + 2 * 3_600_000 + DAY + 1) == "counted"
    assert (await accounts.rating(a, "einauge"))["games"] == 4
    await client.aclose()


async def test_leaving_loses_and_goes_on_the_profile(server: ServerProcess,
                                                     redis_url: str) -> None:
    """A counted game where Ben timed out to a bot that then outscored Anna: Ben places
    last, and his profile shows one game timed out; a handover (gone) is abandoned."""
    anna, ben = Member(server.url), Member(server.url)
    await anna.sign_up(unique("la"))
    await ben.sign_up(unique("lb"))
    a, b = anna.account["id"], ben.account["id"]
    client = aioredis.Redis.from_url(redis_url)
    accounts, fair = AccountStore(client), FairPlayStore(client)

    async def flag(entry: dict[str, Any]) -> None:
        raise AssertionError(f"flagged: {entry}")

    control = Control()
    control.apply(SeatControllerChanged(1, "bot", "timeout", "greedy"))
    tid = unique("tl")
    assert await fairplay.rate_finished(accounts, fair, flag, tid, "einauge", 3,
                                        meta([a, b], tid), control, result(5, 10), PLAYED,
                                        1_900_000_000_000) == "counted"
    assert json.loads(await client.hget(f"u:{{u:{b}}}:rated", tid))["rank"] == 2
    assert json.loads(await client.hget(f"u:{{u:{a}}}:rated", tid))["rank"] == 1
    control.apply(SeatControllerChanged(0, "bot", "handover", "greedy"))
    tid2 = unique("tl")
    # Unrated tables keep the record too (the accounts of the seats).
    unrated = meta([a, b], tid2)
    unrated.rated, unrated.accounts = False, []
    assert await fairplay.rate_finished(accounts, fair, flag, tid2, "einauge", 3, unrated,
                                        control, None, [], 1_900_000_000_000) == ""
    pa = (await anna.get(f"/api/players/{anna.account['username']}")).json()
    pb = (await ben.get(f"/api/players/{ben.account['username']}")).json()
    assert pa["left"] == {"abandoned": 1, "timed_out": 0}
    assert pb["left"] == {"abandoned": 0, "timed_out": 2}
    await client.aclose()
    await anna.close()
    await ben.close()


async def test_the_farming_scenario_changes_no_rating(server: ServerProcess,
                                                      redis_url: str) -> None:
    """The outside break test: a second account makes one move and resigns; a bot plays
    its seat to the end. Nobody's rating changes, and the table says why."""
    farmer, puppet = Member(server.url), Member(server.url)
    fname, pname = unique("farm"), unique("puppet")
    await farmer.sign_up(fname)
    await puppet.sign_up(pname)
    table = await farmer.create(3, rated=True)
    tid = table["id"]
    tokens = [(await farmer.join(tid, "x", token=table["owner_token"]))["token"],
              (await puppet.join(tid, "x"))["token"]]
    await farmer.bot(tid, 2, "greedy")
    await farmer.start(tid)
    socks = [await Socket(server.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(socks, seed=5)
    try:
        # Play until the puppet has made exactly one move of its own.
        while not [f for f in socks[1].frames if f["t"] == "ack"]:
            await seats.step()
        r = await puppet.seat_call(tid, "resign", tokens[1])
        assert r.status_code == 200, r.text
        alone = Seats([socks[0]], seed=6, prefix="f")
        while not any(ended(f) for f in socks[0].frames):
            await alone.step()

        async def verdict() -> str | None:
            return (await farmer.get(f"/api/tables/{tid}/ratings")).json().get("verdict")

        assert await until(verdict, what="the table settled") == "aborted"
        for name in (fname, pname):
            profile = (await farmer.get(f"/api/players/{name}")).json()
            assert profile["ratings"].get("einauge", {"games": 0})["games"] == 0, profile
        # The bot's rated account got nothing from this table either.
        client = aioredis.Redis.from_url(redis_url)
        try:
            assert await client.hget("u:{u:bot-greedy-0}:rated", tid) is None
        finally:
            await client.aclose()
        seats_out = (await farmer.get(f"/api/tables/{tid}/ratings")).json()["seats"]
        assert all("change" not in s for s in seats_out if s)
    finally:
        for s in socks:
            await s.close()
        await farmer.close()
        await puppet.close()


@pytest.mark.parametrize("minimum", [3])
async def test_a_counted_game_shows_each_rated_players_change(server: ServerProcess,
                                                              minimum: int) -> None:
    """Two accounts each play enough, then resign; the bots finish. The table's ratings
    give each seat's change (the end screen); the anchored bot's rating does not move."""
    anna, ben = Member(server.url), Member(server.url)
    await anna.sign_up(unique("ca"))
    await ben.sign_up(unique("cb"))
    table = await anna.create(3, rated=True)
    tid = table["id"]
    tokens = [(await anna.join(tid, "x", token=table["owner_token"]))["token"],
              (await ben.join(tid, "x"))["token"]]
    await anna.bot(tid, 2, "random")
    await anna.start(tid)
    socks = [await Socket(server.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(socks, seed=9)
    try:
        def acks(s: Socket) -> int:
            return sum(f["t"] == "ack" for f in s.frames)

        while min(acks(s) for s in socks) < minimum and not any(
                ended(f) for s in socks for f in s.frames):
            await seats.step()
        for t in tokens:
            if not any(ended(f) for s in socks for f in s.frames):
                r = await anna.seat_call(tid, "resign", t)
                assert r.status_code in (200, 409), r.text

        async def settled() -> dict[str, Any] | None:
            body = (await anna.get(f"/api/tables/{tid}/ratings")).json()
            return body if body.get("verdict") else None

        body = await until(settled, timeout=120, what="the table settled")
        assert body["verdict"] == "counted"
        people, bot = body["seats"][:2], body["seats"][2]
        for row in people:
            assert row["change"]["before"] == 1500
            assert abs(row["change"]["after"] - 1500) <= ratings.MAX_CHANGE
            assert row["rating"] == row["change"]["after"]
        assert bot["change"] == {"before": 124, "after": 124}
        assert bot["rating"] == 124
    finally:
        for s in socks:
            await s.close()
        await anna.close()
        await ben.close()
