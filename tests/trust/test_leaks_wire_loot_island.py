"""No hidden card leaks over the wire, for Loot Island (issue 20 part 5).

Pairs of tables whose games differ only in one unseen card, one pair per kind:

- ``hand``: seat ``j`` holds map card X on side A and its twin Y (the other copy of the
  same colour and value, so every rule of legality treats them alike) on side B, Y (on A)
  and X (on B) lying a few draws down the map deck;
- ``map``: two twins deep in the map deck swapped;
- ``loot``: two cards of loot deck I swapped, one near the top (offered in round 1);
- ``event``: round 2's face-down event swapped with an unused one;
- ``healer``: a set-aside healer swapped with an unused one.

Both sides are played with the same actions, each chosen among those legal on both sides
(so neither X nor Y is laid, discarded or paid), passing often so that the rounds move on,
until X or Y is public (then every viewer sees it and the sides may part).
Every viewer (each seat, a msgpack and a JSON spectator) must get byte-identical frames
(chain heads included) and byte-identical HTTP answers (its own, with its seat token)
until X or Y enters its view on either side (drawn, offered, revealed, or every hand at
the end); seat ``j``'s own frames must differ in the ``hand`` pair (the pair tests
something). As in ``test_leaks_wire_keltis``: two Redis servers with a server process
each, the same table id, commitment, tokens and timestamps (``twin_table``), the orders
chosen by writing the first events (``start_with_deck``). Every frame and answer is also
scanned: no id of a card in another's hand, the map deck, the loot deck, a face-down or
unused event or a set-aside (before the healer step) or unused healer, at that seq; no
seed in a frame, an answer, the log or the metrics; no card id in the log or metrics.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx

from engine.game import Message
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island.data import EVENTS_A, EVENTS_B, HEALER_IDS, LOOT, MAP_IDS
from engine.loot_island.setup import shuffled_orders
from engine.loot_island.state import State
from tests.server.client import ClockFile
from tests.trust.test_leaks_wire import body_value, frame_seq
from tests.trust.wire import (
    Client,
    Lobby,
    LoggedServer,
    crashes,
    secrets_of,
    start_with_deck,
    twin_table,
)

KINDS = ("hand", "loot", "event", "healer", "map")
MAX_ACTIONS = 60
SNAPSHOT_EVERY = 3
"""HTTP answers are taken before every third action (each is 4 paths per viewer)."""
PASS_SHARE = 0.35
"""How often the test passes when it may (random plays alone make long phases)."""
PATHS = ("/view", "/events?from=0", "/deltas?from=0", "/record")
CARDS = frozenset([*MAP_IDS, *LOOT, *HEALER_IDS, *EVENTS_A, *EVENTS_B])


def _twin(card: str) -> str:
    return card[:-1] + ("b" if card.endswith("a") else "a")


def twin_orders(kind: str, rng: random.Random, n: int, seed: str
                ) -> tuple[dict[str, list[str]], dict[str, list[str]], int | None, str, str]:
    """Orders A from the shuffle and B with two cards X and Y swapped as ``kind`` says;
    returns both, the seat whose hand differs (``hand``; else ``None``), X and Y."""
    a = shuffled_orders(seed, {})
    b = {k: list(v) for k, v in a.items()}
    j: int | None = None
    if kind in ("hand", "map"):
        deck = b["map"]
        if kind == "hand":
            j = rng.randrange(n)
            starts = [7 * j + rng.randrange(7)]
            window = range(7 * n, 7 * n + 6)
        else:
            starts = list(range(7 * n + 20, 88))
            window = range(7 * n + 20, 88)
        for i in rng.sample(starts, len(starts)):
            k = deck.index(_twin(deck[i]))
            if k in window:
                break
        else:  # no twin in the window: move one there first (still a shuffle's order)
            i = starts[0]
            k = deck.index(_twin(deck[i]))
            w = window[rng.randrange(len(window))]
            for o in (a, b):
                o["map"][k], o["map"][w] = o["map"][w], o["map"][k]
            k = w
        key = "map"
    elif kind == "loot":
        key, i, k = "loot_1", rng.randrange(2), rng.randrange(8, 21)
    elif kind == "event":
        key, i, k = "events_b", 0, rng.randrange(4, 12)
    else:
        key, i, k = "healers", rng.randrange(n), rng.randrange(n, 14)
    x, y = b[key][i], b[key][k]
    b[key][i], b[key][k] = y, x
    return a, b, j, x, y


class Side:
    def __init__(self, server: LoggedServer, lobby: Lobby, orders: dict[str, list[str]]
                 ) -> None:
        self.server, self.lobby, self.orders = server, lobby, orders
        self.clients: dict[str, Client] = {}
        self.events: list[Message] = []
        self.state: Any = None
        self.states: list[State] = []  # the state after each seq (index = seq)
        self.http: dict[str, list[tuple[int, int, bytes]]] = {}

    def record_states(self, events: list[Message]) -> None:
        for e in events:
            self.state = G.evolve(self.state, e)
            self.states.append(self.state.copy())
        self.events += events


def viewers(n: int) -> list[tuple[str, int | None]]:
    return [*((f"seat{s}", s) for s in range(n)), ("spectator", None), ("json", None)]


def unseen_by(s: State, viewer: int | None) -> set[str]:
    """Card ids ``viewer`` may not see in ``s`` (RULES "What is hidden"): other hands, the
    map deck, the loot deck, the face-down and unused events, the set-aside healers until
    the healer step and the unused healers; once ended only the unused ones."""
    hidden = {*HEALER_IDS} - ({*s.aside} if s.phase in ("healers", "ended") else set())
    hidden |= {*EVENTS_A, *EVENTS_B} - set(s.events_seen)
    if s.phase == "ended":
        return hidden
    hidden |= set(s.map_deck) | set(s.loot_deck)
    for i, p in enumerate(s.players):
        if i != viewer:
            hidden |= set(p.hand)
    return hidden


def public(cards: set[str], *states: State) -> bool:
    """Whether one of ``cards`` is in the spectators' view of any of ``states``."""
    return any(cards & cards_in(G.view(s, None)) for s in states)


