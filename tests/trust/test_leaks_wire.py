"""No hidden-information leaks over the wire (issue 7).

Pairs of tables whose games differ only in the unseen deck order: every frame each client
gets (each seat, a msgpack spectator and a JSON spectator) and every HTTP response is
byte-identical, exactly as sent, chain heads included (issue 13: a head over the deck let
anyone find the face-down order), up to the first event that reveals a differing card.
Nothing is normalised: the two tables of a pair live on two Redis servers with a server
process each, under the same table id, commitment, seat tokens and timestamps (the meta is
copied, ``twin_table``; both servers' clocks are stopped at the same time). Every frame
and response is also scanned: no ``deck`` key, no seed, no island card that is still face
down at that seq. The tables are started on chosen decks by writing their first events to
Redis exactly as the server does (the service itself always shuffles from the seed), then
played by the test through the servers like any table. ``presence`` frames (sent as
sockets come and go, a matter of timing) are compared apart from the others.

A whole bot game started through the lobby shows that its seeds never appear in a frame,
an HTTP response, a log line or a metric before the end (nor a seat token in the log).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import httpx
import redis

from engine.einauge.cards import CARDS
from engine.einauge.game import EINAUGE
from engine.einauge.setup import shuffled_deck
from engine.game import Message
from tests.server.client import ClockFile, ended
from tests.trust.test_leaks_engine import twin_decks
from tests.trust.twins import settled
from tests.trust.wire import (
    Client,
    Lobby,
    LoggedServer,
    body_value,
    crashes,
    frame_seq,
    secrets_of,
    seen_started,
    start_with_deck,
    twin_table,
)

PAIRS = 6
ISLANDS = {c for c, card in CARDS.items() if card.color}
HTTP_PATHS = ("", "/view", "/events?from=0", "/events?from=3", "/deltas?from=0", "/record")


def deck_positions(events: list[Message]) -> list[int]:
    """``deck_pos`` after each seq (index = seq): how many cards are face up or gone."""
    state = EINAUGE.initial_state()
    out = [0]
    for e in events:
        EINAUGE.evolve(state, e)
        out.append(state.deck_pos)
    return out


def hidden_cards(node: Any, deck: list[str], shown: int) -> list[str]:
    """Island cards of ``deck`` from position ``shown`` on that appear in ``node``, and
    any ``deck`` key."""
    hidden = set(deck[shown:])
    found: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            if "deck" in v:
                found.append("deck key")
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str) and v in hidden:
            found.append(v)

    walk(node)
    return found


class Side:
    """One table of a pair on its own server: its clients, mirror of the game, HTTP
    snapshots."""

    def __init__(self, server: LoggedServer, lobby: Lobby, table_id: str,
                 deck: list[str]) -> None:
        self.server = server
        self.lobby = lobby
        self.id = table_id
        self.deck = deck
        self.clients: dict[str, Client] = {}
        self.events: list[Message] = []
        self.state: Any = None
        self.http: list[tuple[int, int, bytes]] = []  # (seq, status, body)


async def open_pair(sides: list[tuple[LoggedServer, Lobby]], rng: random.Random, n: int,
                    i: int) -> tuple[Side, Side, int, list[str]]:
    """One table created and joined on the first server, copied to the second one's
    Redis under the same id; the same clients connect to each. Returns the sides, the
    first differing deck position and the seat tokens (the same on both)."""
    options = {"end_rule": rng.choice(["round", "one_more_turn"]),
               "color_bonus": rng.random() < 0.5}
    deck_a, deck_b, k = twin_decks(rng, n, f"wire-{i}")
    (server_a, lobby_a), (server_b, lobby_b) = sides
    table_id = (await lobby_a.create(n, **options))["id"]
    tokens = [(await lobby_a.join(table_id, f"p{seat}"))["token"] for seat in range(n)]
    await twin_table(server_a.redis_url, server_b.redis_url, table_id)
    pair = [Side(server_a, lobby_a, table_id, deck_a), Side(server_b, lobby_b, table_id, deck_b)]
    for side in pair:
        ws = side.server.ws_url
        for seat in range(n):
            side.clients[f"seat{seat}"] = await Client(ws, table_id).connect(tokens[seat])
        side.clients["spectator"] = await Client(ws, table_id).connect()
        side.clients["json"] = await Client(ws, table_id, binary=False).connect()
    # A changed spectator count alone is shown at the periodic presence refresh, whenever
    # that falls: every socket waits for the count of both spectators before play, so that
    # the last presence before the compared cut is the same on both sides.
    for side in pair:
        for c in side.clients.values():
            await c.wait(lambda f: f["t"] == "presence" and f["spectators"] == 2)
    return pair[0], pair[1], k, tokens


async def snapshot(http: httpx.AsyncClient, side: Side, seq: int) -> None:
    for path in HTTP_PATHS:
        r = await http.get(f"/api/tables/{side.id}{path}")
        side.http.append((seq, r.status_code, r.content))


async def caught_up(side: Side, seq: int) -> None:
    for c in side.clients.values():
        await c.wait(lambda f, s=seq: f["t"] == "deltas" and f["seq"] == s)


async def play_pair(sides: list[tuple[LoggedServer, Lobby]], i: int) -> dict[str, int]:
    rng = random.Random(f"wire-pair-{i}")
    n = rng.randrange(2, 5)
    a, b, k, _ = await open_pair(sides, rng, n, i)
    host = sides[0][1].owners[a.id]
    for side in (a, b):
        side.events = await start_with_deck(side.server, side.id, side.deck, host)
        side.state = EINAUGE.replay(side.events)
        await caught_up(side, len(side.events))
        await seen_started(side.clients.values())
    first_diff: int | None = None  # seq of the event that reveals deck position k
    step = 0
    while first_diff is None:
        seq = len(a.events)
        for side in (a, b):
            await snapshot(side.lobby.http, side, seq)
        seat = EINAUGE.to_move(a.state)[0]
        legal = EINAUGE.legal_actions(a.state, seat)
        action = legal[rng.randrange(len(legal))]
        step += 1
        for side in (a, b):
            client = side.clients[f"seat{seat}"]
            mark = len(client.frames)
            await client.send({"t": "action", "id": f"x{step}", "action": action.to_dict()})
            ack = await client.wait(lambda f, s=step: f.get("id") == f"x{s}", start=mark)
            assert ack["t"] == "ack", ack
            side.events += EINAUGE.play(side.state, action)
            assert ack["seq"] == len(side.events)
            await caught_up(side, len(side.events))
        # The first event after which deck position k is face up reveals a differing card.
        first_diff = next((s for s, pos in enumerate(deck_positions(a.events)) if pos > k),
                          None)
    # The last action's prompts and lobby frames too, after the deltas awaited above.
    for side in (a, b):
        await settled(side.clients.values())

    compared = heads = 0
    for name in a.clients:
        fa, fb = a.clients[name].frames, b.clients[name].frames
        cut_a = next(j for j, f in enumerate(fa) if (frame_seq(f) or 0) >= first_diff)
        cut_b = next(j for j, f in enumerate(fb) if (frame_seq(f) or 0) >= first_diff)
        # The bytes as sent: heads, table id, commitment and all, nothing replaced. A
        # ``presence`` frame goes out when sockets come and go, a matter of timing rather
        # than of the game: those are compared apart (both servers' clocks are stopped at
        # the same time, so their ``now`` and ``since`` agree), the others in order.
        left, right = a.clients[name].raw[:cut_a], b.clients[name].raw[:cut_b]
        pa = [r for r, f in zip(left, fa, strict=False) if f["t"] == "presence"]
        pb = [r for r, f in zip(right, fb, strict=False) if f["t"] == "presence"]
        assert pa and pb and pa[-1] == pb[-1], (i, name)
        left = [r for r, f in zip(left, fa, strict=False) if f["t"] != "presence"]
        right = [r for r, f in zip(right, fb, strict=False) if f["t"] != "presence"]
        ga = [f for f in fa[:cut_a] if f["t"] != "presence"]
        gb = [f for f in fb[:cut_b] if f["t"] != "presence"]
        for j, (x, y) in enumerate(zip(left, right, strict=False)):
            assert x == y, (i, name, j, ga[j], gb[j])
        assert len(left) == len(right), (i, name)
        compared += len(left) + 1
        heads += sum(1 for f in fa[:cut_a] for e in f.get("events", ()) if e["head"])
        # The first differing reveal really differs (the pair tested something), and so
        # does its head: the heads are compared, and they follow the public log.
        da = next(e for f in fa if f.get("t") == "deltas" for e in f["events"]
                  if e["seq"] == first_diff)
        db = next(e for f in fb if f.get("t") == "deltas" for e in f["events"]
                  if e["seq"] == first_diff)
        assert da["event"] != db["event"]
        assert da["head"] != db["head"]
    for (sa, ca, ba), (sb, cb, bb) in zip(a.http, b.http, strict=True):
        assert sa == sb and ca == cb
        assert ba == bb, (i, sa, body_value(ba), body_value(bb))
        compared += 1
    assert heads > first_diff  # every seat and spectator saw heads before the cut

    # Nothing face down is in any frame or response, and no seed at all.
    for side in (a, b):
        shown = deck_positions(side.events)
        secret = await secrets_of(side.server.redis_url, side.id)
        for c in side.clients.values():
            for raw, f in zip(c.raw, c.frames, strict=True):
                assert not any(s.encode() in (raw if isinstance(raw, bytes) else raw.encode())
                               for s in secret.values())
                seq = frame_seq(f)
                if seq is not None:
                    assert not hidden_cards(f, side.deck, shown[seq]), (f, shown[seq])
        for seq, _, body in side.http:
            assert not any(s.encode() in body for s in secret.values())
            assert not hidden_cards(body_value(body), side.deck, shown[seq])
        for c in side.clients.values():
            await c.close()
    return {"frames": compared, "actions": step, "first_diff": first_diff, "heads": heads}


async def test_twin_tables_send_identical_bytes_until_the_first_differing_reveal(
        redis_url, own_redis, spawn, tmp_path) -> None:
    clock = ClockFile(tmp_path / "clock")
    clock.stop_at(1_800_000_000_000)  # both servers' clocks show the same time throughout
    env = {"CARDTABLE_BOT_DELAY": "0.005", **clock.env}
    first = spawn(redis_url, "first", env).start()
    twin = spawn(own_redis.url, "twin", env).start()
    sides = [(first, Lobby(first.url)), (twin, Lobby(twin.url))]
    total = {"frames": 0, "actions": 0, "heads": 0}
    for i in range(PAIRS):
        out = await play_pair(sides, i)
        for key in total:
            total[key] += out[key]
    for _, lobby in sides:
        await lobby.close()
    assert not crashes(first.log_text()) and not crashes(twin.log_text())
    print(f"\n{PAIRS} table pairs, {total['actions']} actions each side, "
          f"{total['frames']} frames and responses compared byte for byte, "
          f"{total['heads']} of them with a chain head")


async def test_no_seed_or_face_down_card_before_the_end(logged_server) -> None:
    lobby = Lobby(logged_server.url)
    table = await lobby.create(3)
    tid = table["id"]
    seat0 = await lobby.join(tid, "Anna")
    r = await lobby.http.post(f"/api/tables/{tid}/seed", json={"player_seed": "anna-1234"},
                              headers={"Authorization": f"Bearer {seat0['token']}"})
    assert r.status_code == 200, r.text
    r = await lobby.http.post(f"/api/tables/{tid}/leave",
                              headers={"Authorization": f"Bearer {seat0['token']}"})
    assert r.status_code == 200
    for seat in range(3):
        await lobby.bot(tid, seat)
    spectators = [await Client(logged_server.ws_url, tid, binary=b).connect()
                  for b in (True, False)]
    await lobby.start(tid, table["owner_token"])
    bodies: list[tuple[int, bytes]] = []
    while True:
        seq = spectators[0].last_seq() or 0
        for path in HTTP_PATHS:
            r = await lobby.http.get(f"/api/tables/{tid}{path}")
            if path == "/record" and r.status_code == 200:
                break
            bodies.append((seq, r.content))
        else:
            continue
        break
    record = r.json()
    for s in spectators:
        await s.wait(ended)
    secrets = [record["server_seed"].encode(), record["seed"].encode()]
    events = [EINAUGE.start(record["players"], record["options"], "", record["deck"])]
    state = EINAUGE.replay(events[0])
    flat = list(events[0])
    for action in record["actions"]:
        flat += EINAUGE.play(state, EINAUGE.actions.decode(action))
    shown = deck_positions(flat)
    end = len(flat)
    checked = 0
    for s in spectators:
        for raw, f in zip(s.raw, s.frames, strict=True):
            seq = frame_seq(f)
            if seq == end:
                continue  # the end: the record is public from here on
            data = raw if isinstance(raw, bytes) else raw.encode()
            assert not any(x in data for x in secrets)
            if seq is not None:
                assert not hidden_cards(f, record["deck"], shown[seq])
            checked += 1
    for _, body in bodies:
        assert not any(x in body for x in secrets)
        value = body_value(body)
        # The game runs while we poll: a body is checked at the seq it says it shows.
        if isinstance(value, dict) and isinstance(value.get("seq"), int):
            assert not hidden_cards(value, record["deck"], shown[value["seq"]])
        checked += 1
    metrics = (await lobby.http.get("/metrics")).content
    log = logged_server.log_text().encode()
    for x in secrets:
        assert x not in metrics and x not in log
    # The log names tables, seats and seqs, never cards: no deck order can leak through it.
    assert not [card for card in record["deck"] if card.encode() in log + metrics]
    assert tid.encode() not in metrics
    for token in (seat0["token"], table["owner_token"]):  # tokens are never logged either
        assert token.encode() not in log and token.encode() not in metrics
    # ... and Redis holds only their SHA-256 (a leaked dump gives no seat away).
    store = redis.Redis.from_url(logged_server.redis_url)
    stored = b"".join(b"".join(store.hgetall(k).values()) if store.type(k) == b"hash" else b""
                      for k in store.scan_iter(f"t:{{{tid}}}:*"))
    store.close()
    assert hashlib.sha256(table["owner_token"].encode()).hexdigest().encode() in stored
    assert table["owner_token"].encode() not in stored and seat0["token"].encode() not in stored
    for s in spectators:
        await s.close()
    await lobby.close()
    assert checked > 100
    assert not crashes(log.decode())


def test_shuffled_decks_of_a_pair_are_permutations() -> None:
    """The twin decks hold the same cards (the colors in play are public)."""
    rng = random.Random(5)
    for n in (2, 3, 4, 5):
        a, b, k = twin_decks(rng, n, f"perm-{n}")
        assert sorted(a) == sorted(b) and a[:k] == b[:k] and a[k] != b[k]
        assert a == shuffled_deck(n, f"perm-{n}")
        assert set(a) <= ISLANDS
