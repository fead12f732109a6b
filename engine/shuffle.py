"""The provably fair random stream and shuffle of CONTRACT-einauge.md, section 2.

Language-independent by design: block ``B_k = SHA-256(seed_bytes || k)`` with ``k`` as 8
bytes big-endian; each block gives four big-endian unsigned 64-bit integers; ``below(n)``
rejects draws at or above ``2^64 - (2^64 mod n)``; Fisher–Yates runs from the last index
down to 1. Any verifier that follows those lines gets the same order from the same seed.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_TWO_64 = 1 << 64
_LIMITS = (0, *(_TWO_64 - (_TWO_64 % n) for n in range(1, 257)))
"""``2^64 - (2^64 mod n)`` for n = 1..256 (the rejection bound of ``below``), by index."""


class RandomStream:
    """Draws from the SHA-256 stream of one seed (a string; its UTF-8 bytes are hashed).

    Words are hashed a batch of blocks at a time (a shuffle of ``m`` items asks for the
    ``m - 1`` words it will almost surely need at once) and unpacked with one
    ``struct.unpack``: the same stream, without a generator step per word.
    """

    __slots__ = ("_block", "_pos", "_seed", "_words")

    def __init__(self, seed: str) -> None:
        self._seed = seed.encode("utf-8")
        self._block = 0
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def _fill(self, wanted: int) -> None:
        """Append the next blocks to the unread words, at least ``wanted`` words."""
        blocks = max(1, -(-wanted // 4))
        seed, k = self._seed, self._block
        data = b"".join([hashlib.sha256(seed + (k + b).to_bytes(8, "big")).digest()
                         for b in range(blocks)])
        self._words = self._words[self._pos:] + struct.unpack(f">{4 * blocks}Q", data)
        self._pos = 0
        self._block = k + blocks

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection; raises ``ValueError`` if n < 1."""
        if n < 1:
            raise ValueError("below(n) needs n >= 1")
        limit = _LIMITS[n] if n < len(_LIMITS) else _TWO_64 - (_TWO_64 % n)
        while True:
            if self._pos == len(self._words):
                self._fill(1)
            u = self._words[self._pos]
            self._pos += 1
            if u < limit:
                return u % n

    def shuffle(self, items: list[T]) -> list[T]:
        """Fisher–Yates in place (i from len-1 down to 1, j = below(i+1)); returns items."""
        last = len(items) - 1
        if last > len(self._words) - self._pos:
            self._fill(last - (len(self._words) - self._pos))
        words, pos, limits = self._words, self._pos, _LIMITS
        for i in range(last, 0, -1):
            n = i + 1
            limit = limits[n] if n < len(limits) else _TWO_64 - (_TWO_64 % n)
            while True:
                if pos == len(words):  # only after a rejection (probability < n / 2^64)
                    self._pos = pos
                    self._fill(i)
                    words, pos = self._words, 0
                u = words[pos]
                pos += 1
                if u < limit:
                    break
            j = u % n
            items[i], items[j] = items[j], items[i]
        self._pos = pos
        return items


def commitment(server_seed: str) -> str:
    """``SHA-256(server_seed)`` as lowercase hex: published before any player contributes."""
    return hashlib.sha256(server_seed.encode("utf-8")).hexdigest()


def combine_seed(server_seed: str, contributions: list[str]) -> str:
    """The game's seed: ``server_seed`` then ``":" + contribution`` for each seat in order.

    A seat that contributed nothing is an empty string (CONTRACT section 2).
    """
    return ":".join([server_seed, *contributions])


def shuffle_slots(slots: Sequence[tuple[list[T], int]], stream: RandomStream) -> None:
    """Fisher–Yates (``stream.shuffle``) of the items at ``slots`` among those slots, in
    place: each slot is ``(a list, an index into it)``, read and written in the given
    order. A branch's re-deal (``engine.branch``): the cards a seat has not seen change
    places, every other card stays where it was dealt."""
    cards = stream.shuffle([items[i] for items, i in slots])
    for (items, i), card in zip(slots, cards, strict=True):
        items[i] = card
