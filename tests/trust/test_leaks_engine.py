"""No hidden-information leaks, engine level (issue 7).

For pairs of games whose decks share the cards dealt so far and differ in the order of the
rest, the same actions give, for every viewer (each seat and a spectator), byte-identical
projected events, views and legal actions, msgpack-encoded, up to the event that reveals
the first differing card. That event must differ (else the pair tested nothing). Equal
msgpack bytes mean equal values, key order and types included, so the JSON encodings are
equal too (the JSON form is compared once per pair, at its last common event).
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgpack

from engine.einauge.game import EINAUGE
from engine.einauge.setup import shuffled_deck
from engine.game import Viewer

PAIRS = 200


def encodings(value: Any) -> bytes:
    """The msgpack wire encoding (key order kept)."""
    return msgpack.packb(value, use_bin_type=True)


def json_bytes(value: Any) -> bytes:
    """The JSON wire encoding (key order kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def twin_decks(rng: random.Random, n_players: int, seed: str) -> tuple[list[str], list[str], int]:
    """Deck A from the shuffle, deck B equal on the first ``k`` cards and different at
    position ``k`` (``7 <= k``: the first 7 are dealt at setup), shuffled after it."""
    a = shuffled_deck(n_players, seed)
    k = rng.randrange(7, len(a) - 1)
    tail = a[k:]
    rng.shuffle(tail)
    if tail[0] == a[k]:
        j = rng.randrange(1, len(tail))
        tail[0], tail[j] = tail[j], tail[0]
    return a, a[:k] + tail, k


def frames(state: Any, event: Any, viewers: list[Viewer]) -> list[bytes]:
    """Everything each viewer may be sent after ``event``: its projection, the view, and
    the legal actions of the seat to move."""
    out = []
    to_move = EINAUGE.to_move(state)
    for viewer in viewers:
        out.append(encodings(EINAUGE.project(event, viewer)))
        out.append(encodings(EINAUGE.view(state, viewer)))
        if viewer is not None and viewer in to_move:
            out.append(encodings([a.to_dict() for a in EINAUGE.legal_actions(state, viewer)]))
    return out


def play_pair(i: int) -> tuple[int, bool]:
    """Play pair ``i``; returns (events compared, whether the differing card was revealed)."""
    rng = random.Random(f"leak-pair-{i}")
    n = rng.randrange(2, 6)
    players = [f"p{s}" for s in range(n)]
    options = {"end_rule": rng.choice(["round", "one_more_turn"]),
               "color_bonus": rng.random() < 0.5}
    deck_a, deck_b, k = twin_decks(rng, n, f"leak-{i}")
    viewers: list[Viewer] = [None, *range(n)]
    # Play each game's events one at a time on a second state, to see every intermediate
    # view a client could be shown, not only the one after a whole action.
    events_a = EINAUGE.start(players, options, "", deck_a)
    events_b = EINAUGE.start(players, options, "", deck_b)
    play_a, play_b = EINAUGE.replay(events_a), EINAUGE.replay(events_b)
    view_a, view_b = EINAUGE.initial_state(), EINAUGE.initial_state()
    last_a = last_b = view_a
    compared = 0
    while True:
        assert len(events_a) == len(events_b)
        for ea, eb in zip(events_a, events_b, strict=True):
            EINAUGE.evolve(view_a, ea)
            EINAUGE.evolve(view_b, eb)
            if view_a.deck_pos > k:
                # This event revealed deck position k: it shows different cards.
                assert ea.to_dict() != eb.to_dict()
                assert encodings(EINAUGE.project(ea, None)) != encodings(
                    EINAUGE.project(eb, None))
                assert all(json_bytes(EINAUGE.view(last_a, v)) == json_bytes(
                    EINAUGE.view(last_b, v)) for v in viewers)
                return compared, True
            assert frames(view_a, ea, viewers) == frames(view_b, eb, viewers), (i, compared)
            last_a, last_b = view_a.copy(), view_b.copy()
            compared += 1
        seats = EINAUGE.to_move(play_a)
        assert seats == EINAUGE.to_move(play_b)
        if not seats:
            assert play_a.result == play_b.result
            return compared, False
        legal = EINAUGE.legal_actions(play_a, seats[0])
        action = legal[rng.randrange(len(legal))]
        events_a = EINAUGE.play(play_a, action)
        events_b = EINAUGE.play(play_b, action)


def test_unseen_deck_order_never_reaches_a_client_before_its_reveal() -> None:
    total = revealed = 0
    for i in range(PAIRS):
        compared, hit = play_pair(i)
        total += compared
        revealed += hit
    # The ships lie under every island card, so every game reveals the differing card
    # before it can end: each pair tests something.
    assert revealed == PAIRS
    print(f"\n{PAIRS} game pairs, {total} events compared for every viewer, "
          f"{revealed} reached the first differing card")


def test_game_started_projection_hides_the_deck() -> None:
    deck = shuffled_deck(3, "hidden")
    started = EINAUGE.start(["a", "b", "c"], {}, "", deck)[0]
    for viewer in (None, 0, 1, 2):
        wire = EINAUGE.project(started, viewer)
        assert "deck" not in wire
        assert wire["display"] == deck[:6] and wire["pirate_table"] == deck[6:7]
        hidden = deck[7:]
        text = json.dumps(wire)
        assert not any(f'"{card}"' in text for card in hidden)
