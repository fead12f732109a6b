"""A whole game over websockets: 4 bot seats, 3 spectators, then the record."""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import subprocess
import sys

from tests.conftest import ROOT
from tests.server.client import (
    Lobby,
    Socket,
    apply_deltas,
    assert_same_history,
    ended,
    events_of,
    unheaded,
)


async def test_bot_game_watched_by_spectators_replays_from_its_record(server, tmp_path):
    """4 bot seats, 3 spectators: identical gap-free deltas, a record that replays to the
    same final view, and no secret in anything sent before the end."""
    lobby = Lobby(server.url)
    table = await lobby.create(4)
    tid = table["id"]
    for seat in range(4):  # the greedy bot thinks in a worker thread
        await lobby.bot(tid, seat, "greedy" if seat == 3 else "random")
    # Two spectators speak msgpack, one JSON (a debugging tool).
    spectators = [await Socket(server.ws_url, tid, binary=b).connect() for b in (True, True, False)]
    for s in spectators:
        await s.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid, table["owner_token"])
    # HTTP answers while the game runs (checked for secrets once the record is out).
    during = [(await lobby.get(path)).json() for path in (
        f"/api/tables/{tid}", f"/api/tables/{tid}/view", f"/api/tables/{tid}/events",
        f"/api/tables/{tid}/deltas", "/api/tables?status=running")]
    metrics_text = (await lobby.get("/metrics")).text
    for s in spectators:
        await s.wait(ended, timeout=60)

    sequences = [s.deltas() for s in spectators]
    seqs = [e["seq"] for e in events_of(sequences[0])]
    assert seqs == list(range(1, len(seqs) + 1)), "a gap or a duplicate"
    assert [f["prev"] for f in sequences[0]] == [0] + [f["seq"] for f in sequences[0][:-1]]
    assert len(sequences[0]) < len(seqs)  # one frame per action, not per event
    assert sequences[0] == sequences[1] == sequences[2]
    assert spectators[0].raw[-1] == spectators[1].raw[-1]  # the very same msgpack frame

    welcome = spectators[0].frames[0]
    final_view = apply_deltas(welcome["view"], sequences[0])
    r = await lobby.get(f"/api/tables/{tid}/view")
    assert r.json() == final_view

    r = await lobby.get(f"/api/tables/{tid}/record")
    assert r.status_code == 200
    record = r.json()
    assert record["table_id"] == tid and record["head"] == sequences[0][-1]["events"][-1]["head"]
    assert record["commitment"] == table["commitment"]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    # In a thread: the spectators' sockets stay open and must keep answering the server's
    # pings (a loop blocked past uvicorn's 20 s ping timeout is closed with 1011).
    out = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "cli", "record", "play", str(path)],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=120)
    played = json.loads(out.stdout)
    public = copy.deepcopy({k: final_view[k] for k in played})
    for p in public["players"]:
        for extra in ("chests", "turns"):
            p.pop(extra, None)
    assert played == public

    # Nothing before the end gave the deck order or the seed away: no frame, no HTTP
    # answer, no metric, no log line (and no token in the log either).
    for s in spectators:
        for frame in s.frames[:-1]:
            assert_no_secret(frame, record)
    for answer in during:
        assert_no_secret(answer, record)
    log = server.read_log()
    for text in (metrics_text, log):
        assert record["server_seed"] not in text and json.dumps(record["deck"]) not in text
    assert table["owner_token"] not in log
    # The replay viewer's endpoints: stored deltas, and deltas of a record file.
    # One frame per event there, so the viewer can step through every event.
    stored = (await lobby.get(f"/api/tables/{tid}/deltas")).json()
    assert stored["seq"] == seqs[-1]
    assert_same_history(stored["deltas"], sequences[0])
    assert apply_deltas({}, stored["deltas"]) == final_view  # patch 1 is the whole view
    tail = (await lobby.get(f"/api/tables/{tid}/deltas?from=100")).json()
    assert tail["deltas"] == stored["deltas"][100:]
    replayed = (await lobby.http.post("/api/replay", json=record)).json()
    assert [unheaded(d) for d in stored["deltas"]] == replayed["deltas"]
    broken = {**record, "actions": [{"seat": 3, "type": "pass"}, *record["actions"]]}
    r = await lobby.http.post("/api/replay", json=broken)
    assert r.status_code == 400 and r.json()["error"]["index"] == 0
    kinds = [b["kind"] for b in (await lobby.get("/api/bots")).json()["bots"]]
    assert "random" in kinds

    summary = (await lobby.get(f"/api/tables/{tid}")).json()
    assert summary["status"] == "ended" and "winners" in summary
    for s in spectators:
        await s.close()
    await lobby.close()


def assert_no_secret(frame, record) -> None:
    """No ``deck`` key, no seed, and no run of 8 cards in deck order (the display holds 6,
    so a longer run could only come from the deck itself)."""
    deck = record["deck"]
    secrets = {record["server_seed"], record["seed"]}
    position = {card: i for i, card in enumerate(deck)}

    def walk(node):
        if isinstance(node, dict):
            assert "deck" not in node, node
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            run = 1
            for a, b in itertools.pairwise(node):
                in_order = (isinstance(a, str) and isinstance(b, str) and a in position
                            and b in position and position[b] == position[a] + 1)
                run = run + 1 if in_order else 1
                assert run < 8, node
            for v in node:
                walk(v)
        elif isinstance(node, str):
            assert node not in secrets and record["server_seed"] not in node

    walk(frame)
