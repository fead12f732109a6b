"""``POST /api/tables/{id}/branch`` (server/http/branch.py) through a real server and
Redis, for every game: a finished game's position becomes a new private, unrated table
with the caller in the chosen seat and bots elsewhere, started at that very position
(the public part and the seat's hand as they were), where the caller moves; refused for
a running game, a bad position or seat, and past the limit."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from engine import get_game
from tests.conftest import ServerProcess, stored_entries
from tests.server.client import Lobby, Socket, ended, one_hour, prompt_actions

LIMIT = 12
SEATS = {"einauge": 3, "keltis": 2, "loot-island": 3}


async def finished(srv: ServerProcess, lobby: Lobby, game: str) -> dict[str, Any]:
    """A table of random bots of ``game``, played to its end; its create answer."""
    table = await lobby.create(SEATS[game], game)
    for seat in range(SEATS[game]):
        await lobby.bot(table["id"], seat)
    watcher = await Socket(srv.ws_url, table["id"]).connect()
    await lobby.start(table["id"], table["owner_token"])
    await watcher.wait(ended, timeout=120)
    await watcher.close()
    return table


def alone_to_move(record: dict[str, Any]) -> tuple[int, int]:
    """A position in the middle third of ``record`` where one seat alone is to move:
    ``(index, seat)``. The bots wait for that seat there, so its view stays put."""
    game = get_game(record["game"])
    n = len(record["actions"])
    for index in range(n // 3, n):
        state, _ = game.replay_record({**record, "actions": record["actions"][:index]})
        seats = game.to_move(state)
        if len(seats) == 1:
            return index, seats[0]
    raise AssertionError("no position with one seat to move")


@pytest.mark.parametrize("game_name", sorted(SEATS))
async def test_branch_plays_on_from_the_position(own_redis, game_name, tmp_path):
    # Its clock stopped within one hour: the hourly branch count does not start again.
    srv = ServerProcess(own_redis.url, env={"CARDTABLE_BRANCHES_PER_HOUR": str(LIMIT),
                                            **one_hour(tmp_path / "clock")}).start()
    lobby = Lobby(srv.url)
    try:
        source = await finished(srv, lobby, game_name)
        sid = source["id"]
        record = (await lobby.get(f"/api/tables/{sid}/record")).json()
        game = get_game(game_name)
        index, seat = alone_to_move(record)

        r = await lobby.branch(sid, {"index": index, "seat": seat, "name": "Ann"})
        assert r.status_code == 201, r.text
        answer = r.json()
        table = answer["table"]
        assert answer["seat"] == seat and answer["token"] and answer["invite"]
        assert table["status"] == "running" and table["private"] and not table["rated"]
        assert table["branch"] == {"table": sid, "index": index, "seat": seat}
        assert [s["kind"] for s in table["seats"]] == [
            "human" if i == seat else "bot" for i in range(SEATS[game_name])]
        assert table["seats"][seat]["name"] == "Ann"
        assert {s.get("bot") for s in table["seats"] if s["kind"] == "bot"} == {"mcts"}
        listed = (await lobby.get("/api/tables")).json()
        assert table["id"] not in str(listed)  # private: listed nowhere

        # The position as the source had it, seen by the seat and by a spectator.
        names = [s["name"] for s in table["seats"]]
        want, _ = game.replay_record({**record, "players": names,
                                      "actions": record["actions"][:index]})
        me = await Socket(srv.ws_url, table["id"]).connect(answer["token"])
        welcome = await me.wait(lambda f: f["t"] == "welcome")
        prompt = await me.wait(lambda f: f["t"] == "prompt")
        assert welcome["view"] == game.view(want, seat)
        watcher = await Socket(srv.ws_url, table["id"]).connect(key=answer["invite"])
        seen = await watcher.wait(lambda f: f["t"] == "welcome")
        assert seen["view"] == game.view(want, None)
        # The stream holds the source's actions, then the caller's move is the next.
        entries = stored_entries(redis.Redis.from_url(own_redis.url), table["id"])
        assert [e["a"] for e in entries if "a" in e] == record["actions"][:index]

        action = prompt_actions(prompt, game_name)[0]
        await me.send({"t": "action", "id": "b1", "action": action})
        await me.wait(lambda f: f["t"] == "ack" and f["id"] == "b1")
        await me.wait(lambda f: f["t"] == "deltas" and any(
            e.get("event", {}).get("seat") == seat for e in f["events"]))
        await me.close()
        await watcher.close()

        # Refusals, each changing nothing.
        last = len(record["actions"])
        for body, status, code in [
                ({"index": last + 1, "seat": 0}, 400, "bad_index"),
                ({"index": 0, "seat": SEATS[game_name]}, 400, "bad_message"
                 if SEATS[game_name] > 15 else "bad_seat"),
                ({"index": last, "seat": 0}, 400, "game_over"),
                ({"index": 0, "seq": 1, "seat": 0}, 400, "bad_message"),
                ({"seat": 0}, 400, "bad_message"),
                ({"index": "1", "seat": 0}, 400, "bad_message")]:
            r = await lobby.branch(sid, body)
            assert (r.status_code, r.json()["error"]["code"]) == (status, code), (body, r.text)
        r = await lobby.branch("nope", {"index": 0, "seat": 0})
        assert (r.status_code, r.json()["error"]["code"]) == (404, "no_table")
    finally:
        await lobby.close()
        srv.stop()


async def test_branch_by_seq_refused_running_and_limited(own_redis, tmp_path):
    # Its clock stopped within one hour: the hourly branch count does not start again.
    srv = ServerProcess(own_redis.url, env={"CARDTABLE_BRANCHES_PER_HOUR": "3",
                                            **one_hour(tmp_path / "clock")}).start()
    lobby = Lobby(srv.url)
    try:
        running = await lobby.create(2, "keltis")
        await lobby.join(running["id"], "Ann", 0)
        await lobby.bot(running["id"], 1)
        await lobby.start(running["id"], running["owner_token"])
        r = await lobby.branch(running["id"], {"index": 0, "seat": 0})
        assert (r.status_code, r.json()["error"]["code"]) == (409, "not_ended")

        source = await finished(srv, lobby, "keltis")
        entries = stored_entries(redis.Redis.from_url(own_redis.url), source["id"])
        firsts = [k + 1 for k, e in enumerate(entries) if "a" in e]  # each action's seq
        # A replay position counts the actions begun by then: at an action's first
        # event, that action too; at the event before it, not.
        for seq, index in [(1, 0), (firsts[3], 4), (firsts[3] - 1, 3)]:
            r = await lobby.branch(source["id"], {"seq": seq, "seat": 1})
            assert r.status_code == 201, r.text
            assert r.json()["table"]["branch"]["index"] == index
        r = await lobby.branch(source["id"], {"seq": 1, "seat": 1})
        assert (r.status_code, r.json()["error"]["code"]) == (429, "rate_limited")
    finally:
        await lobby.close()
        srv.stop()
