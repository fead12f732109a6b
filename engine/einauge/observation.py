"""What one seat may know of an Einauge game: the input a bot is handed.

RULES "What is public": everything is public except the order of the deck. An
``Observation`` therefore holds the public view (display, pirate table, every player's rows
and tokens, whose turn and which step), the turn-order counters that follow from the public
event stream (who revealed the first ship, how many normal and final-round turns are left),
the seat's legal actions, and the *multiset* of island cards still face down: the island
cards of the colors in play that were never seen in any public place. It never holds the
deck order: ``unseen`` is sorted in canonical card order, so two games that differ only in
the order of their face-down cards give equal observations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.einauge import rules
from engine.einauge.cards import CARDS, ISLAND_CARDS
from engine.einauge.state import State
from engine.game import Message

_CANONICAL = {c: i for i, c in enumerate(ISLAND_CARDS)}


@dataclass(frozen=True, slots=True)
class PlayerObservation:
    """One seat's public holdings. ``rows`` lists ``(color, cards)`` in the order the rows
    were started (cards in joining order, ships included)."""

    name: str
    sabres: int
    ducats: int
    jewels: int
    rows: tuple[tuple[str, tuple[str, ...]], ...]
    lone_ships: tuple[str, ...]
    turns: int


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything ``seat`` may know now, and nothing more (see the module docstring).

    ``unseen``: island cards still face down, sorted canonically (never in deck order).
    ``ships_in_deck``: the ship cards still face down; public because the ships lie under
    the island cards in the fixed order ``ship-1`` … ``ship-8`` (RULES "Setup" 3).
    ``legal``: exactly the actions the rules accept from ``seat`` now (empty when it is not
    the seat's turn).
    """

    seat: int
    options: dict[str, Any]
    colors: tuple[str, ...]
    phase: str
    step: str | None
    current_seat: int | None
    end_triggered: bool
    revealer: int | None
    turns_left: int
    final_start: int
    final_left: int
    seq: int
    display: tuple[str, ...]
    pirate_table: tuple[str, ...]
    players: tuple[PlayerObservation, ...]
    unseen: tuple[str, ...]
    ships_in_deck: tuple[str, ...]
    legal: tuple[Message, ...]

    @property
    def deck_count(self) -> int:
        """Cards still face down (island cards and ships)."""
        return len(self.unseen) + len(self.ships_in_deck)


def observe(state: State, seat: int) -> Observation:
    """The observation of ``seat`` in ``state`` (a started game).

    Raises ``ValueError`` for a seat that is not at the table or a game not yet started.
    """
    if state.phase == "setup":
        raise ValueError("no game yet: observe a started game")
    if type(seat) is not int or not 0 <= seat < len(state.players):
        raise ValueError(f"seat must be 0..{len(state.players) - 1}, not {seat!r}")
    tail = state.deck[state.deck_pos:]
    unseen = sorted((c for c in tail if CARDS[c].color), key=_CANONICAL.__getitem__)
    ships = tuple(c for c in tail if not CARDS[c].color)
    return Observation(
        seat=seat,
        options=dict(state.options),
        colors=tuple(state.colors),
        phase=state.phase,
        step=state.step,
        current_seat=state.current_seat,
        end_triggered=state.end_triggered,
        revealer=state.revealer,
        turns_left=state.turns_left,
        final_start=state.final_start,
        final_left=state.final_left,
        seq=state.seq,
        display=tuple(state.display),
        pirate_table=tuple(state.pirate_table),
        players=tuple(
            PlayerObservation(p.name, p.sabres, p.ducats, p.jewels,
                              tuple((color, tuple(cards)) for color, cards in p.rows.items()),
                              tuple(p.lone_ships), p.turns)
            for p in state.players),
        unseen=tuple(unseen),
        ships_in_deck=ships,
        legal=tuple(rules.legal_actions(state, seat)),
    )
