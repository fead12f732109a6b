"""Setup (RULES-keltis "Components" and "Setup", CONTRACT-keltis §1–2): the card set, the
shuffle with a committed test vector, the 2-player removal, the block deal, bad input."""

from __future__ import annotations

import hashlib
import struct

import pytest

from engine import get_game
from engine.einauge import EINAUGE
from engine.keltis import KELTIS
from engine.keltis import events as ev
from engine.keltis.cards import CANONICAL, COLORS, END, KIND, NUMBER, POINT_CARD, VALUE
from engine.keltis.setup import shuffled_deck
from tests.engine.keltis.helpers import Table

SEED = "6131539705869d8e4705e80ec4bde2e5d814fd71c789b2eae59432b3aa3cd2a2"


# --- the card set, written out from the RULES table, not from engine code ---------------

def _spec_canonical() -> list[str]:
    out = []
    for color in ["green", "yellow", "red", "pink", "blue"]:
        for value in range(11):
            if 3 <= value <= 7:
                out += [f"{color}-{value}a", f"{color}-{value}b"]
            else:
                out.append(f"{color}-{value}")
        out += [f"end-{color}-1", f"end-{color}-2"]
    return out + [f"point-{v}" for v in range(11)]


def test_card_set_and_canonical_order() -> None:
    assert list(CANONICAL) == _spec_canonical()
    assert len(CANONICAL) == 101
    kinds = [KIND[c] for c in CANONICAL]
    assert (kinds.count(NUMBER), kinds.count(END), kinds.count(POINT_CARD)) == (80, 10, 11)
    assert CANONICAL[:5] == ("green-0", "green-1", "green-2", "green-3a", "green-3b")
    assert CANONICAL[15:19] == ("green-10", "end-green-1", "end-green-2", "yellow-0")
    assert VALUE["green-7b"] == 7 and VALUE["point-10"] == 10 and VALUE["end-red-2"] is None


def test_registry_finds_both_games() -> None:
    assert get_game("keltis") is KELTIS and get_game("einauge") is EINAUGE
    assert (KELTIS.min_players, KELTIS.max_players, KELTIS.uniform_view) == (2, 4, False)


# --- the shuffle: an independent reading of CONTRACT §2, and literal vectors -------------

