"""Breaker b3: a resigned player keeps reading the hand the bot now plays.

A Keltis player who resigns (``POST …/resign``) is out for good: a bot plays the seat to
the end, the seat cannot be taken back and cannot win. Its token still reads that seat's
view (``/view``, ``/events``, ``/deltas``) and its socket stays a watcher of the seat, so
it sees every card the bot draws from the deck, cards hidden from every player and
spectator, while it still sits in the players' chat (docs/protocol.md "Chat") and can pass
them to a friend at the table. A handed-over seat (the player may ``return``) needs its
hand; a resigned one no longer plays it. Expected here: from the resignation on, the
resigned token is shown no card the bot drew from the deck before the end.
"""

from __future__ import annotations

import asyncio
import random

from tests.server.client import Lobby, Socket, auth, events_of


async def test_resigned_token_sees_no_card_the_bot_draws(server) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create_game("keltis", 2)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{s}"))["token"] for s in range(2)]
    player = await Socket(server.ws_url, tid).connect(token=tokens[0])
    await player.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    r = await lobby.seat_call(tid, "resign", tokens[1])
    assert r.status_code == 200, r.text
    watcher = await Socket(server.ws_url, tid).connect(token=tokens[1])
    await watcher.wait(lambda f: f["t"] == "welcome")
    rng = random.Random(3)
    done = 0
    # Seat 0 plays on until the bot (seat 1) has drawn a card from the deck.
    while not any(d["event"]["type"] == "card_drawn" and d["event"]["seat"] == 1
                  and d["event"]["source"] == "deck" for d in player.events()):
        prompts = [f for f in player.frames if f["t"] == "prompt"]
        if len(prompts) > done:
            prompt = prompts[-1]
            done = len(prompts)
            await player.send({"t": "action", "id": f"a{done}", "seq": prompt["seq"],
                               "action": rng.choice(prompt["legal_actions"])})
        await asyncio.sleep(0.01)
    seq = max(d["seq"] for d in player.deltas())
    # The control: the drawing seat's own class is shown its deck draws' cards.
    assert any("card" in d["event"] for d in player.events()
               if d["event"]["type"] == "card_drawn" and d["event"]["seat"] == 0
               and d["event"]["source"] == "deck")
    await watcher.wait(lambda f: f["t"] == "deltas" and f["seq"] >= seq)
    # Everything the resigned token may read: HTTP history and its live socket.
    view = (await lobby.http.get(f"/api/tables/{tid}/view", headers=auth(tokens[1]))).json()
    events = (await lobby.http.get(f"/api/tables/{tid}/events",
                                   headers=auth(tokens[1]))).json()["events"]
    deltas = (await lobby.http.get(f"/api/tables/{tid}/deltas",
                                   headers=auth(tokens[1]))).json()["deltas"]
    shown = [e for e in events if e["type"] == "card_drawn" and e["seat"] == 1
             and e["source"] == "deck"]
    live = [d["event"] for d in watcher.events() if d["event"]["type"] == "card_drawn"
            and d["event"]["source"] == "deck" and d["event"]["seat"] == 1]
    dealt = [d for d in events_of(deltas) if d["event"]["type"] == "card_drawn"
             and d["event"]["seat"] == 1 and d["event"]["source"] == "deck"]
    assert view["phase"] != "ended"
    assert shown and live and dealt
    assert all("card" not in e for e in shown), shown
    assert all("card" not in e for e in live), live
    assert all("card" not in d["event"] for d in dealt), dealt
    assert view["players"][1]["hand"] is None, view["players"][1]
    for s in (player, watcher):
        await s.close()
    await lobby.close()
