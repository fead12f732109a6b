"""Breaker b4: cheating at Loot Island over the websocket. Actions for another seat,
out of turn and at the wrong step, plays with a card twice, another player's card, a
non-joker given a value, values of the wrong shape, unknown landings and islets, a
replayed action id (same and other body, older seq), a flood of stale actions and an
oversized frame: each gets an error naming the problem (or, for a resend, the first
ack) and the stored stream stays as it was, entry for entry. Nothing found."""

from __future__ import annotations

import asyncio
from typing import Any

import redis

from server.store import streams as store
from tests.server.client import Lobby, Socket, auth, prompt_actions


async def test_loot_island_cheats_are_refused_and_change_nothing(server, redis_url) -> None:
    r = redis.Redis.from_url(redis_url)
    lobby = Lobby(server.url)
    table = await lobby.create_game("loot-island", 3)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{i}"))["token"] for i in range(3)]
    socks = [await Socket(server.ws_url, tid).connect(token=t) for t in tokens]
    for s in socks:
        await s.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    prompted = await asyncio.wait_for(_first_prompt(socks), 60)
    mover, prompt = prompted
    sock, rival = socks[mover], socks[(mover + 1) % 3]
    views = [(await lobby.http.get(f"/api/tables/{tid}/view", headers=auth(t))).json()
             for t in tokens]
    hand = views[mover]["players"][mover]["hand"]
    theirs = views[(mover + 1) % 3]["players"][(mover + 1) % 3]["hand"]
    stream = lambda: r.lrange(store.events_key(tid), 0, -1)  # noqa: E731
    before = stream()
    assert len(before) == prompt["seq"]
    offered = prompt_actions(prompt, "loot-island")
    legal = next(a for a in offered if a["type"] == "play")
    landing = legal["landing"]

    async def answer(s: Socket, action: dict[str, Any], aid: str | None = None,
                     seq: int | None = prompt["seq"]) -> dict[str, Any]:
        aid = aid or f"x{len(s.frames)}"
        mark = len(s.frames)
        await s.send({"t": "action", "id": aid, "action": action, "seq": seq})
        return await s.wait(lambda f: f.get("id") == aid, start=mark)

    async def refused(action: dict[str, Any], code: str, s: Socket = sock,
                      **kw: Any) -> None:
        reply = await answer(s, action, **kw)
        assert reply["t"] == "error" and reply["code"] == code, (action, reply)
        assert reply["message"], reply

    play = {"type": "play", "landing": landing}
    await refused({**play, "cards": [hand[0], hand[0]]}, "bad_action")
    await refused({**play, "cards": [theirs[0]]}, "not_in_hand")
    await refused({**play, "cards": [hand[0], theirs[0]]}, "not_in_hand")
    await refused({**play, "cards": []}, "bad_action")
    # A joker (star) may take a value, and a joker played without one is refused for the
    # missing value before anything else: the checks of one card's extras use a plain card
    # (the hand is sorted, so hand[0] is a joker in about 3 % of deals).
    plain = next(c for c in hand if "-star-" not in c)
    await refused({**play, "cards": [plain], "values": {plain: 5}}, "bad_action")
    await refused({**play, "cards": [plain], "values": {"map-joker-1": 5}}, "bad_action")
    await refused({**play, "cards": [plain], "values": [5]}, "bad_action")
    await refused({**play, "cards": [plain], "values": {plain: True}}, "bad_action")
    await refused({**play, "cards": [plain], "copy": "steal"}, "bad_action")
    await refused({**play, "cards": [hand[0]], "extra": 1}, "bad_message")
    await refused({**play, "cards": [[hand[0]]]}, "bad_message")
    await refused({**play, "cards": [hand[0]] * 101}, "bad_message")
    await refused({"type": "play", "landing": "north-9", "cards": [hand[0]]},
                  "unknown_landing")
    await refused({"type": "islet", "islet": "islet-spring", "cards": [hand[0], hand[0]]},
                  "bad_action")
    await refused({"type": "islet", "islet": "islet-spring", "cards": [hand[0], theirs[0]]},
                  "not_in_hand")
    await refused({"type": "islet", "islet": "islet-nope", "cards": hand[:2]},
                  "unknown_islet")
    await refused({"type": "discard", "cards": [hand[0]]}, "wrong_step")
    await refused({"type": "take_loot", "card": "loot-01"}, "wrong_step")
    await refused({"type": "choose_healer", "healer": "x"}, "wrong_step")
    await refused({"type": "steal"}, "bad_message")
    # Another seat's move, named or not, from the rival's socket.
    await refused(legal, "not_your_seat", s=rival)
    await refused({k: v for k, v in legal.items() if k != "seat"}, "not_your_turn", s=rival)
    # True == 1 in Python: seat 1's True passes the server's seat check, not the rules'.
    await refused({**legal, "seat": True}, "bad_action" if mover == 1 else "not_your_seat")
    assert stream() == before

    # A legal play, then its id again: with another body, at the old seq, without seq.
    first = await answer(sock, legal, aid="A1")
    assert first["t"] == "ack", first
    after = stream()
    assert len(after) > len(before) and after[:len(before)] == before
    other = next((a for a in offered if a != legal), legal)
    for again in (legal, other):
        for seq in (prompt["seq"], None, first["seq"]):
            reply = await answer(sock, again, aid="A1", seq=seq)
            assert reply["t"] == "ack" and reply["seq"] == first["seq"], (again, seq, reply)
    # A flood of stale actions: each refused, none stored.
    for i in range(200):
        await sock.send({"t": "action", "id": f"f{i}", "seq": 0, "action": legal})
    last = await sock.wait(lambda f: f.get("id") == "f199")
    replies = [f for f in sock.frames if str(f.get("id", "")).startswith("f")]
    assert len(replies) == 200 and {f["code"] for f in replies} == {"stale"}, last
    # An oversized frame closes that socket (1009) and stores nothing.
    await sock.send_raw(b"\x81" + b"x" * (2 ** 21))
    assert await sock.wait_closed() == 1009
    await asyncio.sleep(0.2)
    assert stream() == after
    for s in socks:
        await s.close()
    await lobby.close()
    r.close()


async def _first_prompt(socks: list[Socket]) -> tuple[int, dict[str, Any]]:
    while True:
        for i, s in enumerate(socks):
            found = [f for f in s.frames if f["t"] == "prompt"]
            if found:
                return i, found[-1]
        await asyncio.sleep(0.02)
