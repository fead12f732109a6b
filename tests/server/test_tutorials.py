"""``POST /api/tutorials`` (server/http/tutorials.py, server/table/tutorial.py) on a real
server process and Redis: a tutorial table is private, unrated, clockless and running,
the learner in seat 0 and a ``tutorial`` bot beside; its deal is the game's chosen one
(the fixed public seed), and its bot answers the learner's moves the same at every
tutorial table; bad input changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import GAMES
from engine.shuffle import commitment
from server.table.tutorial import tutorial_seed
from tests.server.client import Lobby, Member, Player, Socket, events_of, prompt_actions, unique


async def new_tutorial(lobby: Lobby, game: str, **extra: Any) -> dict[str, Any]:
    r = await lobby.http.post("/api/tutorials", json={"game": game, **extra})
    assert r.status_code == 201, r.text
    return r.json()


async def first_moves(server: Any, lobby: Lobby, game: str, moves: int) -> list[dict]:
    """The events of a new tutorial table of ``game`` up to the learner's ``moves``-th
    move, the learner choosing with the same seeded generator every time."""
    t = await new_tutorial(lobby, game)
    tid = t["table"]["id"]
    sock = await Socket(server.ws_url, tid).connect(token=t["token"], key=t["invite_key"])
    rng = random.Random(5)
    seq, seen = 0, 0
    for n in range(moves):
        prompt = await sock.wait(lambda f: f["t"] == "prompt", start=seen)
        seen = sock.frames.index(prompt) + 1
        await sock.send({"t": "action", "id": f"m{n}", "seq": prompt["seq"],
                         "action": rng.choice(prompt_actions(prompt, game))})
        seq = (await sock.wait(lambda f, n=n: f["t"] == "ack" and f["id"] == f"m{n}"))["seq"]
    await sock.wait(lambda f: f["t"] == "deltas" and f["seq"] >= seq)
    await sock.close()
    return [e["event"] for e in events_of([f for f in sock.frames if f["t"] == "deltas"])
            if e["seq"] <= seq]


@pytest.mark.parametrize("game", list(GAMES))
async def test_a_tutorial_is_a_private_unrated_running_table_on_the_chosen_deal(
        server: Any, game: str) -> None:
    lobby = Lobby(server.url)
    t = await new_tutorial(lobby, game, name="Lena")
    s = t["table"]
    assert t["seat"] == 0 and t["token"] and t["invite_key"]
    assert s["game"] == game and s["status"] == "running"
    assert s["private"] is True and s["rated"] is False
    assert s["time_control"]["kind"] == "none"
    assert s["seats"][0]["name"] == "Lena" and s["seats"][0]["kind"] == "human"
    assert [x["kind"] for x in s["seats"][1:]] == ["bot"] * (len(s["seats"]) - 1)
    assert {x["bot"] for x in s["seats"][1:]} == {"tutorial"}
    # The fixed, public seed: its commitment, and no contribution of anyone.
    assert s["commitment"] == commitment(tutorial_seed(game))
    assert s["contributions"] == [""] * len(s["seats"])
    # Private: not listed, not shown without the invite key.
    listed = (await lobby.http.get("/api/tables")).json()["tables"]
    assert s["id"] not in {x["id"] for x in listed}
    assert (await lobby.http.get(f"/api/tables/{s['id']}")).status_code == 404
    shown = await lobby.http.get(f"/api/tables/{s['id']}",
                                 headers={"X-Table-Key": t["invite_key"]})
    assert shown.status_code == 200 and shown.json()["status"] == "running"
    # The chosen deal: a second tutorial deals the learner the same game.
    view = (await lobby.http.get(f"/api/tables/{s['id']}/view",
                                 headers={"Authorization": f"Bearer {t['token']}"})).json()
    t2 = await new_tutorial(lobby, game, name="Lena")
    view2 = (await lobby.http.get(f"/api/tables/{t2['table']['id']}/view",
                                  headers={"Authorization": f"Bearer {t2['token']}"})).json()
    assert view.get("hand", view) == view2.get("hand", view2)
    await lobby.close()


@pytest.mark.parametrize("game", list(GAMES))
async def test_the_tutorial_bot_answers_the_same_moves_the_same(server: Any, game: str) -> None:
    lobby = Lobby(server.url)
    a = await first_moves(server, lobby, game, 4)
    b = await first_moves(server, lobby, game, 4)
    assert any(e.get("seat", 0) != 0 or e.get("player", 0) != 0 for e in a)
    assert a == b
    await lobby.close()


async def test_an_account_sits_as_itself_and_holds_the_seat(server: Any) -> None:
    member = Member(server.url)
    name = unique("learner")
    await member.sign_up(name)
    r = await member.http.post("/api/tutorials", json={"game": "einauge", "name": "Other"})
    assert r.status_code == 201, r.text
    t = r.json()
    assert t["table"]["seats"][0]["name"] == name and t["table"]["seats"][0]["account"]
    held = await member.seat_token(t["table"]["id"])
    assert held["seat"] == 0
    await member.close()


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"game": "chess"}, 400, "no_game"),
    ({}, 400, "bad_message"),
    ({"game": "einauge", "seats": 4}, 400, "bad_message"),
    ({"game": "einauge", "name": ""}, 400, "bad_message"),
    ([], 400, "bad_message"),
])
async def test_bad_input_is_refused_and_creates_nothing(server: Any, body: Any, status: int,
                                                        code: str) -> None:
    lobby = Lobby(server.url)
    before = (await lobby.http.get("/api/tables?status=running")).json()["tables"]
    r = await lobby.http.post("/api/tutorials", json=body)
    assert r.status_code == status and r.json()["error"]["code"] == code, r.text
    after = (await lobby.http.get("/api/tables?status=running")).json()["tables"]
    assert {x["id"] for x in after} <= {x["id"] for x in before}
    await lobby.close()


async def test_a_tutorials_rematch_is_an_ordinary_game_against_its_bot(server: Any) -> None:
    """After the lesson's game, a rematch is a game like any other: a random deal and the
    bot the tutorial's played as (greedy), so no coach follows the learner there."""
    lobby = Lobby(server.url)
    t = await new_tutorial(lobby, "einauge")
    tid = t["table"]["id"]
    learner = Player(lambda: server.ws_url, tid, t["token"], seed=3)
    await learner.run(120)
    assert learner.done
    r = await lobby.rematch(tid, t["token"])
    assert r.status_code in (200, 201), r.text
    again = r.json()["table"]
    assert [x.get("bot") for x in again["seats"] if x["kind"] == "bot"] == ["greedy"]
    assert again["commitment"] != commitment(tutorial_seed("einauge"))
