"""Events of Einauge: what happened, in past tense, with stable snake_case wire names.

Every event carries what a log line or an animation needs (who, which card, what was paid,
what the row paid out), so a client can narrate the game without knowing a rule. Only
``game_started`` holds a secret (the deck order); ``view.project`` strips it for clients.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Codec, Message


@dataclass(frozen=True, slots=True)
class GameStarted(Message):
    """Setup: ``deck`` lists the island cards in play, top first (ships go under them).

    The first 6 cards form the display and the 7th goes onto the pirate table.
    """

    type = "game_started"
    players: list[str]
    options: dict[str, Any]
    deck: list[str]


@dataclass(frozen=True, slots=True)
class JewelSold(Message):
    """A jewel went back to the supply for ``ducats`` (3)."""

    type = "jewel_sold"
    seat: int
    ducats: int


@dataclass(frozen=True, slots=True)
class CardSold(Message):
    """An island card left the game for ``ducats`` (5); nothing paid out."""

    type = "card_sold"
    seat: int
    card: str
    ducats: int


@dataclass(frozen=True, slots=True)
class CardBought(Message):
    """A display card joined ``row`` (a color, or ``"alone"`` for a lone ship) for ``price``.

    ``sabres``, ``ducats``, ``jewels``: the row's payout, received after paying.
    """

    type = "card_bought"
    seat: int
    card: str
    row: str
    price: int
    sabres: int
    ducats: int
    jewels: int


@dataclass(frozen=True, slots=True)
class BuySkipped(Message):
    """The buy step was skipped: no display card was affordable, even by selling."""

    type = "buy_skipped"
    seat: int


@dataclass(frozen=True, slots=True)
class FightWon(Message):
    """A card was won from ``source`` (``pirate_table`` or ``display``) for ``cost`` sabres.

    It joined ``row``; ``sabres``, ``ducats``, ``jewels`` are the row's payout.
    """

    type = "fight_won"
    seat: int
    card: str
    row: str
    source: str
    cost: int
    sabres: int
    ducats: int
    jewels: int


@dataclass(frozen=True, slots=True)
class FightDeclined(Message):
    """The player passed although a card could have been won."""

    type = "fight_declined"
    seat: int


@dataclass(frozen=True, slots=True)
class FightSkipped(Message):
    """The fight was skipped: no card could be won (too few sabres, or no row could take it)."""

    type = "fight_skipped"
    seat: int


@dataclass(frozen=True, slots=True)
class CardPlaced(Message):
    """A display card was moved onto the pirate table."""

    type = "card_placed"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class PlaceSkipped(Message):
    """The place step was skipped: the pirate table held 6 cards or the display was empty."""

    type = "place_skipped"
    seat: int


@dataclass(frozen=True, slots=True)
class CardRevealed(Message):
    """Refill: an island card was revealed from the deck onto the display."""

    type = "card_revealed"
    card: str


@dataclass(frozen=True, slots=True)
class ShipRevealed(Message):
    """Refill: a ship card was revealed onto the display.

    ``end_triggered`` is true for the first ship: the end of the game is in sight, and
    ``seat`` (whose turn it is) is the revealer.
    """

    type = "ship_revealed"
    card: str
    seat: int
    end_triggered: bool


@dataclass(frozen=True, slots=True)
class FinalRoundStarted(Message):
    """The final round began; ``seat`` is the first to play in it."""

    type = "final_round_started"
    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded(Message):
    """Final scoring: ``result`` is the ``result`` object of CONTRACT section 3."""

    type = "game_ended"
    result: dict[str, Any]


EVENTS = Codec([GameStarted, JewelSold, CardSold, CardBought, BuySkipped, FightWon,
                FightDeclined, FightSkipped, CardPlaced, PlaceSkipped, CardRevealed,
                ShipRevealed, FinalRoundStarted, GameEnded])
