"""A whole Loot Island game on a real server: three bots (greedy, random and mcts), a msgpack
and a JSON spectator. The spectators' deltas fold to the public view and never show a
hand, a drawn card or a deck order before the end, and the record the service exports
(``/record``) verifies offline: commitment, seed, the eight shuffled setup lists and every
reshuffle, the replay, the result and the hash chain. A record with one shuffled list
changed no longer verifies."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

from engine.loot_island import LOOT_ISLAND
from engine.verify import CHECKS, PASS, verify_record
from tests.conftest import ROOT
from tests.server.client import Lobby, Socket, apply_deltas, auth, ended, events_of


async def test_loot_island_game_and_its_record_verify(server, tmp_path) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create_game("loot-island", 3)
    tid = table["id"]
    for seat, kind in enumerate(("greedy", "random")):
        await lobby.bot(tid, seat, kind)
    # An mcts seat: its observation goes to the bot pool's worker process and back.
    r = await lobby.http.post(f"/api/tables/{tid}/seats/2/bot", json={"kind": "mcts",
                                                                       "level": 1},
                              headers=auth(lobby.owners[tid]))
    assert r.status_code == 200, r.text
    spectators = [await Socket(server.ws_url, tid, binary=b).connect() for b in (True, False)]
    for s in spectators:
        await s.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    for s in spectators:
        await s.wait(ended, timeout=240)

    public = (await lobby.get(f"/api/tables/{tid}/view")).json()
    assert public["phase"] == "ended" and all(p["hand"] is not None for p in public["players"])
    for s in spectators:
        assert apply_deltas(s.frames[0]["view"], s.deltas()) == public
    assert spectators[0].deltas() == spectators[1].deltas()
    view: dict = spectators[0].frames[0]["view"]
    for d in spectators[0].deltas()[:-1]:  # before game_ended: no hand
        view = apply_deltas(view, [d])
        assert all(p["hand"] is None for p in view["players"]), d["seq"]
    for e in (x["event"] for x in events_of(spectators[0].deltas())):
        if e["type"] == "game_ended":
            continue  # the end reveals
        assert not {"orders", "seed", "map_reshuffles"} & set(e), e  # no deck order
        if e["type"] in ("map_card_drawn", "map_deck_reshuffled"):
            assert "card" not in e and "cards" not in e, e

    record = (await lobby.get(f"/api/tables/{tid}/record")).json()
    assert record["game"] == "loot-island"
    assert set(record["orders"]) == {"map", "loot_1", "loot_2", "loot_3", "loot_4", "healers",
                                     "events_a", "events_b", "map_reshuffles"}
    report = verify_record(record)
    assert report.ok and [c.status for c in report.checks] == [PASS] * len(CHECKS), \
        report.to_dict()
    state, _ = LOOT_ISLAND.replay_record(record)
    assert state.result == public["result"] == record["result"]

    path = tmp_path / "loot.json"
    path.write_text(json.dumps(record))
    run_verify = subprocess.run([sys.executable, "-m", "cli", "verify", str(path)], cwd=ROOT,
                                capture_output=True, text=True)
    assert run_verify.returncode == 0, run_verify.stdout
    out = subprocess.run([sys.executable, "-m", "cli", "record", "play", str(path),
                          "--seat", "1"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout)["result"] == public["result"]

    # One shuffled list changed (the last two cards of loot deck IV, never drawn when the
    # game ends early enough, or drawn in another order): the deck check fails.
    tampered = copy.deepcopy(record)
    deck = tampered["orders"]["loot_4"]
    deck[-1], deck[-2] = deck[-2], deck[-1]
    failed = {c.name for c in verify_record(tampered).failed()}
    assert "deck" in failed
    if record["orders"]["map_reshuffles"]:
        tampered = copy.deepcopy(record)
        entry = tampered["orders"]["map_reshuffles"][0]
        entry[-1], entry[-2] = entry[-2], entry[-1]
        assert "deck" in {c.name for c in verify_record(tampered).failed()}
    for s in spectators:
        await s.close()
    await lobby.close()
