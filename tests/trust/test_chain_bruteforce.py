"""Nothing a spectator receives narrows down the face-down cards (issue 13, finding 1).

Games are started through the lobby (the real shuffle of a committed seed, one player
seed contributed) and played through the server's websockets to a late position, with
only 3-6 island cards still face down. Then a tokenless observer's whole haul is
collected: the welcome of a spectator there from the start and its deltas (msgpack and
JSON, bytes as received), a late spectator's welcome, a reconnect's missed deltas, and
the HTTP summary, ``/view``, ``/events``, ``/deltas`` and ``/record`` (refused). From that
alone the observer works out which cards are still face down, and tries every order of
them:

- under the chain of before issue 13 (heads over the full events, ``game_started`` with
  its deck), the head of delta 1 the old server would have sent matches exactly one order,
  the real one: the attack is real, and this test would catch it;
- under the chain the service uses (heads over the spectators' projections), every order
  rebuilds every value received, every frame byte for byte, heads included: nothing
  singles any order out.

The test drives the seats knowing the true game (read from Redis) only to choose legal
actions and to check its brute force against the truth; the observer gets the actions,
which is more than a spectator has (it sees their events), and still learns nothing.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from typing import Any

from engine.chain import genesis, heads, link, public_events
from engine.einauge.cards import CARDS
from engine.einauge.game import EINAUGE
from engine.game import Message
from server.store.sealing import SeedSeal
from server.store.streams import Store
from server.table.core import replay_deltas
from server.ws import protocol
from tests.conftest import SEED_KEYS
from tests.trust.wire import Client, Lobby, crashes, secrets_of, unpack

# Per game: players, and how few island cards may be face down before it stops (a refill
# can turn up more than one, so a game stops at this many or one fewer).
GAMES = ((3, 6), (2, 5), (4, 4), (5, 3))


def islands_face_down(state: Any) -> int:
    return sum(1 for c in state.deck[state.deck_pos:] if CARDS[c].color)


def same(a: Any, b: Any) -> bool:
    """Equal JSON values, types included (``1`` is not ``1.0`` nor ``true``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


async def stored_events(redis_url: str, table_id: str) -> list[Message]:
    """The table's full events, secrets included, straight from Redis (test only)."""
    store = Store.from_url(redis_url, seal=SeedSeal.at(SEED_KEYS))
    try:
        return [EINAUGE.events.decode(e["e"]) for e in await store.load_entries(table_id)]
    finally:
        await store.close()


async def play_to_late_position(server: Any, lobby: Lobby, players: int, late: int,
                                rng: random.Random) -> dict[str, Any]:
    """Play one game to a late position; returns what the observer received, the
    actions, and the truth (full events, stored entries' secrets)."""
    table = await lobby.create(players)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"p{s}"))["token"] for s in range(players)]
    r = await lobby.http.post(f"/api/tables/{tid}/seed", json={"player_seed": f"ps-{tid}"},
                              headers={"Authorization": f"Bearer {tokens[-1]}"})
    assert r.status_code == 200, r.text
    seats = [await Client(server.ws_url, tid).connect(tok) for tok in tokens]
    watchers = [await Client(server.ws_url, tid, binary=b).connect() for b in (True, False)]
    await lobby.start(tid, table["owner_token"])
    events = await stored_events(server.redis_url, tid)
    state = EINAUGE.replay(events)
    actions: list[Message] = []
    while islands_face_down(state) > late:
        assert EINAUGE.to_move(state), "the game ended before a late position"
        seat = EINAUGE.to_move(state)[0]
        legal = EINAUGE.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        actions.append(action)
        mark, aid = len(seats[seat].frames), f"a{len(actions)}"
        await seats[seat].send({"t": "action", "id": aid, "action": action.to_dict()})
        ack = await seats[seat].wait(lambda f, aid=aid: f.get("id") == aid, start=mark)
        assert ack["t"] == "ack", ack
        events += EINAUGE.play(state, action)
    seq = len(events)
    for w in watchers:
        await w.wait(lambda f: f["t"] == "deltas" and f["seq"] == seq)
    late_spectator = await Client(server.ws_url, tid).connect()
    late_welcome = await late_spectator.wait(lambda f: f["t"] == "welcome")
    back = seq - 10
    rejoined = await Client(server.ws_url, tid).connect(last_seq=back)
    await rejoined.wait(lambda f: f["t"] == "deltas" and f["seq"] == seq)
    http = {path: await lobby.http.get(f"/api/tables/{tid}{path}")
            for path in ("", "/view", "/events?from=0", "/deltas?from=0", "/record")}
    for c in (*seats, *watchers, late_spectator, rejoined):
        await c.close()

    def deltas(client: Client) -> list[bytes | str]:
        return [raw for raw, f in zip(client.raw, client.frames, strict=True)
                if f["t"] == "deltas"]

    seen = {
        "table_id": tid,
        "open_welcome": watchers[0].frames[0],
        "live_msgpack": deltas(watchers[0]),
        "live_json": deltas(watchers[1]),
        "late_welcome": late_welcome,
        "rejoined_after": back,
        "rejoined": deltas(rejoined),
        "http": {path: (resp.status_code, resp.json()) for path, resp in http.items()},
    }
    truth = {"events": await stored_events(server.redis_url, tid), "mirror": events,
             "secrets": await secrets_of(server.redis_url, tid)}
    return {"seen": seen, "actions": actions, "truth": truth}


