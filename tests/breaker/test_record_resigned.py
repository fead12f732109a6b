"""Finding 6: ``cardtable verify`` does not check a record's ``resigned`` list against its
``seat_changes``. The list decides who may win (a resigned seat never does, so the
table lists no winner), but a record whose ``resigned`` is edited to ``[]`` still
verifies, and then its ``result.winners`` (the engine's, which names the resigned seat)
reads as the winner of a fair game."""

from __future__ import annotations

import asyncio

from engine.verify import verify_record
from tests.server.client import Lobby


async def test_a_record_with_its_resignations_erased_does_not_verify(server):
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    await lobby.start(tid)
    for token in tokens:
        r = await lobby.seat_call(tid, "resign", token)
        assert r.status_code == 200, r.text
    record = None
    for _ in range(600):
        r = await lobby.get(f"/api/tables/{tid}/record")
        if r.status_code == 200:
            record = r.json()
            break
        await asyncio.sleep(0.05)
    summary = (await lobby.get(f"/api/tables/{tid}")).json()
    await lobby.close()
    assert record is not None
    assert verify_record(record).ok and record["resigned"] == [0, 1]
    assert summary.get("winners", []) == []  # both resigned: nobody won the table
    forged = {**record, "resigned": []}
    assert not verify_record(forged).ok, "a record claiming nobody resigned verifies"
