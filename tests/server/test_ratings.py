"""Ratings (server/accounts/ratings.py): places from a result, the Plackett–Luce update, and a
rated table's result applied exactly once: two settles at once, a settle that dies half
way, and two server processes with the one that stored the last action SIGKILLed."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from server.accounts import fairplay, ratings
from server.store.accounts import AccountStore
from tests.conftest import ServerProcess
from tests.server.client import Member, Seats, Socket, ended, unique
from tests.waiting import until


def result(*totals: int) -> dict:
    return {"scores": [{"seat": i, "total": t} for i, t in enumerate(totals)],
            "winners": [i for i, t in enumerate(totals) if t == max(totals)]}


def test_places_share_ties():
    assert ratings.ranks(result(10, 7, 10, 3)) == [1, 3, 1, 4]
    assert ratings.ranks({"winners": [0]}) is None
    assert ratings.ranks(None) is None


def test_a_resigned_seat_places_last_whatever_it_scored():
    assert ratings.resigned_last([1, 3, 2, 4], {0}) == [4, 2, 1, 3]
    assert ratings.resigned_last([1, 1, 3], {1, 2}) == [1, 2, 2]
    assert ratings.resigned_last([2, 1], ()) == [2, 1]


def test_the_winner_gains_tied_players_move_alike_and_new_players_are_provisional():
    out = ratings.outcome([None, None, None], [1, 2, 2])
    assert out[0]["mu1"] > ratings.MU0 > out[1]["mu1"]
    assert out[1]["mu1"] == pytest.approx(out[2]["mu1"])
    assert all(o["sigma1"] < o["sigma0"] for o in out)
    assert ratings.shown(None) == {"rating": 1500, "deviation": 500, "games": 0,
                                   "provisional": True}
    strong = {"mu": 30.0, "sigma": 2.0, "games": 40}
    assert ratings.shown(strong)["provisional"] is False
    # Beating a stronger player gains more than beating a new one.
    upset = ratings.outcome([None, strong], [1, 2])[0]["mu1"]
    assert upset > ratings.outcome([None, None], [1, 2])[0]["mu1"]


class DiesAfterOneApply(AccountStore):
    """A real store whose process 'dies' (raises) after applying one account's change."""

    applied = 0

    async def apply_rating(self, *args, **kw):  # type: ignore[no-untyped-def]
        if self.applied >= 1:
            raise ConnectionError("killed")
        self.applied += 1
        return await super().apply_rating(*args, **kw)


async def test_two_settles_at_once_and_a_settle_killed_half_way_apply_once(redis_url):
    client = aioredis.Redis.from_url(redis_url)
    store = AccountStore(client)
    uids = [unique("r") for _ in range(3)]
    tid = unique("tbl")
    res = result(12, 9, 9)
    with pytest.raises(ConnectionError):
        await ratings.settle(DiesAfterOneApply(client), tid, "einauge", uids, uids, res)
    assert (await store.rating(uids[0], "einauge"))["games"] == 1
    assert await store.rating(uids[1], "einauge") is None
    # Two processes finish the table at the same time afterwards.
    await asyncio.gather(*(ratings.settle(AccountStore(client), tid, "einauge", uids, uids, res)
                           for _ in range(2)))
    expected = ratings.outcome([None] * 3, [1, 2, 2])
    for uid, exp in zip(uids, expected, strict=True):
        r = await store.rating(uid, "einauge")
        assert r["games"] == 1
        # The model's change, capped as a whole (ratings.MAX_CHANGE).
        dmu, dsigma = ratings.capped(exp["mu1"] - exp["mu0"], exp["sigma1"] - exp["sigma0"])
        assert r["mu"] == pytest.approx(exp["mu0"] + dmu)
        assert r["sigma"] == pytest.approx(exp["sigma0"] + dsigma)
        assert list(await store.rated_history(uid)) == [tid]
    await client.aclose()


@pytest.fixture
def doomed(redis_url):
    s = ServerProcess(redis_url).start()
    yield s
    s.kill()


