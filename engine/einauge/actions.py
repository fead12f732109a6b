"""Player actions of Einauge (CONTRACT-einauge.md section 1, ``actions``).

Wire form: ``{"seat": 0, "type": "buy", "card": "blue-3"}``; ``row`` is required when the
card is a ship (a color the player holds as a row, or ``"alone"``) and may be omitted, or
be the card's own color, for an island card.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.game import Codec, Message


@dataclass(frozen=True, slots=True)
class SellJewel(Message):
    """Buy step, before buying: return one jewel to the supply for 3 ducats."""

    type = "sell_jewel"
    seat: int


@dataclass(frozen=True, slots=True)
class SellCard(Message):
    """Buy step, before buying: an island card from one's rows leaves the game for 5 ducats."""

    type = "sell_card"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class Buy(Message):
    """Buy step: pay a display card's price and add it to a row, which pays out."""

    type = "buy"
    seat: int
    card: str
    row: str | None = None


@dataclass(frozen=True, slots=True)
class Fight(Message):
    """Fight step: win a pirate table card (final round: or a display card) for 3/4 sabres."""

    type = "fight"
    seat: int
    card: str
    row: str | None = None


@dataclass(frozen=True, slots=True)
class Pass(Message):
    """Decline the optional fight, in a normal turn or in the final round."""

    type = "pass"
    seat: int


@dataclass(frozen=True, slots=True)
class Place(Message):
    """Place step: move one display card onto the pirate table."""

    type = "place"
    seat: int
    card: str


ACTIONS = Codec([SellJewel, SellCard, Buy, Fight, Pass, Place])

