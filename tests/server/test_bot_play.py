"""A program plays by its play token (docs/bot-api.md): examples/bot.py plays each game
to its end against a service bot (Loot Island from its compact ``legal_form``); a play
token's seek is paired with a person's and with another bot account's and the game is
played to the end over the websocket; a play token joins a tournament and plays its
board; a read-only token does neither."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from engine import GAMES
from server.store.embedded import EmbeddedRedis, free_port
from tests.conftest import ServerProcess
from tests.server.client import Player
from tests.server.test_bot_api import BOT, ROOT, bearer, code, make_bot, member, new_token
from tests.server.tournament_play import boards_of, swiss_body
from tests.waiting import until


def run_example(url: str, token: str, *args: str) -> tuple[dict[str, Any], str]:
    """examples/bot.py in its own process to the game's end: (its result line, what it
    wrote to stderr)."""
    done = subprocess.run([sys.executable, str(BOT), url, token, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1])), done.stderr


@pytest.mark.parametrize("game", list(GAMES))
async def test_the_example_plays_each_game_to_its_end(server, game):
    m = await member(server.url, "ex")
    try:
        token = (await new_token(m))["token"]
        result, stderr = await asyncio.to_thread(
            run_example, server.url, token, "--game", game, "--opponent", "random",
            "--seed", "11")
        # Every action it built was legal: the server refused none.
        assert "refused" not in stderr, stderr[-2000:]
        summary = (await m.http.get(f"/api/tables/{result['table']}")).json()
        assert summary["game"] == game and summary["status"] == "ended"
        assert summary["seats"][result["seat"]]["name"] == m.account["username"]  # type: ignore[index]
        # (Loot Island may end with no winner: every player eliminated.)
        assert summary["winners"] == result["winners"]
        assert len(summary["scores"]) == len(summary["seats"]) == 2
    finally:
        await m.close()


SEEK_ENV = {"CARDTABLE_SEEK_SCAN": "0.1", "CARDTABLE_SEEK_IDLE": "60",
            "CARDTABLE_SEEKS_PER_HOUR": "100000"}


@pytest.fixture(scope="module")
def seek_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server on a Redis of its own: no other test's seek waits in its pools."""
    redis = EmbeddedRedis(tmp_path_factory.mktemp("bot-seek-redis"), port=free_port())
    url = redis.start()
    server = ServerProcess(url, env=SEEK_ENV).start()
    yield server
    server.stop()
    redis.stop()


async def paired(http: httpx.AsyncClient, seek: dict[str, Any]) -> dict[str, Any]:
    """The seek's answer once it is paired (its table, seat and seat token)."""
    async def look() -> dict[str, Any] | None:
        r = await http.get(f"/api/seeks/{seek['id']}", headers=bearer(seek["seek_token"]))
        assert r.status_code == 200, r.text
        got = dict(r.json())
        return got if got["status"] == "paired" else None
    return await until(look, 30, "the seek paired")


async def play_paired(base: str, tokens: list[str], seeks: list[dict[str, Any]],
                      http: httpx.AsyncClient) -> tuple[str, list[int]]:
    """Play the paired table to its end, each seeker by its token (an API token or the
    seat token of its seek); returns the table and the seekers' seats."""
    answers = [await paired(http, s) for s in seeks]
    table = answers[0]["table"]
    assert all(a["table"] == table for a in answers)
    players = [Player(lambda: base, table, t, seed=i) for i, t in enumerate(tokens)]
    await asyncio.gather(*(p.run(120) for p in players))
    return table, [a["seat"] for a in answers]


async def ended_summary(http: httpx.AsyncClient, table: str) -> dict[str, Any]:
    """The table's summary once the service marked it ended (after the last event)."""
    async def look() -> dict[str, Any] | None:
        got = dict((await http.get(f"/api/tables/{table}")).json())
        return got if got["status"] == "ended" else None
    return await until(look, 30, "the table marked ended")


async def test_a_play_tokens_seek_is_paired_with_a_persons_and_played_out(seek_server):
    bot, person = await member(seek_server.url, "sb"), await member(seek_server.url, "sp")
    try:
        await make_bot(bot)
        token = (await new_token(bot))["token"]
        api = httpx.AsyncClient(base_url=seek_server.url)
        body = {"game": "keltis", "seats": 2}
        mine = await api.post("/api/seeks", json=body, headers=bearer(token))
        assert mine.status_code == 201, mine.text
        theirs = await person.http.post("/api/seeks", json=body)
        assert theirs.status_code == 201, theirs.text
        their_seat = await paired(api, theirs.json())
        # The program plays by its API token (its account's seat), the person by the
        # seat token its seek gave.
        table, seats = await play_paired(seek_server.ws_url, [token, their_seat["token"]],
                                          [mine.json(), theirs.json()], api)
        summary = await ended_summary(api, table)
        assert len(summary["scores"]) == 2
        names = [summary["seats"][s]["name"] for s in seats]
        assert names == [bot.account["username"], person.account["username"]]  # type: ignore[index]
        assert summary["seats"][seats[0]]["bot_account"] is True
        await api.aclose()
    finally:
        await bot.close()
        await person.close()