def cards_in(node: Any) -> set[str]:
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and v in CARDS:
            found.add(v)

    walk(node)
    return found


async def caught_up(side: Side, seq: int) -> None:
    for c in side.clients.values():
        await c.wait(lambda f, s=seq: f["t"] == "deltas" and f["seq"] == s, timeout=30)


async def snapshot(side: Side, table_id: str, tokens: list[str], seq: int) -> None:
    for name, seat in viewers(len(tokens)):
        headers = {"Authorization": f"Bearer {tokens[seat]}"} if seat is not None else {}
        for path in PATHS:
            r = await side.lobby.http.get(f"/api/tables/{table_id}{path}", headers=headers)
            side.http.setdefault(name, []).append((seq, r.status_code, r.content))


def choose(rng: random.Random, a: State, b: State, seat: int) -> Message:
    """An action legal on both sides, so never one naming X or Y."""
    keys = {repr(m) for m in G.legal_actions(b, seat)}
    both = [m for m in G.legal_actions(a, seat) if repr(m) in keys]
    assert both, seat
    passes = [m for m in both if m.type == "pass"]
    if passes and rng.random() < PASS_SHARE:
        return passes[0]
    return both[rng.randrange(len(both))]


async def play_pair(sides: list[tuple[LoggedServer, Lobby]], i: int) -> dict[str, int]:
    kind = KINDS[i]
    rng = random.Random(f"loot-wire-{i}")
    n = 2 + i % 2
    orders_a, orders_b, j, x, y = twin_orders(kind, rng, n, f"lw-{i}")
    (server_a, lobby_a), (server_b, lobby_b) = sides
    table_id = (await lobby_a.create(n, game="loot-island"))["id"]
    tokens = [(await lobby_a.join(table_id, f"p{s}"))["token"] for s in range(n)]
    await twin_table(server_a.redis_url, server_b.redis_url, table_id)
    a, b = Side(server_a, lobby_a, orders_a), Side(server_b, lobby_b, orders_b)
    for side in (a, b):
        for name, seat in viewers(n):
            client = Client(side.server.ws_url, table_id, binary=name != "json")
            side.clients[name] = await client.connect(tokens[seat] if seat is not None else None)
        for c in side.clients.values():
            await c.wait(lambda f: f["t"] == "welcome")
        side.state = G.initial_state()
        side.states = [side.state.copy()]
        side.record_states(await start_with_deck(side.server.redis_url, table_id, side.orders))
        await caught_up(side, len(side.events))
    step = 0
    while step < MAX_ACTIONS and not G.is_over(a.state):
        if public({x, y}, a.state, b.state):
            break  # every viewer sees X or Y now: nothing is left to compare
        if step % SNAPSHOT_EVERY == 0:
            for side in (a, b):
                await snapshot(side, table_id, tokens, len(side.events))
        seat = G.to_move(a.state)[0]
        assert G.to_move(b.state) == (seat,)
        action = choose(rng, a.state, b.state, seat)
        step += 1
        for side in (a, b):
            client = side.clients[f"seat{seat}"]
            mark = len(client.frames)
            await client.send({"t": "action", "id": f"l{step}", "action": action.to_dict()})
            ack = await client.wait(lambda f, s=step: f.get("id") == f"l{s}", start=mark)
            assert ack["t"] == "ack", ack
            side.record_states(G.decide(side.state, action))
            assert ack["seq"] == len(side.events)
            await caught_up(side, len(side.events))
    await asyncio.sleep(0.05)

    compared = cut_short = 0
    for name, seat in viewers(n):
        # The first seq at which X or Y is in this viewer's view on either side.
        cut = next((s for s in range(1, len(a.states))
                    if {x, y} & (cards_in(G.view(a.states[s], seat))
                                 | cards_in(G.view(b.states[s], seat)))),
                   len(a.states))
        fa, fb = a.clients[name].frames, b.clients[name].frames
        end_a = next((k for k, f in enumerate(fa) if (frame_seq(f) or 0) >= cut), len(fa))
        end_b = next((k for k, f in enumerate(fb) if (frame_seq(f) or 0) >= cut), len(fb))
        # The bytes as sent, heads and all; ``presence`` frames follow sockets and their
        # heartbeats (timing, not the game): left out, and they name no card (below).
        left, right = a.clients[name].raw[:end_a], b.clients[name].raw[:end_b]
        for f in (*fa, *fb):
            if f["t"] == "presence":
                assert not cards_in(f), f
        left = [r for r, f in zip(left, fa, strict=False) if f["t"] != "presence"]
        right = [r for r, f in zip(right, fb, strict=False) if f["t"] != "presence"]
        assert left == right, (kind, name, cut)
        compared += len(left)
        for (sa, ca, ba), (sb, cb, bb) in zip(a.http[name], b.http[name], strict=True):
            assert sa == sb and ca == cb
            if sa < cut:
                assert ba == bb, (kind, name, sa, body_value(ba), body_value(bb))
                compared += 1
        if j is not None and seat == j:
            assert cut == 1 and left != [r for r, f in zip(a.clients[name].raw, fa,
                                                           strict=True)
                                         if f["t"] != "presence"], name  # its hand differs
        elif cut < len(a.states):
            cut_short += 1
    # Nothing a viewer may not see is in any frame or answer it got; no seed at all.
    for side in (a, b):
        secret = await secrets_of(side.server.redis_url, table_id)
        for name, seat in viewers(n):
            for raw, f in zip(side.clients[name].raw, side.clients[name].frames, strict=True):
                data = raw if isinstance(raw, bytes) else raw.encode()
                assert not any(s.encode() in data for s in secret.values())
                seq = frame_seq(f)
                if seq is not None:
                    leaked = cards_in(f) & unseen_by(side.states[seq], seat)
                    assert not leaked, (kind, name, seq, leaked, f)
            for seq, _, body in side.http[name]:
                assert not any(s.encode() in body for s in secret.values())
                leaked = cards_in(body_value(body)) & unseen_by(side.states[seq], seat)
                assert not leaked, (kind, name, seq, leaked)
        for c in side.clients.values():
            await c.close()
    return {"frames": compared, "actions": step, "cut_short": cut_short,
            "ended": int(G.is_over(a.state))}


