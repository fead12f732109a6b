"""Breaker b3: a Loot Island record from the service, with a resignation, checked offline.

As for Keltis (test_keltis_record_seat_changes.py), Loot Island's ``replay_record``
ignored the record's ``seat_changes``, so the chain check of a game with a resignation
failed (one event short) and the result check saw no resigned seat: fixed. Also fixed:
``verify`` called every Loot Island service record "NOT verified", because its ``fields``
check demanded a ``deck`` where a Loot Island record carries ``orders`` (now each game
names its setup field, ``Game.deck_field``, and the eight lists are checked).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.verify import verify_record
from tests.server.client import Lobby, Socket, ended, events_of


async def _resigned_game(server: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lobby = Lobby(server.url)
    table = await lobby.create_game("loot-island", 3)
    tid = table["id"]
    token = (await lobby.join(tid, "Quitter"))["token"]
    for seat in (1, 2):
        await lobby.bot(tid, seat)
    spectator = await Socket(server.ws_url, tid).connect()
    await spectator.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    r = await lobby.seat_call(tid, "resign", token)
    assert r.status_code == 200, r.text
    await spectator.wait(ended, timeout=90)
    record = (await lobby.http.get(f"/api/tables/{tid}/record")).json()
    await spectator.close()
    await lobby.close()
    return record, spectator.deltas()


@pytest.fixture(scope="module")
def played() -> list[Any]:
    return []


async def test_loot_island_seat_changes_replay_into_the_chain(server, played) -> None:
    record, deltas = await _resigned_game(server)
    played.append(record)
    report = {c.name: c for c in verify_record(record).checks}
    assert report["replay"].status == "pass", report["replay"]
    assert report["result"].status == "pass", report["result"]
    assert report["chain"].status == "pass", report["chain"]
    assert record["resigned"] == [0]
    async with Lobby(server.url).http as http:
        replayed = (await http.post("/api/replay", json=record)).json()
    # One frame per event there, one per action live: the same events, heads left empty.
    assert events_of(replayed["deltas"]) == [{**e, "head": ""} for e in events_of(deltas)]


async def test_loot_island_service_record_verifies(server, played) -> None:
    record = played[0] if played else (await _resigned_game(server))[0]
    report = verify_record(record)
    assert report.ok, [c.to_dict() for c in report.failed()]
