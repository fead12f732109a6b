"""Finding 4: the player who claims an abandoned seat chooses the bot that plays it
(``POST …/seats/{seat}/claim`` takes ``{"kind", "level"}``). A cheating player hands a
rival's seat to the weakest bot (``random``) the moment the rival's connection drops;
or to ``mcts`` level 4, the most expensive search, on the server's CPU."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Lobby, Socket


@pytest.fixture
def clocked(redis_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ClockFile]]:
    clock = ClockFile(tmp_path / "clock")
    s = ServerProcess(redis_url, env=clock.env).start()
    yield s, clock
    s.stop()


async def test_a_claimant_cannot_pick_a_weak_bot_for_a_rivals_seat(clocked):
    server, clock = clocked
    lobby = Lobby(server.url)
    table = await lobby.create(3)
    tid = table["id"]
    tokens = [(await lobby.join(tid, n))["token"] for n in ("Anna", "Ben", "Cem")]
    await lobby.start(tid)
    anna = await Socket(server.ws_url, tid).connect(token=tokens[0])
    try:
        await anna.wait(lambda f: f["t"] == "welcome")
        clock.set(61)  # Ben and Cem never came: gone after the 60 s of "none"
        await anna.wait(lambda f: f["t"] == "presence"
                        and [s["state"] for s in f["seats"]][1:] == ["gone", "gone"])
        weak = await lobby.seat_call(tid, "seats/1/claim", tokens[0], {"kind": "random"})
        costly = await lobby.seat_call(tid, "seats/2/claim", tokens[0],
                                       {"kind": "mcts", "level": 4})
        seats = (await lobby.get(f"/api/tables/{tid}")).json()["seats"]
    finally:
        await anna.close()
        await lobby.close()
    # The claimant does not choose the bot: a claim body with fields is refused
    # (docs/protocol.md: "any field is 400 bad_message") and both seats stay the people's.
    for answer in (weak, costly):
        assert (answer.status_code, answer.json().get("error", {}).get("code")) == (
            400, "bad_message"), answer.text
    assert [(s["name"], s.get("bot")) for s in seats] == [
        ("Anna", None), ("Ben", None), ("Cem", None)], seats
