"""Events of Loot Island: what happened, in past tense, with stable snake_case wire names.

Each event carries what a log line or an animation needs. Three hold secrets, which
``view.project`` strips per viewer: ``game_started`` (the seed and all eight setup orders),
``map_card_drawn`` (the card, seen only by the drawer) and ``map_deck_reshuffled`` (the
new order, seen by no one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Codec, Message


@dataclass(frozen=True, slots=True)
class GameStarted(Message):
    """Setup (RULES "Setup", CONTRACT §1-2): ``orders`` holds the eight setup lists, top
    first (``map``, ``loot_1`` … ``loot_4``, ``healers``, ``events_a``, ``events_b``);
    ``seed`` derives the reshuffles unless ``map_reshuffles`` (a record's) gives them."""

    type = "game_started"
    players: list[str]
    options: dict[str, Any]
    seed: str | None
    orders: dict[str, list[str]]
    map_reshuffles: list[list[str]] | None = None


@dataclass(frozen=True, slots=True)
class RoundStarted(Message):
    """Phase 1 of rounds 2-5 began: the ship moved to ``ship`` and all islets were turned up."""

    type = "round_started"
    round: int
    ship: str


@dataclass(frozen=True, slots=True)
class EventRevealed(Message):
    """The round's event was revealed and is now in force."""

    type = "event_revealed"
    round: int
    event: str


@dataclass(frozen=True, slots=True)
class MapCardsDiscarded(Message):
    """Phase 1: ``cards`` went from the hand onto the map discard pile, in this order."""

    type = "map_cards_discarded"
    seat: int
    cards: list[str]


@dataclass(frozen=True, slots=True)
class DiscardSkipped(Message):
    """Phase 1: the player's hand was empty, so there was nothing to discard."""

    type = "discard_skipped"
    seat: int


@dataclass(frozen=True, slots=True)
class MapCardDrawn(Message):
    """``seat`` drew the top map card ``card`` (``cause``: ``refill``, ``event``, ``draw``,
    ``copy`` or ``islet``). Only the drawer sees ``card``."""

    type = "map_card_drawn"
    seat: int
    card: str
    cause: str


@dataclass(frozen=True, slots=True)
class MapDeckReshuffled(Message):
    """The map discard pile became the new map deck (``cards``, top first): the
    ``reshuffle``-th reshuffle of the game. Nobody sees ``cards``."""

    type = "map_deck_reshuffled"
    reshuffle: int
    cards: list[str]


@dataclass(frozen=True, slots=True)
class ActionsStarted(Message):
    """Phase 2 began; ``seat`` (the start-marker holder) acts first."""

    type = "actions_started"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class CubesShed(Message):
    """``seat`` shed ``cubes`` curse cubes (at least 1; ``cause`` names the rule)."""

    type = "cubes_shed"
    seat: int
    cubes: int
    cause: str


@dataclass(frozen=True, slots=True)
class CubesTaken(Message):
    """``seat`` took ``cubes`` curse cubes (``cause`` names the rule)."""

    type = "cubes_taken"
    seat: int
    cubes: int
    cause: str


@dataclass(frozen=True, slots=True)
class MapCardsPlayed(Message):
    """``cards`` were laid at ``landing`` in this order, with the named ``values`` of the
    jokers; ``disc_placed``: a free disc went on top of the stack first; ``under``: a lone
    printed 1 was pushed under the row (``copy``: the action it copied, if any)."""

    type = "map_cards_played"
    seat: int
    landing: str
    cards: list[str]
    values: dict[str, int]
    disc_placed: bool
    under: bool
    copy: str | None = None


@dataclass(frozen=True, slots=True)
class IsletUsed(Message):
    """``islet`` was used for ``cards`` (to the map discard pile in this order) and turned
    down. Disc moves of ``islet-shortcut``/``-camp``/``-portage`` happen with this event;
    other effects follow as their own events. ``skip``: used only to block it."""

    type = "islet_used"
    seat: int
    islet: str
    cards: list[str]
    skip: bool
    landing: str | None = None
    from_landing: str | None = None
    to_landing: str | None = None


@dataclass(frozen=True, slots=True)
class ShipMoved(Message):
    """``islet-winds``: the ship moved one space clockwise, to ``ship``."""

    type = "ship_moved"
    seat: int
    ship: str


@dataclass(frozen=True, slots=True)
class Passed(Message):
    """``seat`` passed for this phase 2 (``forced``: nothing else was legal);
    ``start_marker``: first to pass, so they took the start marker."""

    type = "passed"
    seat: int
    forced: bool
    start_marker: bool


@dataclass(frozen=True, slots=True)
class CoastExplored(Message):
    """Phase 3 began at ``coast``; ``offers`` lists ``{"landing", "size", "number"}``,
    the big loot first (empty when no landing qualified)."""

    type = "coast_explored"
    round: int
    coast: str
    offers: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class LootOffered(Message):
    """The top loot cards were drawn face up for ``landing``: ``cards`` in the order drawn
    (fewer than its number if the deck ran short); ``order`` is the picking cycle."""

    type = "loot_offered"
    landing: str
    size: str
    cards: list[str]
    order: list[int]


@dataclass(frozen=True, slots=True)
class LootTaken(Message):
    """``seat`` kept ``card`` and took ``cubes`` for it; ``wreck``: from the top of the loot
    deck by ``islet-wreck``, else a pick from the offer."""

    type = "loot_taken"
    seat: int
    card: str
    cubes: int
    wreck: bool


@dataclass(frozen=True, slots=True)
class LootDiscarded(Message):
    """``seat`` discarded ``card`` from the offer (out of the game) and shed ``cubes``."""

    type = "loot_discarded"
    seat: int
    card: str
    cubes: int


@dataclass(frozen=True, slots=True)
class CoastCleared(Message):
    """Cleanup: the discs of ``coast`` went back; ``cards`` went to the map discard pile in
    this order. The round's event is no longer in force."""

    type = "coast_cleared"
    coast: str
    cards: list[str]


@dataclass(frozen=True, slots=True)
class FinalExplorationStarted(Message):
    """After round 5: ``offers`` (small loot, clockwise from the coast after the ship's)."""

    type = "final_exploration_started"
    offers: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Message):
    """``seat`` was eliminated: ``reason`` ``curses`` (13 or more cubes) or ``cannot_pay``."""

    type = "player_eliminated"
    seat: int
    reason: str
    cubes: int