async def _play_rated(where: ServerProcess, creator: Member, names: list[str]) -> str:
    """A rated table of two accounts and a random bot, played to the end with both
    players' sockets on ``where``."""
    second = Member(where.url)
    await second.log_in(names[1])
    table = await creator.create(3, rated=True)
    tid = table["id"]
    tokens = [(await creator.join(tid, "x", token=table["owner_token"]))["token"],
              (await second.join(tid, "x"))["token"]]
    await creator.bot(tid, 2, "random")
    await creator.start(tid)
    sockets = [await Socket(where.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(sockets, seed=5)
    while not any(ended(f) for s in sockets for f in s.frames):
        await seats.step(20)
    return tid


async def _ratings_of(base: str, name: str) -> dict:
    m = Member(base)
    r = await m.get(f"/api/players/{name}")
    await m.close()
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("others_follow", [True, False])
async def test_rated_once_with_two_processes_and_a_sigkill_at_the_end(server, doomed,
                                                                     others_follow):
    names = [unique("a"), unique("b")]
    first = Member(doomed.url)
    await first.sign_up(names[0])
    await Member(server.url).sign_up(names[1])
    # A spectator on the surviving process follows the table (so that process finishes
    # the game itself), or nobody there does and the next load there must finish it.
    if others_follow:
        tid = await _play_with_watcher(doomed, server, first, names)
    else:
        tid = await _play_rated(doomed, first, names)
    doomed.kill()  # right after the last action's ack: whatever it finished, it stops there
    m = Member(server.url)
    async def finished() -> dict | None:
        summary = (await m.get(f"/api/tables/{tid}")).json()  # a load finishes it if needed
        return summary if summary["status"] == "ended" else None

    summary = await until(finished, what="the table ended")
    assert summary["scores"]
    profiles = [await _ratings_of(server.url, n) for n in names]
    for p in profiles:
        assert p["ratings"]["einauge"]["games"] == 1
        assert [g["id"] for g in p["recent"]] == [tid]
        assert p["recent"][0]["rating_change"]["players"] == 3
    bot = await _ratings_of(server.url, "Random")
    assert bot["bot"] is True and bot["ratings"]["einauge"]["games"] >= 1
    places = ratings.ranks({"scores": [{"total": t} for t in summary["scores"]]})
    changes = [p["recent"][0]["rating_change"] for p in profiles]
    assert [c["rank"] for c in changes] == places[:2]
    for c, p in zip(changes, profiles, strict=True):
        assert p["ratings"]["einauge"]["rating"] == c["after"]
    board = (await m.get("/api/leaderboard/einauge")).json()["players"]
    assert set(names) <= {row["username"] for row in board}
    await m.close()


async def _play_with_watcher(doomed: ServerProcess, survivor: ServerProcess, first: Member,
                             names: list[str]) -> str:
    """As ``_play_rated``, with a spectator of the table on ``survivor``."""
    second = Member(survivor.url)
    await second.log_in(names[1])
    table = await first.create(3, rated=True)
    tid = table["id"]
    tokens = [(await first.join(tid, "x", token=table["owner_token"]))["token"],
              (await second.join(tid, "x"))["token"]]
    await first.bot(tid, 2, "random")
    watch = await Socket(survivor.ws_url, tid).connect()
    await watch.wait(lambda f: f["t"] == "welcome")
    await first.start(tid)
    sockets = [await Socket(doomed.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(sockets, seed=7)
    while not any(ended(f) for s in sockets for f in s.frames):
        await seats.step(20)
    return tid


async def test_one_account_on_two_seats_is_rated_once_with_the_mean_change(redis_url):
    client = aioredis.Redis.from_url(redis_url)
    store = AccountStore(client)
    person, bot = unique("p"), unique("bot")
    tid = unique("tbl")
    await ratings.settle(store, tid, "einauge", [person, bot, bot], ["P", "B2", "B3"],
                         result(5, 9, 7))
    out = ratings.outcome([None] * 3, [3, 1, 2])
    r = await store.rating(bot, "einauge")
    assert r["games"] == 1
    # The mean of its seats' changes, capped as a whole (ratings.MAX_CHANGE).
    mean, _ = ratings.capped((out[1]["mu1"] + out[2]["mu1"]) / 2 - ratings.MU0,
                             (out[1]["sigma1"] + out[2]["sigma1"]) / 2 - ratings.SIGMA0)
    assert r["mu"] == pytest.approx(ratings.MU0 + mean)
    note = (await store.rated_history(bot))[tid]
    assert note["rank"] == 1 and note["opponents"] == ["P"]
    own, _ = ratings.capped(out[0]["mu1"] - out[0]["mu0"], out[0]["sigma1"] - out[0]["sigma0"])
    assert (await store.rating(person, "einauge"))["mu"] == pytest.approx(out[0]["mu0"] + own)
    await client.aclose()


def test_a_game_is_aborted_unless_every_person_seat_moved_itself() -> None:
    # (At least one move here; each game declares its minimum: tests/server/test_fairplay.py.)
    accounts = ["anna", "bot-random-0", "ben"]
    assert not fairplay.too_few(accounts, ["p:0:a1", "b:1:x", "p:2:a2", "p:0:a3"], 1)
    # ben never moved; a bot playing his seat (b:2:…) is no move of his
    assert fairplay.too_few(accounts, ["p:0:a1", "b:1:x", "b:2:y"], 1)
    assert fairplay.too_few(accounts, [], 1)
    assert not fairplay.too_few(["bot-random-0", "bot-greedy-0"], [], 1)


# The attack these tests guard against (found in a security review):
# B2 finding on ratings (server/accounts/ratings.py, app.game_ended): a rated game that one
# account resigns before it made a single move is rated in full. Two accounts of one
# person (same address, one after the other) farm rating points: one resigns at once, a
# bot plays its seat to the end, the other collects the win.


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

    async def over() -> bool:  # the end is settled in the background
        return (await farmer.get(f"/api/tables/{tid}")).json()["status"] == "ended"
    await until(over, 10, "the table ended")
    profile = (await farmer.get(f"/api/players/{fname}")).json()
    await sock.close()
    await farmer.close()
    await sock_puppet.close()
    got = profile["ratings"].get("einauge", {"rating": 1500, "games": 0})
    assert got["games"] == 0, f"farmer rated from a resigned-at-once game: {got}"
