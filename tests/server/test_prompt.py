"""The prompt names, next to each legal action, what it costs and pays out (the engine's
``action_details``), and the action's event then carries exactly that."""

from __future__ import annotations

import asyncio
import random

from tests.server.client import Lobby, Socket, ended


async def test_prompt_details_match_the_events_of_the_actions_taken(server):
    lobby = Lobby(server.url)
    table = await lobby.create(2)
    tid = table["id"]
    a = await lobby.join(tid, "Anna", 0)
    b = await lobby.join(tid, "Ben", 1)
    socks = [await Socket(server.ws_url, tid).connect(t["token"]) for t in (a, b)]
    await lobby.start(tid, table["owner_token"])
    rng = random.Random(11)
    checked = 0
    used = [0, 0]
    while not any(ended(d) for d in socks[0].deltas()):
        # Whoever holds the newest prompt answers it, preferring a buy or a fight.
        found = None
        for _ in range(500):  # 10 s at most
            if found is not None or any(ended(d) for d in socks[0].deltas()):
                break
            for i, s in enumerate(socks):
                prompts = [f for f in s.frames if f["t"] == "prompt"]
                if len(prompts) > used[i]:
                    used[i] = len(prompts)
                    found = (s, prompts[-1])
            if found is None:
                await asyncio.sleep(0.02)
        if found is None:
            break
        sock, prompt = found
        legal, details = prompt["legal_actions"], prompt["details"]
        assert len(details) == len(legal)
        gains = [i for i, x in enumerate(legal) if x["type"] in ("buy", "fight")]
        i = rng.choice(gains) if gains else rng.randrange(len(legal))
        before = len(sock.deltas())
        await sock.send({"t": "action", "id": f"x{prompt['seq']}", "action": legal[i],
                         "seq": prompt["seq"]})
        delta = await sock.wait(lambda f, n=prompt["seq"]: f.get("t") == "deltas"
                                and f["prev"] == n)
        assert len(sock.deltas()) > before
        e = delta["events"][0]["event"]  # the action's own event comes first
        if legal[i]["type"] in ("buy", "fight"):
            d = details[i]
            assert d["payout"] == {k: e[k] for k in ("sabres", "ducats", "jewels")}
            assert d["cost"] == ({"ducats": e["price"]} if e["type"] == "card_bought"
                                 else {"sabres": e["cost"]})
            checked += 1
        elif legal[i]["type"].startswith("sell"):
            assert details[i] == {"gain": {"ducats": e["ducats"]}}
    assert socks[0].deltas()[-1]["events"][-1]["event"]["type"] == "game_ended"
    assert checked >= 10
    for s in socks:
        await s.close()
    await lobby.close()