def observer_knowledge(seen: dict[str, Any]) -> dict[str, Any]:
    """What a tokenless observer works out from the public values alone: the table's
    public facts, the cards revealed so far in deck order, the cards still face down."""
    summary = seen["http"][""][1]
    publics = [e["event"] for raw in seen["live_msgpack"] for e in unpack(raw)["events"]]
    first = publics[0]
    revealed = [*first["display"], *first["pirate_table"],
                *(e["card"] for e in publics[1:] if e["type"] == "card_revealed")]
    in_play = [c for c, card in CARDS.items() if card.color in first["colors"]]
    face_down = sorted(set(in_play) - set(revealed))
    assert len(face_down) == seen["late_welcome"]["view"]["islands_in_deck"]
    return {"table_id": seen["table_id"], "commitment": summary["commitment"],
            "name_commitments": summary["name_commitments"],
            "players": first["players"], "options": first["options"],
            "revealed": revealed, "face_down": face_down}


def rebuild(know: dict[str, Any], deck: list[str], actions: list[Message]
            ) -> tuple[list[Message], Any, set[int]]:
    """The full events and final state the recorded actions give on ``deck``, and the
    seqs each append (the start, then each action) ended at: one live frame each."""
    events = list(EINAUGE.start(know["players"], know["options"], "", deck))
    state = EINAUGE.replay(events)
    ends = {len(events)}
    for action in actions:
        events += EINAUGE.play(state, action)
        ends.add(len(events))
    return events, state, ends


def consistent(seen: dict[str, Any], know: dict[str, Any], deck: list[str],
               actions: list[Message]) -> bool:
    """Whether the game on ``deck`` would have shown the observer exactly what it saw:
    every frame byte for byte, every HTTP body, every head."""
    events, state, ends = rebuild(know, deck, actions)
    if len(ends) != len(seen["live_msgpack"]):
        return False
    chain = [h.hex() for h in heads(know["table_id"], know["commitment"],
                                    public_events(EINAUGE, events, know["name_commitments"]))]
    live = [d.dicts[None] for d in replay_deltas(EINAUGE, [None], events, chain, ends=ends)]
    if [protocol.encode(d, True) for d in live] != seen["live_msgpack"]:
        return False
    if [protocol.encode(d, False) for d in live] != seen["live_json"]:
        return False
    # The missed frames from the ring (the live ones), or rebuilt by replay as one.
    back = seen["rejoined_after"]
    caught = [[protocol.encode(d.dicts[None], True) for d in replay_deltas(
        EINAUGE, [None], events, chain, back, ends=way)] for way in (ends, ())]
    if seen["rejoined"] not in caught:
        return False
    deltas = [d.dicts[None] for d in replay_deltas(EINAUGE, [None], events, chain)]
    welcome = seen["late_welcome"]
    if not (welcome["seq"] == len(events) and welcome["head"] == chain[-1]
            and same(welcome["view"], EINAUGE.view(state, None))):
        return False
    http = seen["http"]
    return (same(http["/view"][1], EINAUGE.view(state, None))
            and same(http["/events?from=0"][1]["events"],
                     [EINAUGE.project(e, None) for e in events])
            and same(http["/deltas?from=0"][1]["deltas"], deltas)
            and seen["open_welcome"]["head"]
            == genesis(know["table_id"], know["commitment"]).hex())


async def test_no_order_of_the_face_down_cards_is_singled_out(logged_server) -> None:
    lobby = Lobby(logged_server.url)
    tried = 0
    began = time.perf_counter()
    for i, (players, late) in enumerate(GAMES):
        game = await play_to_late_position(logged_server, lobby, players, late,
                                           random.Random(f"bruteforce-{i}"))
        seen, actions, truth = game["seen"], game["actions"], game["truth"]
        # The public values hold no secret and the record is refused before the end.
        status, body = seen["http"]["/record"]
        assert status == 409 and body["error"]["code"] == "not_ended", body
        assert seen["http"][""][0] == seen["http"]["/view"][0] == 200
        know = observer_knowledge(seen)
        true_deck = list(truth["events"][0].deck)
        assert [e.to_dict() for e in truth["events"]] == [e.to_dict() for e in truth["mirror"]]
        # The observer's reading of the public log is right: the revealed cards are the
        # top of the real deck, and the face-down ones its rest.
        assert know["revealed"] == true_deck[:len(know["revealed"])]
        assert know["face_down"] == sorted(true_deck[len(know["revealed"]):])
        assert 2 <= len(know["face_down"]) <= late

        h0 = genesis(know["table_id"], know["commitment"])
        # What the server sent before issue 13: heads over the full events.
        old_heads = heads(know["table_id"], know["commitment"],
                          [e.to_dict() for e in truth["events"]])
        old_matches, new_matches, orders = [], [], 0
        for order in itertools.permutations(know["face_down"]):
            deck = [*know["revealed"], *order]
            orders += 1
            started = EINAUGE.start(know["players"], know["options"], "", deck)[0]
            if link(h0, started.to_dict()) == old_heads[0]:
                old_matches.append(deck)
            if consistent(seen, know, deck, actions):
                new_matches.append(deck)
        tried += orders
        # The old chain gives the real order away from the head of delta 1 alone ...
        assert old_matches == [true_deck], (i, len(old_matches))
        # ... the chain of today leaves every order exactly as likely as the real one.
        assert len(new_matches) == orders, (i, orders - len(new_matches))
        for secret in truth["secrets"].values():
            for raw in (*seen["live_msgpack"], *seen["live_json"]):
                data = raw if isinstance(raw, bytes) else raw.encode()
                assert secret.encode() not in data
    await lobby.close()
    assert not crashes(logged_server.log_text())
    print(f"\n{len(GAMES)} games, {tried} orders of the face-down cards tried in "
          f"{time.perf_counter() - began:.1f} s: the old chain singled out the real order "
          f"in every game; under today's chain every order matched everything received")
