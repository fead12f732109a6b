"""A whole Keltis game on a real server: two people and two bots, two spectators. Each
seat's live deltas fold to its own view, spectators never see a hand before the end, the
history endpoints give a seat its own view (by its token) and a spectator the public one,
a seat that reconnects gets its own draws back, and the record replays and verifies."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

from tests.conftest import ROOT
from tests.server.client import (
    Lobby,
    Player,
    Socket,
    apply_deltas,
    assert_same_history,
    auth,
    ended,
    events_of,
    reaches,
    unheaded,
)
from tests.waiting import until


async def test_keltis_game_per_viewer(server, tmp_path) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create_game("keltis", 4)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{s}"))["token"] for s in range(2)]
    for seat in (2, 3):
        await lobby.bot(tid, seat)
    spectators = [await Socket(server.ws_url, tid, binary=b).connect() for b in (True, False)]
    for s in spectators:
        await s.wait(lambda f: f["t"] == "welcome")
    # Seat 1 also keeps a plain socket, dropped mid-game and resumed from its last seq.
    watcher = await Socket(server.ws_url, tid).connect(token=tokens[1])
    await watcher.wait(lambda f: f["t"] == "welcome")
    players = [Player(lambda: server.ws_url, tid, tok, seed=s) for s, tok in enumerate(tokens)]
    runs = [asyncio.create_task(p.run(120)) for p in players]
    # Welcomed before the start: every delta.
    await until(lambda: all(p.seq is not None for p in players), interval=0.02,
                what="every player welcomed")
    await lobby.start(tid)
    await watcher.wait(lambda f: reaches(f, 30))
    await watcher.close()
    mid = max(d["seq"] for d in watcher.deltas())
    during = {who: (await lobby.http.get(f"/api/tables/{tid}/deltas", headers=auth(tok))).json()
              for who, tok in (("seat0", tokens[0]), ("spectator", None))}
    resumed = await Socket(server.ws_url, tid).connect(token=tokens[1], last_seq=mid)
    await asyncio.gather(*runs)
    for s in (*spectators, resumed):
        await s.wait(ended, timeout=60)

    # Every seat's deltas fold to its own view; spectators' to the public one.
    for seat, p in enumerate(players):
        r = await lobby.http.get(f"/api/tables/{tid}/view", headers=auth(tokens[seat]))
        assert apply_deltas({}, p.deltas) == r.json()
        assert r.json()["players"][seat]["hand"] is not None
    public = (await lobby.get(f"/api/tables/{tid}/view")).json()
    for s in spectators:
        assert apply_deltas(s.frames[0]["view"], s.deltas()) == public
    assert spectators[0].deltas() == spectators[1].deltas()
    # Resumed after seq `mid`: the missed deltas are seat 1's own. A loaded server may
    # answer with a full resync instead (docs/protocol.md §2, `hello`: past the replay
    # rate or with the workers busy): then the welcome's view is seat 1's own.
    hello_back = next(f for f in resumed.frames if f["t"] == "welcome")
    if hello_back["view"] is None:
        base = apply_deltas({}, watcher.deltas())
        assert resumed.deltas()[0]["prev"] == mid
        assert resumed.deltas()[0]["events"][0]["seq"] == mid + 1
    else:
        base = hello_back["view"]
        assert base["players"][1]["hand"] is not None and hello_back["seat"] == 1
    assert apply_deltas(base, resumed.deltas()) == apply_deltas({}, players[1].deltas)

    # No hand before the end: no spectator frame holds another's cards.
    record = (await lobby.get(f"/api/tables/{tid}/record")).json()
    hands = _hand_cards(record)
    view: dict = {}
    for d in spectators[0].deltas()[:-1]:
        view = apply_deltas(view, [d])
        assert all(p["hand"] is None for p in view["players"]), d["seq"]
        for e in (x["event"] for x in d["events"]):
            assert "cards" not in e or e["type"] != "hand_dealt"
            if e["type"] == "card_drawn" and e["source"] == "deck":
                assert "card" not in e
    assert all(p["hand"] == hands.get(p["seat"], p["hand"]) for p in public["players"])
    # Seat 0's history, asked for mid-game with its token, was its own; the spectator's not.
    own = [d for d in players[0].deltas if d["seq"] <= during["seat0"]["seq"]]
    assert_same_history(during["seat0"]["deltas"], own)
    first_deal = next(d for d in events_of(during["seat0"]["deltas"])
                      if d["event"]["type"] == "hand_dealt" and d["event"]["seat"] == 0)
    assert len(first_deal["event"]["cards"]) == 8
    assert all("cards" not in d["event"] for d in events_of(during["spectator"]["deltas"])
               if d["event"]["type"] == "hand_dealt")
    events = (await lobby.http.get(f"/api/tables/{tid}/events",
                                   headers=auth(tokens[1]))).json()["events"]
    dealt = [e for e in events if e["type"] == "hand_dealt"]
    assert [("cards" in e) for e in dealt] == [e["seat"] == 1 for e in dealt]

    # The record: Keltis, replays per seat, verifies offline; the replay endpoint shows
    # the spectators' deltas.
    assert record["game"] == "keltis" and record["options"] == {}
    path = tmp_path / "keltis.json"
    path.write_text(json.dumps(record))
    for extra in ([], ["--seat", "2"]):
        out = subprocess.run([sys.executable, "-m", "cli", "record", "play", str(path), *extra],
                             cwd=ROOT, capture_output=True, text=True, check=True)
        assert json.loads(out.stdout)["result"] == public["result"]
    run = subprocess.run([sys.executable, "-m", "cli", "verify", str(path)], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout
    replayed = (await lobby.http.post("/api/replay", json=record)).json()
    assert_same_history(replayed["deltas"], [unheaded(d) for d in spectators[0].deltas()])
    for s in (*spectators, resumed):
        await s.close()
    await lobby.close()


def _hand_cards(record: dict) -> dict[int, list[str]]:
    """The final hands, from the record replayed by the engine (the test's ground truth)."""
    from engine.keltis import KELTIS

    state, _ = KELTIS.replay_record(record)
    return {i: list(p.hand) for i, p in enumerate(state.players)}
