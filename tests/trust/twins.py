"""Twin tables for the wire leak tests of games with hidden hands (Keltis, Loot Island).

A pair is one table on two server processes, each on its own Redis (``twin_table``: the
same id, commitment, tokens and timestamps), whose games differ only in the order of two
cards X and Y (``start_with_deck`` writes the first events). Both sides are played with the
same actions, each legal on both sides. Every viewer (each seat, a msgpack and a JSON
spectator) must then get byte-identical frames (chain heads included) and byte-identical
HTTP answers (its own, with its seat token) until X or Y enters its view on either side;
the seat that holds X or Y must get different frames (the pair tests something). Every
frame and answer is also scanned: no id of a card the viewer may not see at that seq, and
no seed. What differs per game is a :class:`Spec`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.game import Game, Message
from tests.trust.wire import (
    Client,
    Lobby,
    LoggedServer,
    body_value,
    frame_seq,
    secrets_of,
    seen_started,
    start_with_deck,
    twin_table,
)

PATHS = ("/view", "/events?from=0", "/deltas?from=0", "/record")
"""The HTTP answers compared, per viewer."""


def viewers(n: int) -> list[tuple[str, int | None]]:
    """``(name, seat)`` of every viewer of an ``n``-seat pair (spectators have no seat)."""
    return [*((f"seat{s}", s) for s in range(n)), ("spectator", None), ("json", None)]


def cards_in(node: Any, cards: frozenset[str]) -> set[str]:
    """The ids of ``cards`` anywhere in ``node`` (dict keys included)."""
    found: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and v in cards:
            found.add(v)

    walk(node)
    return found



async def settled(clients: Any) -> None:
    """Every frame the server sent each of ``clients`` before now has arrived: a second
    ``hello`` is answered with one ``bad_message`` error and nothing else, after whatever
    the socket was sent before it; that error is then dropped from the frames (and from
    the raw frames kept beside them)."""
    for c in clients:
        mark = len(c.frames)
        await c.send({"t": "hello", "token": None, "last_seq": None})
        err = await c.wait(lambda f: f["t"] == "error" and f.get("code") == "bad_message"
                           and f.get("id") is None, start=mark)
        k = next(k for k in range(len(c.frames) - 1, mark - 1, -1) if c.frames[k] is err)
        del c.frames[k]
        if hasattr(c, "raw"):
            del c.raw[k]

@dataclass(frozen=True)
class Spec:
    """What a game's pair test needs: the game, its card ids, ``unseen_by(state, seat)``
    (the ids that seat, ``None`` for spectators, may not see), ``choose(rng, a, b, seat)``
    (an action legal on both sides), the action budget, how often HTTP answers are taken,
    ``stop(a, b)`` (nothing is left to compare), and by which seq the holder of X sees it."""

    game: Game
    cards: frozenset[str]
    unseen_by: Callable[[Any, int | None], set[str]]
    choose: Callable[[random.Random, Any, Any, int], Message]
    max_actions: int
    snapshot_every: int = 1
    stop: Callable[[Any, Any], bool] = lambda a, b: False
    holder_sees_by: Callable[[int], int] = lambda n: 1


class Side:
    """One table of a pair: its clients, the game after each seq, HTTP answers per viewer."""

    def __init__(self, game: Game, server: LoggedServer, lobby: Lobby, order: Any) -> None:
        self.game, self.server, self.lobby, self.order = game, server, lobby, order
        self.clients: dict[str, Client] = {}
        self.events: list[Message] = []
        self.state: Any = game.initial_state()
        self.states: list[Any] = [self.state.copy()]  # the state after each seq (index = seq)
        self.http: dict[str, list[tuple[int, int, bytes]]] = {}

    def record_states(self, events: list[Message]) -> None:
        for e in events:
            self.state = self.game.evolve(self.state, e)
            self.states.append(self.state.copy())
        self.events += events

    async def caught_up(self) -> None:
        """Every client has the deltas up to the last event."""
        seq = len(self.events)
        for c in self.clients.values():
            await c.wait(lambda f: f["t"] == "deltas" and f["seq"] == seq, timeout=30)

    async def snapshot(self, table_id: str, tokens: list[str]) -> None:
        for name, seat in viewers(len(tokens)):
            headers = {"Authorization": f"Bearer {tokens[seat]}"} if seat is not None else {}
            for path in PATHS:
                r = await self.lobby.http.get(f"/api/tables/{table_id}{path}", headers=headers)
                self.http.setdefault(name, []).append((len(self.events), r.status_code,
                                                       r.content))


def _without_presence(client: Client, end: int | None = None) -> list[bytes | str]:
    # ``presence`` frames follow sockets and their heartbeats (timing, not the game: on a
    # loaded machine one side may see a seat "gone" a moment); they name no card (checked).
    return [r for r, f in zip(client.raw[:end], client.frames[:end], strict=True)
            if f["t"] != "presence"]


def _first_difference(ca: Client, end_a: int | None, cb: Client, end_b: int | None
                      ) -> tuple[int, Any, Any]:
    """Where two clients' frames (presence left out) first differ: the index and the two
    decoded frames there (``None`` past one side's end)."""
    ra, rb = _without_presence(ca, end_a), _without_presence(cb, end_b)
    fa = [f for f in ca.frames[:end_a] if f["t"] != "presence"]
    fb = [f for f in cb.frames[:end_b] if f["t"] != "presence"]
    n = min(len(ra), len(rb))
    k = next((i for i in range(n) if ra[i] != rb[i]), n)
    return k, fa[k] if k < len(fa) else None, fb[k] if k < len(fb) else None


async def play_pair(spec: Spec, sides: list[tuple[LoggedServer, Lobby]], rng: random.Random,
                    n: int, orders: tuple[Any, Any], holder: int | None, x: str, y: str
                    ) -> dict[str, int]:
    """Play one pair whose orders differ in X and Y (``holder``: the seat dealt one of
    them, if any) and check it; returns counts: ``frames`` and answers compared,
    ``actions`` played, ``cut_short`` (viewers whose comparison ended at a reveal before
    the last seq) and ``ended``."""
    game = spec.game
    (server_a, lobby_a), (server_b, lobby_b) = sides
    table_id = (await lobby_a.create(n, game=game.name))["id"]
    tokens = [(await lobby_a.join(table_id, f"p{s}"))["token"] for s in range(n)]
    await twin_table(server_a.redis_url, server_b.redis_url, table_id)
    a, b = Side(game, server_a, lobby_a, orders[0]), Side(game, server_b, lobby_b, orders[1])
    host = lobby_a.owners[table_id]
    for side in (a, b):
        for name, seat in viewers(n):
            client = Client(side.server.ws_url, table_id, binary=name != "json")
            side.clients[name] = await client.connect(tokens[seat] if seat is not None else None)
        side.record_states(await start_with_deck(side.server, table_id, side.order, host))
        await side.caught_up()
        await seen_started(side.clients.values())
    step = 0
    while step < spec.max_actions and not game.is_over(a.state):
        if spec.stop(a.state, b.state):
            break
        if step % spec.snapshot_every == 0:
            for side in (a, b):
                await side.snapshot(table_id, tokens)
        seat = game.to_move(a.state)[0]
        assert game.to_move(b.state) == game.to_move(a.state)
        action = spec.choose(rng, a.state, b.state, seat)
        step += 1
        for side in (a, b):
            client = side.clients[f"seat{seat}"]
            mark = len(client.frames)
            await client.send({"t": "action", "id": f"a{step}", "action": action.to_dict()})
            ack = await client.wait(lambda f, s=step: f.get("id") == f"a{s}", start=mark)
            assert ack["t"] == "ack", ack
            side.record_states(game.decide(side.state, action))
            assert ack["seq"] == len(side.events)
            await side.caught_up()
    for side in (a, b):  # the last action's prompts and lobby frames too
        await settled(side.clients.values())

    compared = cut_short = 0
    for name, seat in viewers(n):
        # The first seq at which X or Y is in this viewer's view on either side.
        cut = next((s for s in range(1, len(a.states))
                    if {x, y} & (cards_in(game.view(a.states[s], seat), spec.cards)
                                 | cards_in(game.view(b.states[s], seat), spec.cards))),
                   len(a.states))
        ca, cb = a.clients[name], b.clients[name]
        end_a = next((k for k, f in enumerate(ca.frames) if (frame_seq(f) or 0) >= cut), None)
        end_b = next((k for k, f in enumerate(cb.frames) if (frame_seq(f) or 0) >= cut), None)
        for f in (*ca.frames, *cb.frames):
            if f["t"] == "presence":
                assert not cards_in(f, spec.cards), f
        left, right = _without_presence(ca, end_a), _without_presence(cb, end_b)
        # The bytes as sent, heads and all; on a difference, the first pair that differs.
        assert left == right, (game.name, name, cut, _first_difference(ca, end_a, cb, end_b))
        compared += len(left)
        for (sa, sta, ba), (sb, stb, bb) in zip(a.http[name], b.http[name], strict=True):
            assert sa == sb and sta == stb
            if sa < cut:
                assert ba == bb, (game.name, name, sa, body_value(ba), body_value(bb))
                compared += 1
        if seat is not None and seat == holder:
            assert cut <= spec.holder_sees_by(n), (name, cut)
            assert left != _without_presence(ca), name  # its hand differs
        elif cut < len(a.states):
            cut_short += 1
    # Nothing a viewer may not see is in any frame or answer it got; no seed at all.
    for side in (a, b):
        secret = await secrets_of(side.server.redis_url, table_id)
        for name, seat in viewers(n):
            client = side.clients[name]
            for raw, f in zip(client.raw, client.frames, strict=True):
                data = raw if isinstance(raw, bytes) else raw.encode()
                assert not any(s.encode() in data for s in secret.values())
                seq = frame_seq(f)
                if seq is not None:
                    leaked = cards_in(f, spec.cards) & spec.unseen_by(side.states[seq], seat)
                    assert not leaked, (game.name, name, seq, leaked, f)
            for seq, _, body in side.http[name]:
                assert not any(s.encode() in body for s in secret.values())
                leaked = (cards_in(body_value(body), spec.cards)
                          & spec.unseen_by(side.states[seq], seat))
                assert not leaked, (game.name, name, seq, leaked)
        for c in side.clients.values():
            await c.close()
    return {"frames": compared, "actions": step, "cut_short": cut_short,
            "ended": int(game.is_over(a.state))}
