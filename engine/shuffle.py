"""The provably fair random stream and shuffle of CONTRACT-einauge.md, section 2.

Language-independent by design: block ``B_k = SHA-256(seed_bytes || k)`` with ``k`` as 8
bytes big-endian; each block gives four big-endian unsigned 64-bit integers; ``below(n)``
rejects draws at or above ``2^64 - (2^64 mod n)``; Fisher–Yates runs from the last index
down to 1. Any verifier that follows those lines gets the same order from the same seed.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")

_TWO_64 = 1 << 64


def _words(seed: str) -> Iterator[int]:
    seed_bytes = seed.encode("utf-8")
    k = 0
    while True:
        yield from struct.unpack(">4Q", hashlib.sha256(seed_bytes + k.to_bytes(8, "big")).digest())
        k += 1


class RandomStream:
    """Draws from the SHA-256 stream of one seed (a string; its UTF-8 bytes are hashed)."""

    def __init__(self, seed: str) -> None:
        self._words = _words(seed)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection; raises ``ValueError`` if n < 1."""
        if n < 1:
            raise ValueError("below(n) needs n >= 1")
        limit = _TWO_64 - (_TWO_64 % n)
        while True:
            u = next(self._words)
            if u < limit:
                return u % n

    def shuffle(self, items: list[T]) -> list[T]:
        """Fisher–Yates in place (i from len-1 down to 1, j = below(i+1)); returns items."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def commitment(server_seed: str) -> str:
    """``SHA-256(server_seed)`` as lowercase hex: published before any player contributes."""
    return hashlib.sha256(server_seed.encode("utf-8")).hexdigest()


def combine_seed(server_seed: str, contributions: list[str]) -> str:
    """The game's seed: ``server_seed`` then ``":" + contribution`` for each seat in order.

    A seat that contributed nothing is an empty string (CONTRACT section 2).
    """
    return ":".join([server_seed, *contributions])
