"""No hidden hand leaks over the wire, for Keltis (issue 14 part 5).

Pairs of tables whose games differ only in one card of one seat's hand: seat ``j`` holds
card X on side A and card Y on side B, where Y (on A) and X (on B) lie further down the
deck. Both sides are played with the same actions (each chosen among those legal on both
sides, so neither X nor Y is laid or discarded). Every other viewer (each other seat, a
msgpack and a JSON spectator) must then get byte-identical frames (chain heads included)
and byte-identical HTTP answers (its own with its seat token) until X or Y enters its view
(it draws one from the deck, or the end reveals every hand); seat ``j``'s own frames must
differ (the pair tests something). As in ``test_leaks_wire``: two Redis servers with a
server process each, the same table id, commitment, tokens and timestamps
(``twin_table``), the decks chosen by writing the first events (``start_with_deck``).
Every frame is also scanned: no id of a card in another's hand (unless all saw it drawn
from a discard pile), in the deck or removed, before the rules show it to that viewer; no
seed in a frame, an answer, the log or the metrics; no card id in the log or metrics.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx

from engine.game import Message
from engine.keltis import KELTIS
from engine.keltis.cards import CANONICAL
from engine.keltis.setup import shuffled_deck
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

PAIRS = 3
MAX_ACTIONS = 70
PATHS = ("/view", "/events?from=0", "/deltas?from=0", "/record")
CARDS = frozenset(CANONICAL)


def twin_keltis_decks(rng: random.Random, n: int, seed: str) -> tuple[list[str], list[str], int,
                                                                       str, str]:
    """Deck A from the shuffle; deck B with a card X of seat ``j``'s dealt hand swapped
    with a card Y a few draws down the deck. Returns both decks, ``j``, X and Y."""
    a = shuffled_deck(seed)
    state = KELTIS.replay(KELTIS.start([f"p{i}" for i in range(n)], {}, "", a))
    j = rng.randrange(n)
    x = rng.choice(state.players[j].hand)
    y = state.deck[state.deck_pos + rng.randrange(2, 8)]
    b = [y if c == x else x if c == y else c for c in a]
    return a, b, j, x, y


class Side:
    def __init__(self, server: LoggedServer, lobby: Lobby, deck: list[str]) -> None:
        self.server, self.lobby, self.deck = server, lobby, deck
        self.clients: dict[str, Client] = {}
        self.events: list[Message] = []
        self.state: Any = None
        self.states: list[Any] = []  # the state after each seq (index = seq)
        self.http: dict[str, list[tuple[int, int, bytes]]] = {}

    def record_states(self, events: list[Message]) -> None:
        for e in events:
            self.state = KELTIS.evolve(self.state, e)
            self.states.append(self.state.copy())
        self.events += events


def viewers(n: int) -> list[tuple[str, int | None]]:
    return [*((f"seat{s}", s) for s in range(n)), ("spectator", None), ("json", None)]


def unseen_by(state: Any, viewer: int | None) -> set[str]:
    """Cards ``viewer`` may not see in ``state``: other hands (but the cards all saw
    drawn from a pile), the deck and the removed cards; none once the game has ended."""
    if state.phase == "ended":
        return set()
    out = set(state.deck[state.deck_pos:]) | set(state.removed)
    for i, p in enumerate(state.players):
        if i != viewer:
            out |= set(p.hand) - set(p.known)
    return out


def cards_in(node: Any) -> set[str]:
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for x in v.values():
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
        await c.wait(lambda f, s=seq: f["t"] == "deltas" and f["seq"] == s)


async def snapshot(side: Side, table_id: str, tokens: list[str], seq: int) -> None:
    for name, seat in viewers(len(tokens)):
        headers = {"Authorization": f"Bearer {tokens[seat]}"} if seat is not None else {}
        for path in PATHS:
            r = await side.lobby.http.get(f"/api/tables/{table_id}{path}", headers=headers)
            side.http.setdefault(name, []).append((seq, r.status_code, r.content))


async def play_pair(sides: list[tuple[LoggedServer, Lobby]], i: int) -> dict[str, int]:
    rng = random.Random(f"keltis-wire-{i}")
    n = 2 + i % 3
    deck_a, deck_b, j, x, y = twin_keltis_decks(rng, n, f"kw-{i}")
    (server_a, lobby_a), (server_b, lobby_b) = sides
    table_id = (await lobby_a.create(n, game="keltis"))["id"]
    tokens = [(await lobby_a.join(table_id, f"p{s}"))["token"] for s in range(n)]
    await twin_table(server_a.redis_url, server_b.redis_url, table_id)
    a, b = Side(server_a, lobby_a, deck_a), Side(server_b, lobby_b, deck_b)
    for side in (a, b):
        for name, seat in viewers(n):
            client = Client(side.server.ws_url, table_id, binary=name != "json")
            side.clients[name] = await client.connect(tokens[seat] if seat is not None else None)
        for c in side.clients.values():
            await c.wait(lambda f: f["t"] == "welcome")
        side.state = KELTIS.initial_state()
        side.states = [side.state.copy()]
        side.record_states(await start_with_deck(side.server.redis_url, table_id, side.deck))
        await caught_up(side, len(side.events))
    step = 0
    while step < MAX_ACTIONS and not KELTIS.is_over(a.state):
        for side in (a, b):
            await snapshot(side, table_id, tokens, len(side.events))
        seat = KELTIS.to_move(a.state)[0]
        both = [m for m in KELTIS.legal_actions(a.state, seat)
                if m in set(KELTIS.legal_actions(b.state, seat))]
        assert both, (i, step)
        action = both[rng.randrange(len(both))]
        step += 1
        for side in (a, b):
            client = side.clients[f"seat{seat}"]
            mark = len(client.frames)
            await client.send({"t": "action", "id": f"k{step}", "action": action.to_dict()})
            ack = await client.wait(lambda f, s=step: f.get("id") == f"k{s}", start=mark)
            assert ack["t"] == "ack", ack
            side.record_states(KELTIS.decide(side.state, action))
            assert ack["seq"] == len(side.events)
            await caught_up(side, len(side.events))
    await asyncio.sleep(0.05)

    compared = cut_short = 0
    for name, seat in viewers(n):
        # The first seq at which X or Y is in this viewer's view on either side.
        cut = next((s for s in range(1, len(a.states))
                    if {x, y} & (cards_in(KELTIS.view(a.states[s], seat))
                                 | cards_in(KELTIS.view(b.states[s], seat)))),
                   len(a.states))
        fa, fb = a.clients[name].frames, b.clients[name].frames
        end_a = next((k for k, f in enumerate(fa) if (frame_seq(f) or 0) >= cut), len(fa))
        end_b = next((k for k, f in enumerate(fb) if (frame_seq(f) or 0) >= cut), len(fb))
        # The bytes as sent, heads and all. ``presence`` frames follow sockets and their
        # heartbeats (timing, not the game: on a loaded machine one side may see a seat
        # "gone" a moment): left out here, and they name no card (checked below).
        left, right = a.clients[name].raw[:end_a], b.clients[name].raw[:end_b]
        for f in (*fa, *fb):
            if f["t"] == "presence":
                assert not cards_in(f), f
        left = [r for r, f in zip(left, fa, strict=False) if f["t"] != "presence"]
        right = [r for r, f in zip(right, fb, strict=False) if f["t"] != "presence"]
        assert left == right, (i, name, cut)
        compared += len(left) + 1
        for (sa, ca, ba), (sb, cb, bb) in zip(a.http[name], b.http[name], strict=True):
            assert sa == sb and ca == cb
            if sa < cut:
                assert ba == bb, (i, name, sa, body_value(ba), body_value(bb))
                compared += 1
        if seat == j:
            assert cut <= n + 2 and left != a.clients[name].raw, name  # its hand differs
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
                    assert not leaked, (name, seq, leaked, f)
            for seq, _, body in side.http[name]:
                assert not any(s.encode() in body for s in secret.values())
                leaked = cards_in(body_value(body)) & unseen_by(side.states[seq], seat)
                assert not leaked, (name, seq, leaked)
        for c in side.clients.values():
            await c.close()
    return {"frames": compared, "actions": step, "cut_by_a_draw": cut_short}


async def test_twin_keltis_tables_send_identical_bytes_until_the_card_is_seen(
        redis_url, own_redis, spawn, tmp_path) -> None:
    clock = ClockFile(tmp_path / "clock")
    clock.stop_at(1_800_000_000_000)  # both servers' clocks show the same time throughout
    env = {"EINAUGE_BOT_DELAY": "0.005", **clock.env}
    first = spawn(redis_url, "first-keltis", env).start()
    twin = spawn(own_redis.url, "twin-keltis", env).start()
    sides = [(first, Lobby(first.url)), (twin, Lobby(twin.url))]
    total = {"frames": 0, "actions": 0, "cut_by_a_draw": 0}
    for i in range(PAIRS):
        out = await play_pair(sides, i)
        for key in total:
            total[key] += out[key]
    assert total["cut_by_a_draw"] >= 1  # some viewer drew X or Y: the cut was exercised
    log = first.log_text() + twin.log_text()
    async with httpx.AsyncClient() as http:
        metrics = (await http.get(f"{first.url}/metrics")).text
    assert not [c for c in CANONICAL if c in log or c in metrics]
    for _, lobby in sides:
        await lobby.close()
    assert not crashes(first.log_text()) and not crashes(twin.log_text())
    print(f"\n{PAIRS} Keltis table pairs, {total['actions']} actions each side, "
          f"{total['frames']} frames and answers compared byte for byte")