def _contract_shuffle(seed: str, items: list[str]) -> list[str]:
    def words():
        k = 0
        while True:
            block = hashlib.sha256(seed.encode("utf-8") + struct.pack(">Q", k)).digest()
            yield from struct.unpack(">QQQQ", block)
            k += 1

    stream = words()

    def below(n: int) -> int:
        limit = 2**64 - (2**64 % n)
        while True:
            u = next(stream)
            if u < limit:
                return u % n

    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = below(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def test_shuffle_matches_an_independent_reading_of_the_contract() -> None:
    for seed in (SEED, "", "é:x:", "keltis"):
        assert shuffled_deck(seed) == _contract_shuffle(seed, _spec_canonical())


def test_committed_vector() -> None:
    deck = shuffled_deck(SEED)
    assert deck[:10] == ["end-pink-1", "point-8", "end-red-1", "blue-4b", "green-4b", "pink-8",
                         "green-9", "end-yellow-1", "blue-5a", "yellow-7a"]
    assert deck[-3:] == ["point-9", "yellow-1", "green-8"]
    assert shuffled_deck("")[:5] == ["end-pink-2", "red-4b", "yellow-6b", "yellow-1", "red-9"]


def test_first_draws_by_hand() -> None:
    """Worked by hand from the contract: block 0 = SHA-256(seed || 00000000 00000000) =
    6d4ee82d9d561e10 9b91da2a7be8e41f 30a304f3c79db277 58af54b510c6f6b7 (hex words).

    i = 100: j = 0x6d4ee82d9d561e10 mod 101 = 13 (far below the rejection limit), and
    canonical[13] = green-8 goes to the bottom (index 100). i = 99: j = 0x9b91da2a7be8e41f
    mod 100 = 19 = yellow-1 (green has 16 number cards + 2 end cards: yellow-0 is 18).
    i = 98: j = 0x30a304f3c79db277 mod 99 = 19, which now holds canonical[99] = point-9.
    """
    block = hashlib.sha256(SEED.encode() + bytes(8)).hexdigest()
    assert block == "6d4ee82d9d561e109b91da2a7be8e41f30a304f3c79db27758af54b510c6f6b7"
    assert (0x6d4ee82d9d561e10 % 101, 0x9b91da2a7be8e41f % 100, 0x30a304f3c79db277 % 99) == (
        13, 19, 19)
    assert shuffled_deck(SEED)[98:] == ["point-9", "yellow-1", "green-8"]


# --- removal and block deal --------------------------------------------------------------

@pytest.mark.parametrize(("n", "removed", "deck_count"), [(2, 30, 55), (3, 0, 77), (4, 0, 69)])
def test_deal_from_the_shuffled_list(n: int, removed: int, deck_count: int) -> None:
    events = KELTIS.start([f"p{i}" for i in range(n)], {}, SEED)
    deck = shuffled_deck(SEED)
    state = KELTIS.replay(events)
    assert state.deck_count == deck_count and len(state.removed) == removed
    assert state.removed == deck[:removed]
    for seat in range(n):
        block = deck[removed + 8 * seat: removed + 8 * seat + 8]  # a block deal, seat order
        dealt = [e for e in events if isinstance(e, ev.HandDealt) and e.seat == seat]
        assert [e.cards for e in dealt] == [block]
        assert sorted(state.players[seat].hand) == sorted(block)
    assert state.deck[state.deck_pos] == deck[removed + 8 * n]  # the deck's top card
    kinds = [type(e) for e in events]
    assert kinds == [ev.GameStarted, *([ev.CardsRemoved] if n == 2 else []),
                     *[ev.HandDealt] * n]


def test_vector_hands_three_players() -> None:
    """Seat 0 takes the first 8 cards of the vector; a hand is kept in canonical order."""
    state = KELTIS.replay(KELTIS.start(["a", "b", "c"], {}, SEED))
    assert state.players[0].hand == ["green-4b", "green-9", "end-yellow-1", "end-red-1",
                                     "pink-8", "end-pink-1", "blue-4b", "point-8"]
    assert state.players[1].hand == ["green-3a", "green-4a", "green-7b", "end-green-2",
                                     "yellow-7a", "red-4b", "end-red-2", "blue-5a"]


def test_setup_state() -> None:
    t = Table(3)
    v = t.view()
    assert v["stones"] == [f"stone-{i}" for i in range(1, 10)]  # open row, value order
    assert (v["phase"], v["step"], v["current_seat"]) == ("turns", "play", 0)  # seat 0 starts
    assert all(p["hand_count"] == 8 for p in v["players"])
    assert all(v["discards"][pile] == [] for pile in [*COLORS, "point"])


def test_given_deck_wins_over_seed() -> None:
    deck = list(reversed(CANONICAL))
    state = KELTIS.replay(KELTIS.start(["a", "b", "c"], {}, SEED, deck))
    assert state.deck == deck


@pytest.mark.parametrize("deck", [
    list(CANONICAL[:100]),                       # one short
    [*CANONICAL[:100], CANONICAL[0]],            # a duplicate
    [*CANONICAL[:100], "stone-1"],               # not a deck card
    [*CANONICAL, "green-11"],                    # too many
    "green-1",                                   # not a list
])
def test_bad_decks_refused(deck: object) -> None:
    with pytest.raises(ValueError):
        KELTIS.start(["a", "b"], {}, "s", deck)  # type: ignore[arg-type]


@pytest.mark.parametrize(("players", "options"), [
    (["a"], {}), (["a"] * 5, {}), (["a", ""], {}), (["a", " "], {}), (["a", "x" * 65], {}),
    ("ab", {}), (["a", 3], {}), (["a", "b"], {"variant": 1}), (["a", "b"], []),
])
def test_bad_players_and_options_refused(players: object, options: object) -> None:
    with pytest.raises(ValueError):
        KELTIS.start(players, options, "seed")  # type: ignore[arg-type]


def test_seed_or_deck_required() -> None:
    with pytest.raises(ValueError):
        KELTIS.start(["a", "b"], {}, None)  # type: ignore[arg-type]
    assert KELTIS.start(["a", "b"], None, "s")[0].options == {}
