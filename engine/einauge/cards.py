"""The cards of Einauge sei wachsam!, loaded once from ``cards.toml``.

Island cards are ``<color>-<price>`` (8 colors x prices 2-8), ship cards ``ship-1`` …
``ship-8`` (RULES-einauge.md, "Components and card ids"). Card data is plain module-level
tables keyed by card id, so the rules read a card's values with one dict lookup.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from typing import NamedTuple


class Card(NamedTuple):
    """One card: ``color`` is ``None`` for a ship; yields are per card, in tokens."""

    id: str
    color: str | None
    price: int
    sabres: int
    ducats: int
    jewels: int
    chests: int

    @property
    def is_ship(self) -> bool:
        """True for a ship card (a joker with no color and no yield)."""
        return self.color is None

    @property
    def fight_cost(self) -> int:
        """Sabres needed to win it from the pirate table: 4 if it shows a sabre, else 3."""
        return 4 if self.sabres else 3


_DATA = tomllib.loads(files(__package__).joinpath("cards.toml").read_text(encoding="utf-8"))

COLORS: tuple[str, ...] = tuple(_DATA["colors"])
"""The eight colors in canonical order (the order of rows in views and of the shuffle)."""

SHIPS: tuple[str, ...] = tuple(f"ship-{i}" for i in range(1, _DATA["ships"] + 1))

CARDS: dict[str, Card] = {}
for _id, _y in _DATA["yield"].items():
    _color, _, _price = _id.rpartition("-")
    CARDS[_id] = Card(_id, _color, int(_price), _y["sabres"], _y["ducats"], _y["jewels"],
                      _y["chests"])
for _id in SHIPS:
    CARDS[_id] = Card(_id, None, _DATA["ship_price"], 0, 0, 0, 0)

ISLAND_CARDS: tuple[str, ...] = tuple(
    sorted((c.id for c in CARDS.values() if c.color),
           key=lambda i: (COLORS.index(CARDS[i].color), CARDS[i].price)))
"""Island cards in canonical order: color order, then price ascending."""

COLORS_IN_PLAY = {2: 5, 3: 6, 4: 7, 5: 8}
"""Number of colors in play by player count (RULES: Setup 2)."""

if {c.color for c in CARDS.values() if c.color} != set(COLORS):
    raise ValueError("cards.toml: every color needs its cards and no card another color")

# Flat per-card tables for the hot paths of the rules (one dict lookup, no attribute access).
PRICE: dict[str, int] = {c.id: c.price for c in CARDS.values()}
"""Price in ducats by card id."""
COLOR: dict[str, str | None] = {c.id: c.color for c in CARDS.values()}
CHESTS: dict[str, int] = {c.id: c.chests for c in CARDS.values()}
"""Treasure chests per card id (a dict lookup where views and offers count them)."""
"""Color by card id (``None`` for a ship)."""
FIGHT_COST: dict[str, int] = {c.id: c.fight_cost for c in CARDS.values()}
"""Sabres needed to win a card: 4 if it shows a sabre, else 3."""
YIELDS: dict[str, tuple[int, int, int]] = {c.id: (c.sabres, c.ducats, c.jewels)
                                           for c in CARDS.values()}
"""``(sabres, ducats, jewels)`` a card adds to its row's payout."""
ISLAND_SET: frozenset[str] = frozenset(ISLAND_CARDS)
"""Every island card id (ships excluded), for fast membership tests."""