@dataclass(frozen=True, slots=True)
class HealersRevealed(Message):
    """The healer step: ``healers`` (set aside, canonical order) were turned face up;
    ``order`` is the choosers' order (fewest cubes first)."""

    type = "healers_revealed"
    healers: list[str]
    order: list[int]


@dataclass(frozen=True, slots=True)
class HealerChosen(Message):
    """``seat`` took ``healer`` (``automatic``: it was the only one left)."""

    type = "healer_chosen"
    seat: int
    healer: str
    automatic: bool


@dataclass(frozen=True, slots=True)
class GameEnded(Message):
    """Scoring: ``result`` is CONTRACT §3's ``result``; ``hands`` every hand (canonical
    order), shown to all once the game has ended."""

    type = "game_ended"
    result: dict[str, Any]
    hands: list[list[str]]


EVENTS = Codec([GameStarted, RoundStarted, EventRevealed, MapCardsDiscarded, DiscardSkipped,
                MapCardDrawn, MapDeckReshuffled, ActionsStarted, CubesShed, CubesTaken,
                MapCardsPlayed, IsletUsed, ShipMoved, Passed, CoastExplored, LootOffered,
                LootTaken, LootDiscarded, CoastCleared, FinalExplorationStarted,
                PlayerEliminated, HealersRevealed, HealerChosen, GameEnded])
