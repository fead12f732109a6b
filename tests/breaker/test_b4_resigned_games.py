"""Breaker b4: a resigned seat in Loot Island and Einauge (earlier tests cover Keltis)
reads what a spectator reads on every path: ``/view``, ``/events``, ``/deltas``, its open
socket's deltas, a reconnect from before and after the resignation, a ``sync``; it gets
no prompt (no legal actions, which would list the bot's hand), and its token may no
longer act (``seat_handed_over``) nor take the seat back."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.server.client import Lobby, Socket, auth, events_of

GAMES = [("loot-island", 3, True), ("einauge", 3, False)]
"""(game, seats, whether a seat reads anything a spectator does not: Einauge's hands
are open)"""


async def _reads(lobby: Lobby, tid: str, token: str | None) -> list[Any]:
    h = auth(token)
    return [(await lobby.http.get(f"/api/tables/{tid}/{what}", headers=h)).json()
            for what in ("view", "events", "deltas")]


async def _settled(lobby: Lobby, tid: str) -> int:
    """Wait until the seq stays put (the bot waits for a person); returns it."""
    last, same = -1, 0
    for _ in range(400):
        seq = (await lobby.http.get(f"/api/tables/{tid}")).json()["seq"]
        same = same + 1 if seq == last else 0
        if same >= 8:
            return seq
        last = seq
        await asyncio.sleep(0.05)
    raise AssertionError("the table never settled")


async def _no_prompt_after(sock: Socket, mark: int) -> None:
    """Assert ``sock`` got no prompt from frame ``mark`` on: a ``sync`` answered is the
    barrier (a prompt goes out right after its welcome, on the same socket)."""
    barrier = len(sock.frames)
    await sock.send({"t": "sync"})
    await sock.wait(lambda f: f["t"] == "welcome", start=barrier)
    assert not [f for f in sock.frames[mark:] if f["t"] == "prompt"]


@pytest.mark.parametrize(("game", "seats", "hidden"), GAMES)
async def test_a_resigned_seat_reads_only_a_spectators_view(server, game, seats,
                                                            hidden) -> None:
    lobby = Lobby(server.url)
    table = (await lobby.create(seats) if game == "einauge"
             else await lobby.create_game(game, seats))
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{s}"))["token"] for s in range(seats)]
    gone = seats - 1
    resigner = await Socket(server.ws_url, tid).connect(token=tokens[gone])
    spectator = await Socket(server.ws_url, tid).connect()
    for s in (resigner, spectator):
        await s.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    start = await _settled(lobby, tid)
    own = await _reads(lobby, tid, tokens[gone])
    public = await _reads(lobby, tid, None)
    assert (own[0] != public[0]) == hidden  # the control: before, the seat reads its own
    r = await lobby.seat_call(tid, "resign", tokens[gone])
    assert r.status_code == 200, r.text
    # The other seats' people keep the bot moving: let it play whenever it is to move.
    at = await _settled(lobby, tid)
    assert at > start
    for s in (resigner, spectator):
        await s.wait(lambda f: f["t"] == "deltas" and f["seq"] >= at)
    resigned, public = await _reads(lobby, tid, tokens[gone]), await _reads(lobby, tid, None)
    assert resigned == public
    after = [f for f in resigner.deltas() if f["seq"] > start]
    assert events_of(after) == events_of([f for f in spectator.deltas() if f["seq"] > start])
    mark = len(resigner.frames)
    await resigner.send({"t": "sync"})
    fresh = await resigner.wait(lambda f: f["t"] == "welcome", start=mark)
    assert (fresh["seq"], fresh["view"]) == (at, public[0])
    await _no_prompt_after(resigner, mark)
    # A reconnect from before the resignation gets the full (spectators') view, one from
    # after it the (no) deltas since, one without last_seq the full view (docs/protocol.md
    # §5, "Resigning").
    for last, view in ((start, public[0]), (at, None), (None, public[0])):
        again = await Socket(server.ws_url, tid).connect(token=tokens[gone], last_seq=last)
        welcome = await again.wait(lambda f: f["t"] == "welcome")
        assert (welcome["seq"], welcome["view"]) == (at, view), last
        await _no_prompt_after(again, 0)
        assert again.deltas() == [], (last, again.deltas())
        await again.close()
    # The resigned token acts no more and takes nothing back.
    mark = len(resigner.frames)
    await resigner.send({"t": "action", "id": "late", "seq": at, "action": {"type": "pass"}})
    reply = await resigner.wait(lambda f: f.get("id") == "late", start=mark)
    assert reply["t"] == "error" and reply["code"] == "seat_handed_over", reply
    back = await lobby.seat_call(tid, "return", tokens[gone])
    assert (back.status_code, back.json()["error"]["code"]) == (409, "resigned"), back.text
    assert (await lobby.http.get(f"/api/tables/{tid}")).json()["seq"] == at
    for s in (resigner, spectator):
        await s.close()
    await lobby.close()
