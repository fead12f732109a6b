"""A whole Loot Island game on a real server: three bots (greedy, random and mcts), a msgpack
and a JSON spectator. The spectators' deltas fold to the public view and never show a
hand, a drawn card or a deck order before the end, and the record the service exports
(``/record``) verifies offline: commitment, seed, the eight shuffled setup lists and every
reshuffle, the replay, the result and the hash chain. A record with one shuffled list
changed no longer verifies."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys
from typing import Any

import redis

from engine.loot_island import LOOT_ISLAND
from engine.verify import CHECKS, PASS, verify_record
from server.store import streams as store
from tests.conftest import ROOT
from tests.server.client import Lobby, Socket, apply_deltas, auth, ended, events_of, prompt_actions
from tests.waiting import until


async def test_loot_island_game_and_its_record_verify(server, tmp_path) -> None:
    lobby = Lobby(server.url)
    table = await lobby.create_game("loot-island", 3)
    tid = table["id"]
    for seat, kind in enumerate(("greedy", "random")):
        await lobby.bot(tid, seat, kind)
    # An mcts seat: its observation goes to the bot pool's worker process and back.
    r = await lobby.http.post(f"/api/tables/{tid}/seats/2/bot", json={"kind": "mcts",
                                                                       "level": 1},
                              headers=auth(lobby.owners[tid]))
    assert r.status_code == 200, r.text
    spectators = [await Socket(server.ws_url, tid, binary=b).connect() for b in (True, False)]
    for s in spectators:
        await s.wait(lambda f: f["t"] == "welcome")
    await lobby.start(tid)
    for s in spectators:
        await s.wait(ended, timeout=240)

    public = (await lobby.get(f"/api/tables/{tid}/view")).json()
    assert public["phase"] == "ended" and all(p["hand"] is not None for p in public["players"])
    for s in spectators:
        assert apply_deltas(s.frames[0]["view"], s.deltas()) == public
    assert spectators[0].deltas() == spectators[1].deltas()
    view: dict = spectators[0].frames[0]["view"]
    for d in spectators[0].deltas()[:-1]:  # before game_ended: no hand
        view = apply_deltas(view, [d])
        assert all(p["hand"] is None for p in view["players"]), d["seq"]
    for e in (x["event"] for x in events_of(spectators[0].deltas())):
        if e["type"] == "game_ended":
            continue  # the end reveals
        assert not {"orders", "seed", "map_reshuffles"} & set(e), e  # no deck order
        if e["type"] in ("map_card_drawn", "map_deck_reshuffled"):
            assert "card" not in e and "cards" not in e, e

    record = (await lobby.get(f"/api/tables/{tid}/record")).json()
    assert record["game"] == "loot-island"
    assert set(record["orders"]) == {"map", "loot_1", "loot_2", "loot_3", "loot_4", "healers",
                                     "events_a", "events_b", "map_reshuffles"}
    report = verify_record(record)
    assert report.ok and [c.status for c in report.checks] == [PASS] * len(CHECKS), \
        report.to_dict()
    state, _ = LOOT_ISLAND.replay_record(record)
    assert state.result == public["result"] == record["result"]

    path = tmp_path / "loot.json"
    path.write_text(json.dumps(record))
    # The CLI in a thread: the spectators' sockets must keep answering the server's pings
    # (a loop blocked past uvicorn's 20 s ping timeout is closed with 1011).
    run_verify = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "cli", "verify", str(path)], cwd=ROOT,
        capture_output=True, text=True, timeout=120)
    assert run_verify.returncode == 0, run_verify.stdout
    out = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "cli", "record", "play", str(path), "--seat", "1"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout)["result"] == public["result"]

    # One shuffled list changed (the last two cards of loot deck IV, never drawn when the
    # game ends early enough, or drawn in another order): the deck check fails.
    tampered = copy.deepcopy(record)
    deck = tampered["orders"]["loot_4"]
    deck[-1], deck[-2] = deck[-2], deck[-1]
    failed = {c.name for c in verify_record(tampered).failed()}
    assert "deck" in failed
    if record["orders"]["map_reshuffles"]:
        tampered = copy.deepcopy(record)
        entry = tampered["orders"]["map_reshuffles"][0]
        entry[-1], entry[-2] = entry[-2], entry[-1]
        assert "deck" in {c.name for c in verify_record(tampered).failed()}
    for s in spectators:
        await s.close()
    await lobby.close()


# The attack these tests guard against (found in a security review):
# Breaker b4: cheating at Loot Island over the websocket. Actions for another seat,
# out of turn and at the wrong step, plays with a card twice, another player's card, a
# non-joker given a value, values of the wrong shape, unknown landings and islets, a
# replayed action id (same and other body, older seq), a flood of stale actions and an
# oversized frame: each gets an error naming the problem (or, for a resend, the first
# ack) and the stored stream stays as it was, entry for entry. Nothing found.


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
    prompted = await _first_prompt(socks)
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
    # Barrier: the close answered that frame; a sync round trip on another seat's socket
    # comes after anything the table did meanwhile.
    mark = len(rival.frames)
    await rival.send({"t": "sync"})
    await rival.wait(lambda f: f["t"] == "welcome", start=mark)
    assert stream() == after
    for s in socks:
        await s.close()
    await lobby.close()
    r.close()


async def _first_prompt(socks: list[Socket]) -> tuple[int, dict[str, Any]]:
    def found() -> tuple[int, dict[str, Any]] | None:
        for i, s in enumerate(socks):
            prompts = [f for f in s.frames if f["t"] == "prompt"]
            if prompts:
                return i, prompts[-1]
        return None
    return await until(found, 60, "a prompt on a seat's socket")
