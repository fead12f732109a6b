"""The prompt names, next to each legal action, what it costs and pays out (the engine's
``action_details``), and the action's event then carries exactly that."""

from __future__ import annotations

import random

from engine.loot_island import LOOT_ISLAND
from tests.server.client import Lobby, Socket, ended, pack
from tests.trust.wire import start_with_deck
from tests.waiting import until


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
        def newest() -> tuple[Socket, dict] | str | None:
            if any(ended(d) for d in socks[0].deltas()):
                return "ended"
            found = None
            for i, s in enumerate(socks):
                prompts = [f for f in s.frames if f["t"] == "prompt"]
                if len(prompts) > used[i]:
                    used[i] = len(prompts)
                    found = (s, prompts[-1])
            return found

        found = await until(newest, interval=0.02, what="a new prompt or the end")
        if found == "ended":
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


# ---- Loot Island: the compact form (Game.legal_form) -----------------------------------

# One 1, four printed cards and both jokers of one colour at a board of empty landings: the
# listed form held every card set x landing x joker value (30,976 plays).
BIG_HAND = ["map-red-1a", "map-red-3a", "map-red-5b", "map-red-7a", "map-red-9b",
            "map-red-star-a", "map-red-star-b"]
ACT_BOUND = 8_000  # bytes of one msgpack prompt frame (the list: about 3.2 MB)
DISCARD_BOUND = 600  # (the list of a 7-card hand's 128 subsets: about 8 kB)


def big_hand_orders(players: int) -> tuple[dict[str, list[str]], int]:
    """Setup lists (all eight, so no seed is needed) dealing ``BIG_HAND`` to the seat that
    acts first; that seat."""
    from engine.loot_island.setup import CANONICAL
    names = [f"p{i}" for i in range(players)]
    for seat in range(players):
        rest = [c for c in CANONICAL["map"] if c not in BIG_HAND]
        orders = {k: list(v) for k, v in CANONICAL.items()}
        orders["map"] = rest[:7 * seat] + BIG_HAND + rest[7 * seat:]
        s = LOOT_ISLAND.replay(LOOT_ISLAND.start(names, {}, "", orders))
        if s.current_seat == seat:
            return orders, seat
    raise AssertionError("no seat acts first")


def listed_size(state, seat: int, seq: int) -> int:
    """Bytes of the prompt as it was sent before the form: every action listed."""
    return len(pack({"t": "prompt", "seq": seq, "legal_actions":
                     [a.to_dict() for a in LOOT_ISLAND.legal_actions(state, seat)]}))


async def test_loot_island_prompts_are_compact_and_describe_exactly_the_legal_actions(server):
    lobby = Lobby(server.url)
    tid = (await lobby.create_game("loot-island", 2))["id"]
    tokens = [(await lobby.join(tid, f"p{i}"))["token"] for i in range(2)]
    orders, first = big_hand_orders(2)
    events = await start_with_deck(server, tid, orders, lobby.owners[tid])
    socks = [await Socket(server.ws_url, tid).connect(t) for t in tokens]
    state = LOOT_ISLAND.replay(events)
    assert state.current_seat == first and sorted(state.players[first].hand) == sorted(BIG_HAND)
    checked = {"act": 0, "discard": 0}
    listed = {"act": 0, "discard": 0}
    while not LOOT_ISLAND.is_over(state) and not (checked["act"] > 1 and checked["discard"]):
        seat, seq = state.current_seat, len(events)
        sock = socks[seat]
        prompt = await sock.wait(lambda f, n=seq: f["t"] == "prompt" and f["seq"] == n)
        raw = sock.raw[next(k for k, f in enumerate(sock.frames) if f is prompt)]
        legal = LOOT_ISLAND.legal_actions(state, seat)
        if state.step in ("act", "discard"):
            assert "legal_actions" not in prompt and "details" not in prompt
            assert [a.to_dict() for a in LOOT_ISLAND.expand_form(prompt["legal_form"])] == \
                [a.to_dict() for a in legal]
            assert len(raw) < (ACT_BOUND if state.step == "act" else DISCARD_BOUND), \
                (len(raw), state.step)
            listed[state.step] = max(listed[state.step], listed_size(state, seat, seq))
            checked[state.step] += 1
        else:  # picks and healers: listed as before
            assert prompt["legal_actions"] == [a.to_dict() for a in legal]
        # The first play lays the whole red run with both jokers; then everyone passes, so
        # that round 2's preparation comes soon.
        plays = [a for a in legal if a.type == "play"]
        if plays and checked["act"] == 1 and state.round == 1:
            action = max(plays, key=lambda a: len(a.cards))
        else:
            action = legal[-1] if state.step == "act" else legal[0]
        await sock.send({"t": "action", "id": f"c{seq}", "action": action.to_dict(),
                         "seq": seq})
        ack = await sock.wait(lambda f, n=seq: f.get("id") == f"c{n}")
        assert ack["t"] == "ack", ack
        for e in LOOT_ISLAND.decide(state, action):
            state = LOOT_ISLAND.evolve(state, e)
            events.append(e)
        assert ack["seq"] == len(events)
    assert checked["act"] >= 2 and checked["discard"] >= 1, checked
    # The listed prompts of the same positions were over the bounds.
    assert listed["act"] > ACT_BOUND and listed["discard"] > DISCARD_BOUND, listed
    for s in socks:
        await s.close()
    await lobby.close()
