"""Who may claim, hand over, resign and take back a seat (server/play/seat_rules.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.seat_control import SeatControllerChanged
from server.play import seat_rules as r
from server.play.presence import SeatPresence
from tests.conftest import ServerProcess
from tests.server.client import ClockFile, Lobby, Socket

GONE = SeatPresence(1, "gone", 0)
AWAY = SeatPresence(1, "away", 10_000)


def refused(code, fn, *args):
    with pytest.raises(r.Refusal) as e:
        fn(*args)
    assert e.value.code == code


def test_claim():
    ok = r.claim(0, "player", False, GONE, "player", 30_000, 40_000, False, "greedy", None)
    assert ok == SeatControllerChanged(1, "bot", "abandoned", "greedy", None)
    refused("not_away", r.claim, 0, "player", False, AWAY, "player", 30_000, 20_000, False,
            "greedy", None)
    refused("own_seat", r.claim, 1, "player", False, GONE, "player", 1, 2, False, "greedy", None)
    refused("not_playing", r.claim, 0, "bot", False, GONE, "player", 1, 2, False, "greedy", None)
    refused("not_playing", r.claim, 0, "player", True, GONE, "player", 1, 2, False, "greedy",
            None)
    refused("not_a_player", r.claim, 0, "player", False, GONE, "bot", 1, 2, False, "greedy",
            None)
    refused("ended", r.claim, 0, "player", False, GONE, "player", 1, 2, True, "greedy", None)


def test_resign_handover_and_return():
    assert r.resign(2, False, False, "mcts", 3).reason == "resigned"
    refused("resigned", r.resign, 2, True, False, "mcts", 3)
    refused("ended", r.resign, 2, False, True, "mcts", 3)
    assert r.handover(0, GONE, "player", 30_000, 40_000, False, "random", None).reason \
        == "handover"
    assert r.handover(None, GONE, "player", 1, 2, False, "random", None).seat == 1
    refused("not_away", r.handover, 0, AWAY, "player", 30_000, 20_000, False, "random", None)
    refused("own_seat", r.handover, 1, GONE, "player", 1, 2, False, "random", None)
    refused("seat_taken", r.handover, 0, GONE, "bot", 1, 2, False, "random", None)
    refused("ended", r.handover, 0, GONE, "player", 1, 2, True, "random", None)
    assert r.take_back(1, "bot", False, False) == SeatControllerChanged(1, "player", "returned")
    refused("playing", r.take_back, 1, "player", False, False)
    refused("resigned", r.take_back, 1, "bot", True, False)
    refused("ended", r.take_back, 1, "bot", False, True)


# The attack these tests guard against (found in a security review):
# Finding 4: the player who claims an abandoned seat chooses the bot that plays it
# (``POST …/seats/{seat}/claim`` takes ``{"kind", "level"}``). A cheating player hands a
# rival's seat to the weakest bot (``random``) the moment the rival's connection drops;
# or to ``mcts`` level 4, the most expensive search, on the server's CPU.


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


# The attack these tests guard against (found in a security review):
# Finding 2: during the game the host may hand *any* person's seat to a bot of its
# choosing, whenever it likes (``roles.require_hand_over`` checks only the role; the
# seat's presence is not looked at). At a table among strangers the host is just the
# stranger who created it: it hands an online rival's seat to the ``random`` bot whenever
# that rival is to move, and the bot moves for the rival before the rival can ``return``
# (``CARDTABLE_BOT_DELAY``, 0.6 s by default). A claim of the same seat by a player is
# refused (``not_away``) while its player is there.


async def _next_prompt(socks: list[Socket], marks: list[int]) -> int:
    """Wait for a prompt on any of ``socks`` (each from its frame ``marks[i]`` on); the
    index of a socket that got one."""
    waits = [asyncio.create_task(s.wait(lambda f: f["t"] == "prompt", start=m))
             for s, m in zip(socks, marks, strict=True)]
    done, pending = await asyncio.wait(waits, timeout=20,
                                       return_when=asyncio.FIRST_COMPLETED)
    for w in pending:
        w.cancel()
    assert done, "nobody was prompted"
    return next(i for i, w in enumerate(waits) if w in done and w.exception() is None)


async def test_the_host_cannot_take_a_present_rivals_turn(server):
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid, host = table["id"], table["owner_token"]
    await lobby.join(tid, "Host", token=host)
    ben_token = (await lobby.join(tid, "Ben"))["token"]
    await lobby.start(tid)
    host_sock = await Socket(server.ws_url, tid).connect(token=host)
    ben = await Socket(server.ws_url, tid).connect(token=ben_token)
    try:
        await ben.wait(lambda f: f["t"] == "presence"
                       and [s["state"] for s in f["seats"]] == ["online", "online"])
        marks = [0, 0]
        for n in range(10):  # the host moves until Ben is to move
            if await _next_prompt([host_sock, ben], marks) == 1:
                break
            prompt = [f for f in host_sock.frames if f["t"] == "prompt"][-1]
            marks[0] = len(host_sock.frames)
            aid = f"h{n}"
            await host_sock.send({"t": "action", "id": aid, "seq": prompt["seq"],
                                  "action": prompt["legal_actions"][0]})
            await host_sock.wait(lambda f, aid=aid: f.get("id") == aid, start=marks[0])
        prompts = [f for f in ben.frames if f["t"] == "prompt"]
        assert prompts, "Ben never got to move"
        r = await lobby.http.post(f"/api/tables/{tid}/seats/1/bot", json={"kind": "random"},
                                  headers={"Authorization": f"Bearer {host}"})
        # Ben still plays his seat: his move at the prompt's seq is his, acknowledged
        # (a bot that had moved for him would make it stale, a handover seat_handed_over).
        mark = len(ben.frames)
        await ben.send({"t": "action", "id": "ben", "seq": prompts[-1]["seq"],
                        "action": prompts[-1]["legal_actions"][0]})
        reply = await ben.wait(lambda f: f.get("id") == "ben", start=mark)
        changes = [e for e in ben.events()
                   if e["event"]["type"] == "seat_controller_changed"]
    finally:
        await host_sock.close()
        await ben.close()
        await lobby.close()
    # docs/protocol.md: a handover only once the seat's player is gone (409 not_away).
    assert (r.status_code, r.json().get("error", {}).get("code")) == (409, "not_away"), r.text
    assert reply["t"] == "ack", reply
    assert changes == [], changes
