"""Bad input over the websocket and HTTP: the right error or close code, nothing changes,
and the other clients of the table carry on."""

from __future__ import annotations

import secrets

import pytest

from tests.server.client import Lobby, Socket, pack


async def two_player_table(lobby: Lobby) -> tuple[str, list[str]]:
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, name))["token"] for name in ("Anna", "Ben")]
    await lobby.start(tid)  # the owner (host) starts
    return tid, tokens


@pytest.fixture
async def game(server):
    """A started 2-seat table with both players and a spectator connected."""
    lobby = Lobby(server.url)
    tid, tokens = await two_player_table(lobby)
    players = [await Socket(server.ws_url, tid).connect(token=t) for t in tokens]
    spectator = await Socket(server.ws_url, tid).connect()
    welcomes = [await s.wait(lambda f: f["t"] == "welcome") for s in (*players, spectator)]
    yield {"lobby": lobby, "tid": tid, "tokens": tokens, "players": players,
           "spectator": spectator, "welcome": welcomes[0]}
    for s in (*players, spectator):
        await s.close()
    await lobby.close()


async def current_view(lobby: Lobby, tid: str) -> dict:
    return (await lobby.get(f"/api/tables/{tid}/view")).json()


async def test_out_of_turn_and_illegal_actions_are_refused_and_change_nothing(game):
    lobby, tid = game["lobby"], game["tid"]
    before = await current_view(lobby, tid)
    mover = before["current_seat"]
    other = 1 - mover
    prompt = await game["players"][mover].wait(lambda f: f["t"] == "prompt")
    legal = prompt["legal_actions"][0]
    assert all(f["t"] != "prompt" for f in game["players"][other].frames)

    wrong = game["players"][other]
    await wrong.send({"t": "action", "id": "x1", "action": {**legal, "seat": other}})
    err = await wrong.wait(lambda f: f["t"] == "error")
    assert err["code"] == "not_your_turn" and err["id"] == "x1"

    await wrong.send({"t": "action", "id": "x2", "action": {**legal, "seat": mover}})
    err = await wrong.wait(lambda f: f["t"] == "error" and f["id"] == "x2")
    assert err["code"] == "not_your_seat"

    mine = game["players"][mover]
    await mine.send({"t": "action", "id": "x3", "action": {"type": "buy", "card": "blue-99"}})
    err = await mine.wait(lambda f: f["t"] == "error" and f["id"] == "x3")
    assert err["code"] not in ("bad_message", "unavailable") and err["message"]

    await mine.send({"t": "action", "id": "x4", "action": {"type": "teleport"}})
    err = await mine.wait(lambda f: f["t"] == "error" and f["id"] == "x4")
    assert err["code"] == "bad_message"

    spectator = game["spectator"]
    await spectator.send({"t": "action", "id": "x5", "action": legal})
    err = await spectator.wait(lambda f: f["t"] == "error")
    assert err["code"] == "spectator"
    assert await current_view(lobby, tid) == before

    # The table still works: the mover's legal action is accepted and everyone sees it.
    await mine.send({"t": "action", "id": "ok1", "action": legal})
    ack = await mine.wait(lambda f: f["t"] == "ack")
    assert ack["id"] == "ok1" and ack["seq"] > before["seq"]
    for s in (*game["players"], spectator):
        await s.wait(lambda f, seq=ack["seq"]: f["t"] == "deltas" and f["seq"] == seq)


async def test_a_resent_action_id_gets_the_original_ack_and_is_applied_once(game):
    lobby, tid = game["lobby"], game["tid"]
    before = await current_view(lobby, tid)
    mine = game["players"][before["current_seat"]]
    prompt = await mine.wait(lambda f: f["t"] == "prompt")
    msg = {"t": "action", "id": "same", "action": prompt["legal_actions"][0]}
    await mine.send(msg)
    first = await mine.wait(lambda f: f["t"] == "ack")
    seen = len(mine.frames)
    await mine.send(msg)
    await mine.wait(lambda f: f["t"] == "ack", start=seen)
    # A socket's frames are handled in order: the sync's welcome comes after anything
    # the resent action could still bring.
    seen = len(mine.frames)
    await mine.send({"t": "sync"})
    await mine.wait(lambda f: f["t"] == "welcome", start=seen)
    acks = [f for f in mine.frames if f["t"] == "ack"]
    assert len(acks) == 2 and acks[0] == acks[1] == first
    assert (await current_view(lobby, tid))["seq"] == first["seq"]