async def test_two_bot_accounts_seek_a_rated_game_and_play_it_out(seek_server):
    bots = [await member(seek_server.url, "rb") for _ in range(2)]
    try:
        tokens = []
        for b in bots:
            await make_bot(b)
            tokens.append((await new_token(b))["token"])
        api = httpx.AsyncClient(base_url=seek_server.url)
        body = {"game": "einauge", "seats": 2, "rated": True}
        seeks = []
        for t in tokens:
            r = await api.post("/api/seeks", json=body, headers=bearer(t))
            assert r.status_code == 201, r.text
            seeks.append(r.json())
        table, seats = await play_paired(seek_server.ws_url, tokens, seeks, api)
        summary = await ended_summary(api, table)
        assert summary["rated"] is True
        assert sorted(seats) == [0, 1]
        assert all(s["bot_account"] for s in summary["seats"])
        await api.aclose()
    finally:
        for b in bots:
            await b.close()


async def test_a_read_only_token_neither_seeks_nor_joins_a_tournament(seek_server):
    m = await member(seek_server.url, "ro")
    try:
        await make_bot(m)
        read = (await new_token(m, "read", "watcher"))["token"]
        api = httpx.AsyncClient(base_url=seek_server.url)
        before = (await api.get("/api/seeks")).json()["pools"]
        assert code(await api.post("/api/seeks", json={"game": "keltis", "seats": 2},
                                   headers=bearer(read))) == (403, "read_only")
        assert (await api.get("/api/seeks")).json()["pools"] == before
        cup = await m.create_tournament(**swiss_body(rounds=1))
        assert code(await api.post(f"/api/tournaments/{cup['id']}/join",
                                   headers=bearer(read))) == (403, "read_only")
        got = (await api.get(f"/api/tournaments/{cup['id']}", headers=bearer(read))).json()
        assert got["players"] == 0 and got["me"]["joined"] is False  # reading is allowed
        await api.aclose()
    finally:
        await m.close()


async def test_a_play_token_joins_a_rated_tournament_and_plays_its_board(server):
    bot, person = await member(server.url, "tb"), await member(server.url, "tp")
    try:
        await make_bot(bot)
        token = (await new_token(bot))["token"]
        api = httpx.AsyncClient(base_url=server.url)
        cup = await person.create_tournament(**swiss_body(rounds=1))
        tid = cup["id"]
        joined = await api.post(f"/api/tournaments/{tid}/join", headers=bearer(token))
        assert joined.status_code == 200, joined.text
        assert joined.json()["me"]["joined"] is True
        assert (await person.tournament_call(tid, "join")).status_code == 200
        assert (await person.tournament_call(tid, "start")).json()["status"] == "running"
        board = (await boards_of(person, tid, 1))[0]
        # The program finds its board as the browser does (``me.board``), by its token.
        me = (await api.get(f"/api/tournaments/{tid}", headers=bearer(token))).json()["me"]
        assert me["board"]["table"] == board["table"]
        held = await person.seat_token(board["table"])
        players = [Player(lambda: server.ws_url, board["table"], token, seed=1),
                   Player(lambda: server.ws_url, board["table"], held["token"], seed=2)]
        await asyncio.gather(*(p.run(120) for p in players))

        async def finished() -> dict[str, Any] | None:
            t = (await api.get(f"/api/tournaments/{tid}")).json()
            return t if t["status"] == "finished" else None
        t = await until(finished, 30, "the tournament finished")
        names = {row["player"] for row in t["standings"]}
        assert names == {bot.account["username"], person.account["username"]}  # type: ignore[index]
        await api.aclose()
    finally:
        await bot.close()
        await person.close()


async def test_a_play_token_accepts_an_invitation_and_plays_the_game(server):
    # A person invites the bot account by name to a private table; the program finds the
    # invitation with its token, takes the seat by it and plays the game to the end.
    bot, person = await member(server.url, "ib"), await member(server.url, "ip")
    api = httpx.AsyncClient(base_url=server.url)
    try:
        await make_bot(bot)
        token = (await new_token(bot))["token"]
        table = await person.create(2, game="einauge", private=True)
        tid = table["id"]
        mine = await person.join(tid, "x", token=table["owner_token"], key=table["invite_key"])
        name = bot.account["username"]  # type: ignore[index]
        r = await person.http.post(f"/api/tables/{tid}/invitations", json={"name": name},
                                   headers=bearer(table["owner_token"]))
        assert r.status_code in (200, 201), r.text
        got = await api.get("/api/me/invitations", headers=bearer(token))
        assert got.status_code == 200, got.text
        assert [i["table"] for i in got.json()["invitations"]] == [tid]
        # Without the invitation (and without the key) the private table is not there.
        r = await api.post(f"/api/tables/{tid}/join", json={"name": "x"}, headers=bearer(token))
        assert r.status_code == 404, r.text
        seat = await api.post(f"/api/tables/{tid}/join", json={"name": "x", "invited": True},
                              headers=bearer(token))
        assert seat.status_code == 200, seat.text
        await person.start(tid)
        players = [Player(lambda: server.ws_url, tid, token, seed=1),
                   Player(lambda: server.ws_url, tid, mine["token"], seed=2)]
        await asyncio.gather(*(p.run(120) for p in players))
        # The private table's summary, to the program by its token (it holds a seat).
        api.headers.update(bearer(token))
        summary = await ended_summary(api, tid)
        assert summary["seats"][seat.json()["seat"]]["name"] == name
        assert summary["seats"][seat.json()["seat"]]["bot_account"] is True
        assert (await api.get("/api/me/invitations", headers=bearer(token))).json()[
            "invitations"] == []  # used up
    finally:
        await api.aclose()
        await bot.close()
        await person.close()
