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

import random
from typing import Any

import httpx
import pytest

from engine.game import Message
from engine.keltis import KELTIS
from engine.keltis.cards import CANONICAL
from engine.keltis.setup import shuffled_deck
from tests.server.client import ClockFile
from tests.trust.twins import Spec, play_pair
from tests.trust.wire import Lobby, crashes

PAIRS = 3
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


def choose(rng: random.Random, a: Any, b: Any, seat: int) -> Message:
    """An action legal on both sides, so never one naming X or Y."""
    on_b = set(KELTIS.legal_actions(b, seat))
    both = [m for m in KELTIS.legal_actions(a, seat) if m in on_b]
    assert both, seat
    return both[rng.randrange(len(both))]


SPEC = Spec(game=KELTIS, cards=CARDS, unseen_by=unseen_by, choose=choose, max_actions=70,
            holder_sees_by=lambda n: n + 2)


# Thousands of HTTP answers and frames compared per pair: minutes on a loaded 2-core
# machine (over the suite's 600 s once there); the comparison is the point, not the time.
@pytest.mark.timeout(1800)
async def test_twin_keltis_tables_send_identical_bytes_until_the_card_is_seen(
        redis_url, own_redis, spawn, tmp_path) -> None:
    clock = ClockFile(tmp_path / "clock")
    clock.stop_at(1_800_000_000_000)  # both servers' clocks show the same time throughout
    env = {"CARDTABLE_BOT_DELAY": "0.005", **clock.env}
    first = spawn(redis_url, "first-keltis", env).start()
    twin = spawn(own_redis.url, "twin-keltis", env).start()
    sides = [(first, Lobby(first.url)), (twin, Lobby(twin.url))]
    total = {"frames": 0, "actions": 0, "cut_short": 0}
    for i in range(PAIRS):
        rng = random.Random(f"keltis-wire-{i}")
        n = 2 + i % 3
        deck_a, deck_b, j, x, y = twin_keltis_decks(rng, n, f"kw-{i}")
        out = await play_pair(SPEC, sides, rng, n, (deck_a, deck_b), j, x, y)
        for key in total:
            total[key] += out[key]
    assert total["cut_short"] >= 1  # some viewer drew X or Y: the cut was exercised
    log = first.log_text() + twin.log_text()
    async with httpx.AsyncClient() as http:
        metrics = (await http.get(f"{first.url}/metrics")).text
    assert not [c for c in CANONICAL if c in log or c in metrics]
    for _, lobby in sides:
        await lobby.close()
    assert not crashes(first.log_text()) and not crashes(twin.log_text())
    print(f"\n{PAIRS} Keltis table pairs, {total['actions']} actions each side, "
          f"{total['frames']} frames and answers compared byte for byte")
