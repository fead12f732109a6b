"""The shuffle of CONTRACT-einauge.md section 2: an independent re-implementation written
from the contract text, plus committed literal test vectors, so any change is caught."""

from __future__ import annotations

import hashlib
import struct

import pytest

from engine.einauge import EINAUGE
from engine.einauge.setup import shuffled_deck
from engine.shuffle import RandomStream, combine_seed, commitment

SEED = "6131539705869d8e4705e80ec4bde2e5d814fd71c789b2eae59432b3aa3cd2a2"
CANONICAL = ["blue", "green", "red", "yellow", "purple", "orange", "brown", "gray"]
KEEP = {2: 5, 3: 6, 4: 7, 5: 8}

# --- the contract, written out independently (no engine import) ------------------------


def _words(seed: str):
    k = 0
    while True:
        block = hashlib.sha256(seed.encode("utf-8") + struct.pack(">Q", k)).digest()
        yield from struct.unpack(">QQQQ", block)
        k += 1


def _below(words, n: int) -> int:
    limit = 2**64 - (2**64 % n)
    while True:
        u = next(words)
        if u < limit:
            return u % n


def _fisher_yates(words, items: list) -> list:
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = _below(words, i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def reference_setup(seed: str, n_players: int, removed: list[str] | None = None):
    """(removed colors, deck top first) by CONTRACT section 2, one stream."""
    words = _words(seed)
    keep = KEEP[n_players]
    if removed is None:
        removed = _fisher_yates(words, CANONICAL)[: 8 - keep] if keep < 8 else []
    cards = [f"{c}-{p}" for c in CANONICAL if c not in removed for p in range(2, 9)]
    return removed, _fisher_yates(words, cards)


# --- committed vectors ----------------------------------------------------------------

VECTOR_3 = (["yellow", "purple"], [
    "green-3", "brown-8", "orange-7", "red-5", "green-8", "red-7", "blue-6", "red-3",
    "green-5", "orange-4", "red-2", "brown-4", "gray-6", "brown-2", "green-4", "red-8",
    "green-6", "gray-7", "brown-7", "blue-8", "green-2", "red-4", "red-6", "orange-8",
    "brown-5", "blue-3", "orange-3", "brown-3", "green-7", "orange-5", "blue-2", "brown-6",
    "blue-7", "orange-6", "gray-3", "blue-4", "gray-5", "gray-2", "blue-5", "gray-4",
    "gray-8", "orange-2"])

VECTOR_5 = ([], [
    "brown-6", "brown-7", "blue-4", "gray-6", "green-4", "yellow-6", "gray-3", "green-5",
    "yellow-2", "orange-4", "yellow-4", "red-5", "gray-2", "orange-6", "brown-4", "green-8",
    "red-2", "purple-8", "green-6", "red-4", "orange-2", "blue-6", "brown-3", "green-3",
    "brown-5", "red-8", "yellow-8", "blue-2", "red-3", "orange-7", "blue-5", "yellow-3",
    "blue-3", "gray-5", "gray-4", "blue-7", "purple-2", "orange-3", "purple-6", "red-6",
    "purple-4", "purple-5", "purple-7", "green-7", "blue-8", "purple-3", "yellow-7",
    "gray-8", "brown-2", "orange-8", "orange-5", "gray-7", "green-2", "red-7", "yellow-5",
    "brown-8"])


@pytest.mark.parametrize(("n", "vector"), [(3, VECTOR_3), (5, VECTOR_5)])
def test_committed_vector(n: int, vector: tuple[list[str], list[str]]) -> None:
    removed, deck = vector
    assert reference_setup(SEED, n) == (removed, deck)
    assert shuffled_deck(n, SEED) == deck
    game_started = EINAUGE.start([f"p{i}" for i in range(n)], {}, SEED)[0]
    assert game_started.deck == deck
    assert not {c.rpartition("-")[0] for c in deck} & set(removed)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", ["", "a", "x" * 200, "ü:seat:", SEED, "0" * 64])
def test_engine_matches_reference(n: int, seed: str) -> None:
    removed, deck = reference_setup(seed, n)
    assert len(removed) == 8 - KEEP[n]
    assert shuffled_deck(n, seed) == deck
    assert len(deck) == 7 * KEEP[n]


def test_removed_colors_given_means_no_color_draws() -> None:
    removed = ["red", "gray"]
    _, deck = reference_setup(SEED, 3, removed)
    assert shuffled_deck(3, SEED, removed) == deck
    started = EINAUGE.start(["a", "b", "c"], {"removed_colors": removed}, SEED)[0]
    assert started.deck == deck
    # The deck shuffle starts at the stream's first word: it equals an 8-color shuffle of
    # only those cards.
    words = _words(SEED)
    cards = [f"{c}-{p}" for c in CANONICAL if c not in removed for p in range(2, 9)]
    assert _fisher_yates(words, cards) == deck


def test_random_stream_words_and_rejection() -> None:
    block0 = struct.unpack(">4Q", hashlib.sha256(b"abc" + bytes(8)).digest())
    block1 = struct.unpack(">4Q", hashlib.sha256(b"abc" + (1).to_bytes(8, "big")).digest())
    s = RandomStream("abc")
    assert [s.below(2**63) for _ in range(8)] == [w % 2**63 for w in (*block0, *block1)]
    s = RandomStream("abc")
    s._words = (2**64 - 1, 5)  # unread words; 2^64-1 is at the limit for n=3: drawn again
    assert s.below(3) == 2
    # a rejection inside a shuffle draws again, then goes on with the stream (block 0)
    s = RandomStream("abc")
    s._words = (2**64 - 1, 5)
    j = block0[0] % 2
    assert s.shuffle(["a", "b", "c"]) == [["b", "a"][j], ["a", "b"][j], "c"]
    assert s.below(2**63) == block0[1] % 2**63
    # below and shuffle share one stream, whatever the batch size
    s = RandomStream("abc")
    words = _words("abc")
    assert s.below(7) == _below(words, 7)
    assert s.shuffle(list(range(30))) == _fisher_yates(words, list(range(30)))
    assert [s.below(n) for n in (2, 300, 2**40)] == [_below(words, n) for n in (2, 300, 2**40)]
    with pytest.raises(ValueError):
        RandomStream("abc").below(0)
    assert RandomStream("abc").shuffle([]) == [] and RandomStream("abc").shuffle([1]) == [1]


def test_commitment_and_combined_seed() -> None:
    server = "ab" * 32
    assert commitment(server) == hashlib.sha256(server.encode()).hexdigest()
    assert len(commitment(server)) == 64 and commitment(server).islower()
    assert combine_seed(server, ["c0", "", "c2"]) == f"{server}:c0::c2"
    assert combine_seed(server, []) == server
