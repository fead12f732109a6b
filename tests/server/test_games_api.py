"""The games at the lobby API: ``GET /api/games`` (seat range, options schema, bot kinds
from the engine), each game's card catalogue, and tables of any game created and checked
by the game's own rules (server/http/lobby.py names no game)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from engine import GAMES
from tests.conftest import ServerProcess
from tests.server.client import Lobby, Socket, auth, ended


@pytest.fixture
async def lobby(server) -> AsyncIterator[Lobby]:
    lb = Lobby(server.url)
    yield lb
    await lb.close()


async def test_game_list_comes_from_the_engine(lobby: Lobby) -> None:
    r = await lobby.get("/api/games")
    assert r.status_code == 200
    games = {g["name"]: g for g in r.json()["games"]}
    assert list(games) == list(GAMES)
    for name, g in games.items():
        game = GAMES[name]
        assert (g["min_players"], g["max_players"]) == (game.min_players, game.max_players)
        assert g["options_schema"] == game.options_schema and g["title"] == game.title
        assert [b["kind"] for b in g["bots"]] == list(game.bots())
        assert g["hidden_hands"] is (not game.uniform_view)
    assert games["keltis"]["hidden_hands"] and not games["einauge"]["hidden_hands"]
    assert {"levels": [1, 2, 3, 4], "kind": "mcts"} in games["einauge"]["bots"]
    assert r.json()["default"] == "einauge"  # CARDTABLE_DEFAULT_GAME's default


async def test_the_default_game_is_the_setting_also_under_its_former_name(redis_url) -> None:
    """A request naming no game gets ``default_game``; here set by its former variable
    name ``EINAUGE_DEFAULT_GAME``, which the service still reads, with a start-up warning
    naming ``CARDTABLE_DEFAULT_GAME``."""
    s = ServerProcess(redis_url, env={"EINAUGE_DEFAULT_GAME": "keltis"}).start()
    lb = Lobby(s.url)
    try:
        assert (await lb.get("/api/games")).json()["default"] == "keltis"
        bots = (await lb.get("/api/bots")).json()["bots"]
        assert [b["kind"] for b in bots] == list(GAMES["keltis"].bots())
        r = await lb.http.post("/api/tables", json={"seats": 2})
        assert r.status_code == 201 and r.json()["game"] == "keltis", r.text
        r = await lb.http.post("/api/tables", json={"game": "einauge", "seats": 2})
        assert r.status_code == 201 and r.json()["game"] == "einauge", r.text
        log = s.read_log()
        assert log.count("renamed_setting") == 1, log
        assert "EINAUGE_DEFAULT_GAME is CARDTABLE_DEFAULT_GAME now" in log
    finally:
        await lb.close()
        s.stop()


async def test_card_catalogues(lobby: Lobby) -> None:
    einauge = (await lobby.get("/api/games/einauge/cards")).json()
    assert einauge["cards"]["ship-1"]["color"] is None and "blue" in einauge["colors"]
    assert set(einauge["cards"]["blue-3"]) == {"color", "price", "sabres", "ducats",
                                               "jewels", "chests", "fight_cost"}
    keltis = (await lobby.get("/api/games/keltis/cards")).json()
    assert len(keltis["cards"]) == 101 and keltis["hand_size"] == 8
    assert keltis["cards"]["end-red-1"] == {"kind": "end", "color": "red", "value": None}
    r = await lobby.get("/api/games/chess/cards")
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_game"


async def test_keltis_tables_are_checked_by_keltis(lobby: Lobby) -> None:
    http = lobby.http
    r = await http.post("/api/tables", json={"game": "keltis", "seats": 4})
    assert r.status_code == 201 and r.json()["game"] == "keltis"
    assert r.json()["options"] == {}
    tid, owner = r.json()["id"], r.json()["owner_token"]
    for body, code in [({"game": "keltis", "seats": 5}, "bad_message"),
                       ({"game": "keltis", "seats": 3, "options": {"end_rule": "round"}},
                        "bad_message"),
                       ({"game": "chess", "seats": 2}, "no_game"),
                       ({"game": 3, "seats": 2}, "bad_message")]:
        r = await http.post("/api/tables", json=body)
        assert (r.status_code, r.json()["error"]["code"]) == (400, code), body
    r = await http.patch(f"/api/tables/{tid}/options", json={"color_bonus": True},
                         headers=auth(owner))
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_message")
    # Keltis's bot kinds, not Einauge's.
    r = await http.post(f"/api/tables/{tid}/seats/0/bot", json={"kind": "random"},
                        headers=auth(owner))
    assert r.status_code == 200
    bots = (await lobby.get("/api/bots?game=keltis")).json()["bots"]
    assert [b["kind"] for b in bots] == list(GAMES["keltis"].bots())
    r = await http.post(f"/api/tables/{tid}/seats/1/bot", json={"kind": "psychic"},
                        headers=auth(owner))
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_bot")
    assert "greedy" in r.json()["error"]["message"]  # names Keltis's kinds


async def test_keltis_bots_play_a_whole_game(lobby: Lobby, server) -> None:
    """greedy and mcts think in the server's pool on Keltis observations."""
    table = await lobby.create_game("keltis", 2)
    tid = table["id"]
    await lobby.bot(tid, 0, "greedy")
    r = await lobby.http.post(f"/api/tables/{tid}/seats/1/bot",
                              json={"kind": "mcts", "level": 1},
                              headers=auth(table["owner_token"]))
    assert r.status_code == 200, r.text
    watcher = await Socket(server.ws_url, tid).connect()
    await watcher.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    await watcher.wait(ended, timeout=120)
    view = (await lobby.get(f"/api/tables/{tid}/view")).json()
    assert view["phase"] == "ended" and view["result"]["winners"]
    await watcher.close()


async def test_einauge_table_options_are_the_engines(lobby: Lobby) -> None:
    """The engine checks and says why: ``removed_colors`` is a record's option only (a
    table's colors come from its shuffle, so its record's deck follows from the seed)."""
    r = await lobby.http.post("/api/tables", json={
        "seats": 3, "options": {"removed_colors": ["blue", "red"]}})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_message")
    assert "records only" in r.json()["error"]["message"]
    r = await lobby.http.post("/api/tables", json={"seats": 3, "options": {"color_bonus": 1}})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_message")
    assert "color_bonus" in r.json()["error"]["message"]
