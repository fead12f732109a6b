"""Records of the service checked offline (engine/verify.py): a record with a seat
change verifies and replays as it was played, and a forged one does not.

The attack: ``cardtable verify`` did not check a record's ``resigned`` list against its
``seat_changes``. The list decides who may win (a resigned seat never does, so the
table lists no winner), but a record whose ``resigned`` is edited to ``[]`` still
verified, and then its ``result.winners`` (the engine's, which names the resigned seat)
read as the winner of a fair game."""

from __future__ import annotations

from typing import Any

import pytest

from engine.verify import verify_record
from tests.server.client import Lobby, Socket, ended, events_of
from tests.waiting import until


async def test_a_record_with_its_resignations_erased_does_not_verify(server):
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben")]
    await lobby.start(tid)
    for token in tokens:
        r = await lobby.seat_call(tid, "resign", token)
        assert r.status_code == 200, r.text

    async def published() -> dict | None:
        r = await lobby.get(f"/api/tables/{tid}/record")
        return r.json() if r.status_code == 200 else None

    record = await until(published, 30, "the record published")
    summary = (await lobby.get(f"/api/tables/{tid}")).json()
    await lobby.close()
    assert record is not None
    assert verify_record(record).ok and record["resigned"] == [0, 1]
    assert summary.get("winners", []) == []  # both resigned: nobody won the table
    forged = {**record, "resigned": []}
    assert not verify_record(forged).ok, "a record claiming nobody resigned verifies"


# The attack these tests guard against (found in a security review):
# Breaker b3: a Keltis record with a seat change must verify and replay as it was played.
#
# The service stores every change of who plays a seat (a resignation here) as a chained
# event and writes it into the record's ``seat_changes`` (docs/protocol.md §5); Einauge's
# ``replay_record`` places them back among the replayed events, so ``cardtable verify``
# checks the chain over them. Keltis's ignored them: the record of any Keltis game with a
# resignation, claim, handover or timeout to a bot failed ``verify`` (``result``: "the
# seat_changes resign []", ``chain``: one event short), and ``POST /api/replay`` showed a
# game without the change. Fixed: Keltis (and Loot Island) replay ``seat_changes`` as
# Einauge does.


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

    async def published() -> dict | None:
        r = await lobby.http.get(f"/api/tables/{tid}/record")
        return r.json() if r.status_code == 200 else None

    record = await until(published, 30, "the record published")
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


# The attack these tests guard against (found in a security review):
# Breaker b3: a Loot Island record from the service, with a resignation, checked offline.
#
# As for Keltis (above), Loot Island's ``replay_record``
# ignored the record's ``seat_changes``, so the chain check of a game with a resignation
# failed (one event short) and the result check saw no resigned seat: fixed. Also fixed:
# ``verify`` called every Loot Island service record "NOT verified", because its ``fields``
# check demanded a ``deck`` where a Loot Island record carries ``orders`` (now each game
# names its setup field, ``Game.deck_field``, and the eight lists are checked).


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
