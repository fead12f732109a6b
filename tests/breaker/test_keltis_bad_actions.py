"""Breaker b3: malformed and illegal Keltis actions get a clear error and change nothing,
and an illegal action tells a seat nothing about where a card it does not hold lies.

Found: a field of the wrong shape got pydantic's first union error, e.g. a ``stone`` with
too many cards for the protocol (then 9, now 101) got "action.action.cards.str: Input
should be a valid string" and ``seat: 0.0`` the same: it names neither the problem nor
the limit. Fixed (server/ws/protocol.py
``_reason``): the field, and what it may hold (or the list's own error). Held: the
engine's ``card_not_in_hand`` is the same code and message (its own wording, the card
named as sent) for a card in another player's hand and one in the deck.
"""

from __future__ import annotations

import asyncio

from tests.server.client import Lobby, Socket, auth


async def test_bad_keltis_actions_are_refused_clearly_and_change_nothing(server) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create_game("keltis", 3)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{s}"))["token"] for s in range(3)]
    sock = await Socket(server.ws_url, tid).connect(token=tokens[0])
    await sock.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    prompt = await sock.wait(lambda f: f["t"] == "prompt")
    views = [(await lobby.http.get(f"/api/tables/{tid}/view", headers=auth(t))).json()
             for t in tokens]
    mine, theirs = views[0]["players"][0]["hand"], views[1]["players"][1]["hand"]
    held = set(mine) | set(theirs) | set(views[2]["players"][2]["hand"])
    catalogue = (await lobby.get("/api/games/keltis/cards")).json()["cards"]
    in_deck = next(c for c in catalogue if c not in held)

    async def refused(action: dict) -> dict:
        aid = f"x{len(sock.frames)}"
        mark = len(sock.frames)
        await sock.send({"t": "action", "id": aid, "action": action, "seq": prompt["seq"]})
        reply = await sock.wait(lambda f: f.get("id") == aid, start=mark)
        assert reply["t"] == "error", (action, reply)
        return reply

    huge = await refused({"type": "stone", "cards": [mine[0]] * 101})
    assert huge["code"] == "bad_message" and "at most 100" in huge["message"], huge
    assert "cards" in huge["message"] and "valid string" not in huge["message"], huge
    nine = await refused({"type": "stone", "cards": mine[:2] * 4 + mine[:1]})
    assert nine["code"] == "bad_action" and "two" in nine["message"], nine
    odd = await refused({"type": "lay", "card": {"green-5a": 1}, "row": "green"})
    assert odd["code"] == "bad_action", odd
    real = await refused({"type": "lay", "card": mine[0], "row": "green", "seat": 0.0})
    assert real["code"] == "bad_message" and "seat" in real["message"], real
    assert "valid string" not in real["message"], real
    nested = await refused({"type": "stone", "cards": [[mine[0]], [mine[1]]]})
    assert nested["code"] == "bad_message" and "cards[0]" in nested["message"], nested
    three = await refused({"type": "stone", "cards": mine[:3]})
    assert three["code"] == "bad_action" and "two" in three["message"], three
    early = await refused({"type": "draw", "from": "deck"})
    assert early["code"] == "wrong_step", early
    other = await refused({"type": "discard", "card": theirs[0]})
    deck = await refused({"type": "discard", "card": in_deck})
    assert other["code"] == deck["code"] == "card_not_in_hand"
    assert (other["message"].replace(theirs[0], "X")
            == deck["message"].replace(in_deck, "X")), (other, deck)

    await asyncio.sleep(0.1)
    after = (await lobby.http.get(f"/api/tables/{tid}/view", headers=auth(tokens[0]))).json()
    assert after == views[0]  # nothing changed
    assert not [f for f in sock.frames if f["t"] == "deltas" and f["seq"] > prompt["seq"]]

    # A discard blocks its pile for this turn's draw: refused, and the draw step stays.
    card = mine[0]
    pile = catalogue[card]["color"] if catalogue[card]["kind"] != "point" else "point"
    mark = len(sock.frames)
    await sock.send({"t": "action", "id": "d1", "seq": prompt["seq"],
                     "action": {"type": "discard", "card": card}})
    ack = await sock.wait(lambda f: f.get("id") == "d1", start=mark)
    assert ack["t"] == "ack", ack
    prompt = await sock.wait(lambda f: f["t"] == "prompt" and f["seq"] == ack["seq"])
    blocked = await refused({"type": "draw", "from": pile})
    assert blocked["code"] == "pile_blocked" and pile in blocked["message"], blocked
    still = (await lobby.http.get(f"/api/tables/{tid}/view", headers=auth(tokens[0]))).json()
    assert still["seq"] == ack["seq"] and still["step"] == "draw" and pile in still["blocked"]
    await sock.close()
    await lobby.close()
