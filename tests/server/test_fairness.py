"""Commit and reveal (CONTRACT §2): the commitment published at creation matches the
server seed revealed in the record, and the deck is the shuffle of the combined seed."""

from __future__ import annotations

import hashlib

from engine.einauge import EINAUGE
from engine.shuffle import combine_seed
from tests.server.client import Lobby, Seats, Socket, ended


async def test_player_seeds_and_the_revealed_server_seed_rebuild_the_deck(server):
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    r = await lobby.http.post(f"/api/tables/{tid}/seed", json={"player_seed": "first"},
                              headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.json()["contributions"] == ["first", ""]
    r = await lobby.http.post(f"/api/tables/{tid}/seed", json={"player_seed": "ünïcode 🎲"},
                              headers={"Authorization": f"Bearer {tokens[1]}"})
    summary = r.json()
    assert summary["contributions"] == ["first", "ünïcode 🎲"]
    assert [s["seeded"] for s in summary["seats"]] == [True, True]
    assert summary["commitment"] == table["commitment"]
    assert (await lobby.get(f"/api/tables/{tid}/record")).status_code == 409
    await lobby.start(tid)  # the owner (host) starts
    r = await lobby.http.post(f"/api/tables/{tid}/seed", json={"player_seed": "late"},
                              headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 409  # contributions close at the start

    players = [await Socket(server.ws_url, tid).connect(token=t) for t in tokens]
    seats = Seats(players, seed=5)
    while not any(ended(f) for f in players[0].frames):
        await seats.step()
    record = (await lobby.get(f"/api/tables/{tid}/record")).json()
    assert hashlib.sha256(record["server_seed"].encode()).hexdigest() == table["commitment"]
    assert len(record["server_seed"]) == 64 and int(record["server_seed"], 16) >= 0
    assert record["contributions"] == ["first", "ünïcode 🎲"]
    assert record["seed"] == combine_seed(record["server_seed"], ["first", "ünïcode 🎲"])
    first = EINAUGE.start(record["players"], record["options"], record["seed"])[0]
    assert list(first.deck) == record["deck"]
    view = (await lobby.get(f"/api/tables/{tid}/view")).json()
    assert record["result"] == view["result"] and record["result"]["winners"]
    for s in players:
        await s.close()
    await lobby.close()