async def test_twin_loot_island_tables_send_identical_bytes_until_the_card_is_seen(
        redis_url, own_redis, spawn, tmp_path) -> None:
    clock = ClockFile(tmp_path / "clock")
    clock.stop_at(1_800_000_000_000)  # both servers' clocks show the same time throughout
    env = {"EINAUGE_BOT_DELAY": "0.005", **clock.env}
    first = spawn(redis_url, "first-loot", env).start()
    twin = spawn(own_redis.url, "twin-loot", env).start()
    sides = [(first, Lobby(first.url)), (twin, Lobby(twin.url))]
    out = {}
    for i, kind in enumerate(KINDS):
        t0 = time.perf_counter()
        out[kind] = await play_pair(sides, i)
        out[kind]["seconds"] = round(time.perf_counter() - t0)
    # The pairs reach their reveal: a draw of X or Y (hand), the first offer (loot), round
    # 2's reveal (event); the cut was exercised for some viewer of each.
    for kind in ("hand", "loot", "event"):
        assert out[kind]["cut_short"] >= 1, (kind, out[kind])
    log = first.log_text() + twin.log_text()
    async with httpx.AsyncClient() as http:
        metrics = (await http.get(f"{first.url}/metrics")).text
    assert not [c for c in CARDS if c in log or c in metrics]
    for _, lobby in sides:
        await lobby.close()
    assert not crashes(first.log_text()) and not crashes(twin.log_text())
    print("\n" + "; ".join(f"{k}: {v['actions']} actions, {v['frames']} frames and answers "
                           f"compared, ended {bool(v['ended'])}, {v['seconds']} s"
                           for k, v in out.items()))