async def test_malformed_frames(game, server):
    tid = game["tid"]
    s = await Socket(server.ws_url, tid).connect()
    await s.wait(lambda f: f["t"] == "welcome")
    for bad in ({"t": "action"}, {"t": "nope"}, {"t": "action", "id": "a" * 65, "action": {}},
                {"t": "action", "id": "a", "action": {"type": ["x"]}},
                {"t": "sync", "extra": 1}, {"t": "hello", "last_seq": -1}):
        await s.send(bad)
    await s.send({"t": "sync"})
    await s.wait(lambda f: f["t"] == "welcome" and f["view"] is not None and
                 len([g for g in s.frames if g["t"] == "welcome"]) == 2)
    errors = [f for f in s.frames if f["t"] == "error"]
    assert len(errors) == 6 and {e["code"] for e in errors} == {"bad_message"}

    await s.send_raw(b"\xc1\xff\x00")  # not msgpack
    assert await s.wait_closed() == 1003
    j = await Socket(server.ws_url, tid, binary=False).connect()
    await j.wait(lambda f: f["t"] == "welcome")
    await j.send_raw("{not json")
    assert await j.wait_closed() == 1003
    t = await Socket(server.ws_url, tid).connect()
    await t.wait(lambda f: f["t"] == "welcome")
    await t.send_raw(pack([1, 2, 3]))  # msgpack, but not an object
    assert await t.wait_closed() == 1003


async def test_numbers_and_flags_are_taken_only_as_such(game, server):
    """Strict types: ``"5"``, ``true`` and ``5.0`` are not a seq (no silent coercion)."""
    for binary in (True, False):
        for last_seq in ("5", True, 5.0, "x"):
            s = await Socket(server.ws_url, game["tid"], binary=binary).connect(
                last_seq=last_seq)
            assert await s.wait_closed() == 1008, (binary, last_seq)
            assert [(f["t"], f["code"]) for f in s.frames] == [("error", "bad_message")]
            assert "last_seq" in s.frames[0]["message"]
    view = await current_view(game["lobby"], game["tid"])
    mover = game["players"][view["current_seat"]]
    prompt = [f for f in mover.frames if f["t"] == "prompt"][-1]
    for seq in (str(view["seq"]), True, float(view["seq"])):
        mark = len(mover.frames)
        await mover.send({"t": "action", "id": f"strict-{seq!r}",
                          "action": prompt["legal_actions"][0], "seq": seq})
        reply = await mover.wait(lambda f: f["t"] in ("ack", "error"), start=mark)
        assert (reply["t"], reply["code"]) == ("error", "bad_message"), reply
    assert await current_view(game["lobby"], game["tid"]) == view


async def test_oversized_frame_closes_with_1009(game, server):
    s = await Socket(server.ws_url, game["tid"]).connect()
    await s.wait(lambda f: f["t"] == "welcome")
    await s.send({"t": "action", "id": "big", "action": {"type": "x" * 17000}})
    assert await s.wait_closed() == 1009
    # The others are unaffected.
    await game["spectator"].send({"t": "sync"})
    await game["spectator"].wait(lambda f: f["t"] == "welcome" and f["view"] is not None
                                 and f is not game["spectator"].frames[0])


async def test_forged_token_unknown_table_and_late_hello(game, server):
    forged = await Socket(server.ws_url, game["tid"]).connect(token=secrets.token_urlsafe(16))
    assert await forged.wait_closed() == 1008
    assert not forged.frames
    nowhere = await Socket(server.ws_url, "no-such-table").connect()
    assert await nowhere.wait_closed() == 4004
    first = await Socket(server.ws_url, game["tid"]).connect()
    await first.send({"t": "hello"})
    await first.wait(lambda f: f["t"] == "error" and "hello" in f["message"])


