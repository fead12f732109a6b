"""Finding 2: during the game the host may hand *any* person's seat to a bot of its
choosing, whenever it likes (``roles.require_hand_over`` checks only the role; the
seat's presence is not looked at). At a table among strangers the host is just the
stranger who created it: it hands an online rival's seat to the ``random`` bot whenever
that rival is to move, and the bot moves for the rival before the rival can ``return``
(``CARDTABLE_BOT_DELAY``, 0.6 s by default). A claim of the same seat by a player is
refused (``not_away``) while its player is there."""

from __future__ import annotations

import asyncio

from tests.server.client import Lobby, Socket


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
