"""Quick pairing's HTTP API and socket (server/http/seeks.py, docs/protocol.md §7) on one
server process with its own Redis and a clock the test moves: validation, ownership,
cancel, expiry, bots after the seeker's wait, one open seek per account, the rate limit."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from protocol import Lobby, Member, watch_seek
from server.store.embedded import EmbeddedRedis, free_port
from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Socket
from tests.waiting import until

ENV = {"CARDTABLE_SEEK_SCAN": "0.1", "CARDTABLE_SEEK_IDLE": "60",
       "CARDTABLE_SEEKS_PER_HOUR": "100000"}


@pytest.fixture(scope="module")
def clock(tmp_path_factory: pytest.TempPathFactory) -> ClockFile:
    return ClockFile(tmp_path_factory.mktemp("clock") / "clock")


@pytest.fixture(scope="module")
def seek_server(tmp_path_factory: pytest.TempPathFactory, clock: ClockFile
                ) -> Iterator[ServerProcess]:
    """A server on a Redis of its own: no other process pairs from these pools."""
    redis = EmbeddedRedis(tmp_path_factory.mktemp("seek-redis"), port=free_port())
    url = redis.start()
    server = ServerProcess(url, env={**ENV, **clock.env}).start()
    yield server
    server.stop()
    redis.stop()


@pytest.fixture
def lobby(seek_server: ServerProcess) -> Iterator[Lobby]:
    yield Lobby(seek_server.url)


@pytest.fixture(autouse=True)
def clock_back(clock: ClockFile) -> Iterator[None]:
    yield
    clock.set(0.0)


async def pools(lobby: Lobby) -> dict[str, int]:
    r = await lobby.get("/api/seeks")
    assert r.status_code == 200
    return r.json()["pools"]


async def status(lobby: Lobby, seek: dict) -> dict:
    r = await lobby.seek_call("GET", seek["id"], seek["seek_token"])
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize(("body", "code"), [
    ({"seats": 2}, "bad_message"),
    ({"game": "chess", "seats": 2}, "no_game"),
    ({"game": "keltis", "seats": 5}, "bad_message"),
    ({"game": "einauge", "seats": 1}, "bad_message"),
    ({"game": "einauge", "seats": 2, "time_control": {"kind": "none"}}, "bad_message"),
    ({"game": "einauge", "seats": 2, "time_control": {"kind": "live", "preset": "x"}},
     "bad_message"),
    ({"game": "einauge", "seats": 2, "rated": "yes"}, "bad_message"),
    ({"game": "einauge", "seats": 2, "bots_after": -1}, "bad_message"),
    ({"game": "einauge", "seats": 2, "bots_after": 3601}, "bad_message"),
    ({"game": "einauge", "seats": 2, "name": "Random bot 2"}, "bad_message"),
    ({"game": "einauge", "seats": 2, "colour": "red"}, "bad_message"),
])
async def test_bad_seeks_are_refused_and_change_nothing(lobby, body, code):
    before = await pools(lobby)
    r = await lobby.http.post("/api/seeks", json=body)
    assert r.status_code == 400 and r.json()["error"]["code"] == code, r.text
    assert await pools(lobby) == before


async def test_a_rated_seek_needs_an_account(lobby):
    r = await lobby.http.post("/api/seeks", json={"game": "einauge", "seats": 2,
                                                  "rated": True})
    assert r.status_code == 403 and r.json()["error"]["code"] == "account_needed"


async def test_only_the_seek_token_reads_or_cancels_a_seek(lobby, seek_server):
    mine = await lobby.seek("keltis", 3, name="Ada")
    assert mine["status"] == "waiting" and mine["time_control"] == {
        "kind": "live", "preset": "normal"}  # seeks always have a clock
    other = await lobby.seek("keltis", 4)
    for token in (None, other["seek_token"], "x" * 22):
        for method in ("GET", "DELETE"):
            r = await lobby.seek_call(method, mine["id"], token)
            assert r.status_code == 404 and r.json()["error"]["code"] == "no_seek"
    r = await lobby.seek_call("GET", "keltis.unknown", mine["seek_token"])
    assert r.status_code == 404
    assert (await status(lobby, mine))["status"] == "waiting"
    for s in (mine, other):
        r = await lobby.seek_call("DELETE", s["id"], s["seek_token"])
        assert r.status_code == 200 and r.json()["status"] == "cancelled"
        assert (await status(lobby, s))["status"] == "cancelled"
        r = await lobby.seek_call("DELETE", s["id"], s["seek_token"])
        assert r.status_code == 409 and r.json()["error"]["code"] == "seek_ended"
    frames, code = await watch_seek(seek_server.ws_url, mine["id"], mine["seek_token"])
    assert code == 1000 and [f["status"] for f in frames] == ["cancelled"]
    frames, code = await watch_seek(seek_server.ws_url, mine["id"], other["seek_token"])
    assert (frames, code) == ([], 4004)


async def test_two_seekers_are_seated_at_one_running_table(lobby, seek_server):
    a = await lobby.seek("einauge", 2, name="Ada")
    live: list[dict] = []
    watching = asyncio.create_task(watch_seek(seek_server.ws_url, a["id"], a["seek_token"],
                                              frames=live))
    await until(lambda: live, what="the seek socket's first frame")
    assert live[0]["status"] == "waiting"
    b = await lobby.seek("einauge", 2, {"kind": "live", "preset": "normal"}, name="Bo")
    frames, code = await watching
    assert code == 1000 and frames[-1]["status"] == "paired"
    got = [await until(lambda s=s: _paired(lobby, s), what="paired") for s in (a, b)]
    assert got[0]["table"] == got[1]["table"] == frames[-1]["table"]
    assert frames[-1]["token"] == got[0]["token"]
    assert sorted(g["seat"] for g in got) == [0, 1]
    table = (await lobby.get(f"/api/tables/{got[0]['table']}")).json()
    assert table["status"] == "running"
    assert {s["name"] for s in table["seats"]} == {"Ada", "Bo"}
    assert table["time_control"]["kind"] == "live"
    # Each seat token plays its own seat.
    for g in got:
        sock = await Socket(seek_server.ws_url, g["table"]).connect(token=g["token"])
        welcome = next(f for f in sock.frames if f["t"] == "welcome")
        assert welcome["seat"] == g["seat"]
        await sock.close()
    # A paired seek cannot be cancelled.
    r = await lobby.seek_call("DELETE", a["id"], a["seek_token"])
    assert r.status_code == 409 and r.json()["error"]["code"] == "seek_paired"


async def _paired(lobby: Lobby, seek: dict) -> dict | None:
    s = await status(lobby, seek)
    return s if s["status"] == "paired" else None


async def test_a_seek_not_polled_expires(lobby, clock):
    seek = await lobby.seek("loot-island", 5)
    assert (await pools(lobby))["loot-island"] == 1
    clock.set(61.0)  # past CARDTABLE_SEEK_IDLE, without a poll meanwhile
    await until(lambda: _pool_empty(lobby, "loot-island"), what="the seek expired")
    assert (await status(lobby, seek))["status"] == "expired"
    r = await lobby.seek_call("DELETE", seek["id"], seek["seek_token"])
    assert r.status_code == 409 and r.json()["error"]["code"] == "seek_ended"


async def test_a_polled_seek_lives_on(lobby, clock):
    polled = await lobby.seek("loot-island", 4)
    left = await lobby.seek("loot-island", 3)
    clock.set(40.0)
    assert (await status(lobby, polled))["status"] == "waiting"  # seen at +40 s
    clock.set(61.0)  # the other one's 60 s are over; the polled one was seen 21 s ago
    # The pass that expired the one left alone judged both at the same time.
    await until(lambda: _pool_size(lobby, "loot-island", 1), what="one seek expired")
    assert (await status(lobby, left))["status"] == "expired"
    assert (await status(lobby, polled))["status"] == "waiting"
    await lobby.seek_call("DELETE", polled["id"], polled["seek_token"])


async def _pool_empty(lobby: Lobby, game: str) -> bool:
    return (await pools(lobby))[game] == 0


async def _pool_size(lobby: Lobby, game: str, n: int) -> bool:
    return (await pools(lobby))[game] == n


async def test_bots_fill_the_empty_seats_after_the_seekers_wait(lobby, clock):
    seek = await lobby.seek("keltis", 3, {"kind": "live", "preset": "fast"}, bots_after=30)
    clock.set(29.0)
    assert (await status(lobby, seek))["status"] == "waiting"
    clock.set(31.0)
    got = await until(lambda: _paired(lobby, seek), what="seated with bots")
    table = (await lobby.get(f"/api/tables/{got['table']}")).json()
    assert table["status"] == "running"
    assert [s["kind"] for s in table["seats"]] == ["human", "bot", "bot"]
    assert got["seat"] == 0


async def test_one_open_seek_per_account_and_game(seek_server):
    member = Member(seek_server.url)
    await member.sign_up("seeker1")
    first = await member.seek("einauge", 3, rated=True)
    r = await member.http.post("/api/seeks", json={"game": "einauge", "seats": 4})
    assert r.status_code == 409 and r.json()["error"]["code"] == "seek_open"
    other_game = await member.seek("keltis", 2, {"kind": "async", "days": 1}, rated=True)
    assert (await member.seek_call("DELETE", first["id"], first["seek_token"])).status_code \
        == 200
    again = await member.seek("einauge", 4)
    for s in (other_game, again):
        assert (await member.seek_call("DELETE", s["id"], s["seek_token"])).status_code == 200
    await member.close()


async def test_seeks_are_rate_limited_per_address(tmp_path, redis_url):
    server = ServerProcess(redis_url, env={"CARDTABLE_SEEKS_PER_HOUR": "2"}).start()
    try:
        lobby = Lobby(server.url, local_address="127.0.0.9")
        made = [await lobby.seek("keltis", 4, {"kind": "async", "days": 3}) for _ in range(2)]
        r = await lobby.http.post("/api/seeks", json={"game": "keltis", "seats": 4})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        for s in made:
            await lobby.seek_call("DELETE", s["id"], s["seek_token"])
    finally:
        server.stop()


async def test_seek_metrics_are_served(lobby):
    r = await lobby.get("/metrics")
    assert "cardtable_seeks_total" in r.text and "cardtable_seek_pool" in r.text


async def test_two_accounts_are_paired_at_a_rated_table(seek_server):
    members = [Member(seek_server.url) for _ in range(2)]
    for i, m in enumerate(members):
        await m.sign_up(f"rated{i}")
    made = [await m.seek("einauge", 2, rated=True) for m in members]
    got = [await until(lambda m=m, s=s: _paired(m, s), what="paired")
           for m, s in zip(members, made, strict=True)]
    assert got[0]["table"] == got[1]["table"]
    table = (await members[0].get(f"/api/tables/{got[0]['table']}")).json()
    assert table["rated"] and table["status"] == "running"
    assert sorted(s["name"] for s in table["seats"]) == ["rated0", "rated1"]
    assert all(s.get("account") for s in table["seats"])
    # Each account holds its seat (its games; continuing on another device).
    for m, g in zip(members, got, strict=True):
        held = (await m.get(f"/api/me/tables/{g['table']}")).json()
        assert held["seat"] == g["seat"], held
        await m.close()