async def test_origin_is_checked(game, server):
    evil = await Socket(server.ws_url, game["tid"]).connect(Origin="https://evil.example")
    assert await evil.wait_closed() == 1008
    port = server.ws_url.rsplit(":", 1)[1]
    same = await Socket(server.ws_url, game["tid"]).connect(Origin=f"http://127.0.0.1:{port}")
    await same.wait(lambda f: f["t"] == "welcome")
    await same.close()


async def test_http_errors(server, game):
    lobby, tid, tokens = game["lobby"], game["tid"], game["tokens"]
    http = lobby.http
    cases = [
        (await http.post("/api/tables", json={"seats": 9}), 400, "bad_message"),
        (await http.post("/api/tables", json={"seats": 3, "options": {"end_rule": "x"}}),
         400, "bad_message"),
        (await http.post("/api/tables", content=b"{oops"), 400, "bad_message"),
        (await http.post("/api/tables", content=b"[" * 20000), 413, "too_large"),
        (await http.post("/api/tables", content=b"[" * 5000 + b"]" * 5000), 400, "bad_message"),
        (await http.get("/api/tables/nope"), 404, "no_table"),
        (await http.get(f"/api/tables/{tid}/record"), 409, "not_ended"),
        (await http.post(f"/api/tables/{tid}/join", json={"name": "Late"}), 409, "started"),
        (await http.post(f"/api/tables/{tid}/start",
                         headers={"Authorization": f"Bearer {tokens[0]}"}), 409, "started"),
        (await http.get("/api/tables?status=weird"), 400, "bad_message"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code

    fresh = await lobby.create(2)
    ftid = fresh["id"]
    r = await http.post(f"/api/tables/{ftid}/start", headers={"Authorization": "Bearer forged"})
    assert r.status_code == 401
    r = await http.post(f"/api/tables/{ftid}/start",
                        headers={"Authorization": f"Bearer {fresh['owner_token']}"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "seats_empty"
    r = await http.post(f"/api/tables/{ftid}/seats/0/bot", json={"kind": "psychic"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_bot"
    r = await http.post(f"/api/tables/{ftid}/seed", json={"player_seed": "x"},
                        headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 401  # a token of another table
    r = await http.post(f"/api/tables/{ftid}/join", json={"name": ""})
    assert r.status_code == 400
    r = await http.post(f"/api/tables/{ftid}/join", json={"name": "A", "seat": 7})
    assert r.status_code == 404
    assert (await http.get(f"/api/tables/{ftid}")).json()["seats"][0]["kind"] is None


async def test_a_path_seat_is_ascii_digits_and_a_negative_seat_is_400_everywhere(server):
    """``-1`` was 404 in a path and 400 in a join body; ``１`` (fullwidth) and `` 1`` were
    taken as seat 1. Malformed: 400 ``bad_message``; past the table's seats: 404."""
    lobby = Lobby(server.url)
    try:
        table = await lobby.create(2)
        tid, owner = table["id"], table["owner_token"]
        auth = {"Authorization": f"Bearer {owner}"}
        for raw in ("-1", "\uff11", "+1", "1.0", "%201"):
            r = await lobby.http.post(f"/api/tables/{tid}/seats/{raw}/bot",
                                      json={"kind": "random"}, headers=auth)
            assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_message"), raw
        r = await lobby.http.post(f"/api/tables/{tid}/join", json={"name": "A", "seat": -1})
        assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_message")
        r = await lobby.http.post(f"/api/tables/{tid}/seats/2/bot", json={"kind": "random"},
                                  headers=auth)
        assert (r.status_code, r.json()["error"]["code"]) == (404, "no_seat")
        r = await lobby.http.post(f"/api/tables/{tid}/join", json={"name": "A", "seat": 2})
        assert (r.status_code, r.json()["error"]["code"]) == (404, "no_seat")
        assert all(s["kind"] is None for s in (await lobby.get(f"/api/tables/{tid}")).json()[
            "seats"])
    finally:
        await lobby.close()
