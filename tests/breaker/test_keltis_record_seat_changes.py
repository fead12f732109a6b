"""Breaker b3: a Keltis record with a seat change must verify and replay as it was played.

The service stores every change of who plays a seat (a resignation here) as a chained
event and writes it into the record's ``seat_changes`` (docs/protocol.md §5); Einauge's
``replay_record`` places them back among the replayed events, so ``cardtable verify``
checks the chain over them. Keltis's ignored them: the record of any Keltis game with a
resignation, claim, handover or timeout to a bot failed ``verify`` (``result``: "the
seat_changes resign []", ``chain``: one event short), and ``POST /api/replay`` showed a
game without the change. Fixed: Keltis (and Loot Island) replay ``seat_changes`` as
Einauge does.
"""

from __future__ import annotations

import asyncio

from engine.verify import verify_record
from tests.server.client import Lobby, Socket, ended, events_of


async def test_keltis_record_with_a_resignation_verifies_and_replays(server) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create_game("keltis", 2)
    tid = table["id"]
    token = (await lobby.join(tid, "Quitter"))["token"]
    await lobby.bot(tid, 1)
    spectator = await Socket(server.ws_url, tid).connect()
    await spectator.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    r = await lobby.seat_call(tid, "resign", token)
    assert r.status_code == 200, r.text
    await spectator.wait(ended, timeout=60)
    await asyncio.sleep(0.05)
    record = (await lobby.http.get(f"/api/tables/{tid}/record")).json()
    assert record["resigned"] == [0]
    assert [c["reason"] for c in record["seat_changes"]] == ["resigned"]

    report = verify_record(record)
    assert report.ok, [c.to_dict() for c in report.failed()]
    assert {c.name for c in report.checks if c.status == "pass"} >= {
        "fields", "commitment", "seed", "deck", "replay", "result", "chain"}
    # The replay viewer gets the game as the spectators saw it, the seat change included.
    replayed = (await lobby.http.post("/api/replay", json=record)).json()
    # One frame per event there, one per action live: the same events, heads left empty.
    assert events_of(replayed["deltas"]) == [{**e, "head": ""} for e in spectator.events()]
    await spectator.close()
    await lobby.close()
