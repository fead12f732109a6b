"""Events of Keltis: what happened, in past tense, with stable snake_case wire names.

Three events hold secrets: ``game_started`` (the whole deck order), ``cards_removed``
(the 30 cards set aside with 2 players) and ``hand_dealt`` (a seat's hand); a
``card_drawn`` from the deck shows its card only to the drawer. ``view.project`` strips
what a viewer may not see. Every other event is public: cards laid, discarded or drawn
from a discard pile are seen by all players (RULES "What is hidden and what is public").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Codec, Message


@dataclass(frozen=True, slots=True)
class GameStarted(Message):
    """Setup: ``deck`` is the shuffled list of the 101 card ids, top first (secret).

    ``options`` as used (none are defined yet: ``{}``). Dealing follows as events.
    """

    type = "game_started"
    players: list[str]
    options: dict[str, Any]
    deck: list[str]


@dataclass(frozen=True, slots=True)
class CardsRemoved(Message):
    """2 players: the top ``cards`` (30) of the deck were set aside, unseen by all."""

    type = "cards_removed"
    cards: list[str]


@dataclass(frozen=True, slots=True)
class HandDealt(Message):
    """``seat`` was dealt ``cards`` (8, the next cards of the deck, in deal order)."""

    type = "hand_dealt"
    seat: int
    cards: list[str]


@dataclass(frozen=True, slots=True)
class CardLaid(Message):
    """``seat`` laid ``card`` from hand onto its own ``row`` (a color, or ``"point"``)."""

    type = "card_laid"
    seat: int
    card: str
    row: str


@dataclass(frozen=True, slots=True)
class CardDiscarded(Message):
    """``seat`` discarded ``card`` face up onto ``pile`` (its color, or ``"point"``)."""

    type = "card_discarded"
    seat: int
    card: str
    pile: str


@dataclass(frozen=True, slots=True)
class StoneTaken(Message):
    """``seat`` discarded ``cards`` (two of equal value, in this order) onto their piles
    and took ``stone`` (e.g. ``"stone-4"``) from the middle."""

    type = "stone_taken"
    seat: int
    cards: tuple[str, str]
    stone: str

    def __post_init__(self) -> None:
        if isinstance(self.cards, list):  # the wire form (JSON) gives a list
            object.__setattr__(self, "cards", tuple(self.cards))

    def to_dict(self) -> dict[str, Any]:
        """The wire form, ``cards`` as a list."""
        return {"type": self.type, "seat": self.seat, "cards": list(self.cards),
                "stone": self.stone}


@dataclass(frozen=True, slots=True)
class CardDrawn(Message):
    """Refill: ``seat`` drew ``card`` from ``source`` (``"deck"`` or a discard pile)."""

    type = "card_drawn"
    seat: int
    source: str
    card: str


@dataclass(frozen=True, slots=True)
class DrawsSkipped(Message):
    """Refill: ``count`` draws of ``seat`` were skipped, no source being open (the deck
    empty, every discard pile empty or blocked by this turn's own discards)."""

    type = "draws_skipped"
    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class EndTriggered(Message):
    """The end of the game was triggered in ``seat``'s turn: ``reason`` is
    ``"deck_empty"`` (the last deck card was drawn) or ``"rows_closed"`` (5 color rows are
    closed, over all players). The turn is finished normally; final turns follow."""

    type = "end_triggered"
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class FinalTurnsStarted(Message):
    """The final turns began; ``seat`` (the one after the triggering player) plays first."""

    type = "final_turns_started"
    seat: int


@dataclass(frozen=True, slots=True)
class FinalTurnEnded(Message):
    """``seat``'s final turn ended: after its second lay, with no legal lay left, or by
    ``finish``."""

    type = "final_turn_ended"
    seat: int


@dataclass(frozen=True, slots=True)
class GameEnded(Message):
    """Final scoring: ``result`` is CONTRACT §3's ``result``; ``hands`` every seat's cards
    left in hand (canonical order), shown to all once the game has ended."""

    type = "game_ended"
    result: dict[str, Any]
    hands: list[list[str]]


EVENTS = Codec([GameStarted, CardsRemoved, HandDealt, CardLaid, CardDiscarded, StoneTaken,
                CardDrawn, DrawsSkipped, EndTriggered, FinalTurnsStarted, FinalTurnEnded,
                GameEnded])
