"""The cards of Keltis: Das Kartenspiel and their ids (RULES-keltis.md, "Components").

101 cards go into the deck: per color (``green, yellow, red, pink, blue``) the number
cards 0–10 (one copy of 0, 1, 2, 8, 9, 10; two of 3–7, ids ``<color>-<value>a``/``b``) and
two end cards ``end-<color>-1``/``-2``; then 11 grey point cards ``point-0`` … ``point-10``.
The 9 stone cards ``stone-1`` … ``stone-9`` lie in the middle, outside the deck.

Card data is flat module-level tables keyed by id, so the rules read a card with one dict
lookup; ``CANONICAL`` is the card order of CONTRACT-keltis.md §2 (the shuffle's input and
the order of hands in views).
"""

from __future__ import annotations

COLORS: tuple[str, ...] = ("green", "yellow", "red", "pink", "blue")
"""The five colors in canonical order (rows, discard piles and the shuffle follow it)."""

POINT = "point"
"""Name of the point row, of the point cards' discard pile and of its draw source."""

PILES: tuple[str, ...] = (*COLORS, POINT)
"""The six discard piles in canonical order (CONTRACT §3 ``discards`` keys)."""

DECK = "deck"
"""The draw source for the top card of the deck."""

SOURCES: tuple[str, ...] = (DECK, *PILES)
"""Every draw source, in the order ``legal_actions`` lists draws."""

ROWS: tuple[str, ...] = (*COLORS, POINT)
"""Every row a card can be laid on: a color row or the point row."""

COPIES = {0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 1, 9: 1, 10: 1}
"""Copies of each number-card value per color (RULES table: 16 per color)."""

NUMBER, END, POINT_CARD = 0, 1, 2
"""Card kinds: number card, end card, point card."""

STONE_VALUES: tuple[int, ...] = tuple(range(1, 10))
"""The values of the nine stone cards (there are no stones 0 and 10)."""


def _canonical() -> list[str]:
    out = []
    for color in COLORS:
        for value, copies in COPIES.items():
            if copies == 1:
                out.append(f"{color}-{value}")
            else:
                out += [f"{color}-{value}a", f"{color}-{value}b"]
        out += [f"end-{color}-1", f"end-{color}-2"]
    out += [f"point-{v}" for v in range(11)]
    return out


CANONICAL: tuple[str, ...] = tuple(_canonical())
"""All 101 deck card ids in the canonical order of CONTRACT §2."""

RANK: dict[str, int] = {c: i for i, c in enumerate(CANONICAL)}
"""Index of each card in ``CANONICAL`` (the sort key of hands)."""

KIND: dict[str, int] = {}
"""``NUMBER``, ``END`` or ``POINT_CARD`` by card id."""
COLOR: dict[str, str | None] = {}
"""The card's color (``None`` for a point card)."""
VALUE: dict[str, int | None] = {}
"""The card's value (``None`` for an end card, which has none)."""
PILE: dict[str, str] = {}
"""The discard pile a card goes onto: its color, or ``"point"``."""

for _c in CANONICAL:
    _parts = _c.split("-")
    if _parts[0] == "end":
        KIND[_c], COLOR[_c], VALUE[_c], PILE[_c] = END, _parts[1], None, _parts[1]
    elif _parts[0] == POINT:
        KIND[_c], COLOR[_c], VALUE[_c], PILE[_c] = POINT_CARD, None, int(_parts[1]), POINT
    else:
        KIND[_c], COLOR[_c] = NUMBER, _parts[0]
        VALUE[_c], PILE[_c] = int(_parts[1].rstrip("ab")), _parts[0]

INFO: dict[str, tuple[int, str | None, int | None]] = {
    c: (KIND[c], COLOR[c], VALUE[c]) for c in CANONICAL}
"""``(kind, color, value)`` by card id, for the hot paths (one lookup instead of three)."""

STONES: tuple[str, ...] = tuple(f"stone-{v}" for v in STONE_VALUES)
"""The stone card ids, by value."""
STONE_ID: dict[int, str] = dict(zip(STONE_VALUES, STONES, strict=True))
"""Stone id by value."""
STONE_VALUE: dict[str, int] = {s: v for v, s in STONE_ID.items()}
"""Stone value by id."""

DECK_SIZE = len(CANONICAL)
HAND_SIZE = 8
REMOVED_TWO_PLAYERS = 30
"""Cards removed unseen before the deal in a 2-player game (RULES "Setup" 3)."""

if DECK_SIZE != 101 or len(set(CANONICAL)) != DECK_SIZE:
    raise ValueError("the Keltis deck must hold 101 distinct cards")
