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
        for n in range(10):  # the host moves until Ben is to move
            prompts = [f for f in host_sock.frames if f["t"] == "prompt"]
            if [f for f in ben.frames if f["t"] == "prompt"]:
                break
            if prompts:
                await host_sock.send({"t": "action", "id": f"h{n}", "seq": prompts[-1]["seq"],
                                      "action": prompts[-1]["legal_actions"][0]})
            await asyncio.sleep(0.3)
        assert [f for f in ben.frames if f["t"] == "prompt"], "Ben never got to move"
        r = await lobby.http.post(f"/api/tables/{tid}/seats/1/bot", json={"kind": "random"},
                                  headers={"Authorization": f"Bearer {host}"})
        await asyncio.sleep(0.5)
        ben_moves_by_bot = [e for f in ben.frames if f["t"] == "deltas" for e in f["events"]
                            if e["event"].get("seat") == 1
                            and e["event"]["type"] != "seat_controller_changed"]
    finally:
        await host_sock.close()
        await ben.close()
        await lobby.close()
    assert r.status_code == 409, (r.status_code, r.text[:200], len(ben_moves_by_bot))
