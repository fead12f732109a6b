"""The state of an Einauge game: the fold of ``evolve`` over its events.

Mutable on purpose: ``evolve`` updates a state in place, which lets a bot play thousands of
games a second; whoever needs the previous state keeps a ``copy()``. Nothing outside the
engine reads these fields; clients see ``view.public_view``.
"""

from __future__ import annotations

from typing import Any


class Player:
    """One seat's holdings. ``rows`` maps color → cards in joining order (ships included);
    ``lone_ships`` are ships laid alone, in the order laid. Tokens are counts."""

    __slots__ = ("ducats", "jewels", "lone_ships", "name", "rows", "sabres", "turns")

    def __init__(self, name: str) -> None:
        self.name = name
        self.sabres = 2
        self.ducats = 20
        self.jewels = 1
        self.rows: dict[str, list[str]] = {}
        self.lone_ships: list[str] = []
        self.turns = 0

    def copy(self) -> Player:
        """An independent copy."""
        p = Player.__new__(Player)
        p.name = self.name
        p.sabres = self.sabres
        p.ducats = self.ducats
        p.jewels = self.jewels
        p.rows = {color: cards[:] for color, cards in self.rows.items()}
        p.lone_ships = self.lone_ships[:]
        p.turns = self.turns
        return p


class State:
    """Everything about one game.

    ``deck`` is the whole deck, top first, ships last; ``deck_pos`` is the index of the next
    card to reveal. ``phase`` is ``"setup"`` (before ``game_started``), ``"turns"``,
    ``"final_round"`` or ``"ended"``; ``step`` is ``"buy"``, ``"fight"``, ``"place"`` or
    ``None`` between turns. After the end is triggered, ``turns_left`` counts the normal
    turns still to come and ``final_start`` is the seat that opens the final round;
    ``final_left`` counts the final-round turns still to come.
    """

    __slots__ = ("colors", "current_seat", "deck", "deck_pos", "display", "end_triggered",
                 "final_left", "final_start", "options", "phase", "pirate_table", "players",
                 "result", "revealer", "seq", "step", "turns_left")

    def __init__(self) -> None:
        self.players: list[Player] = []
        self.options: dict[str, Any] = {}
        self.colors: tuple[str, ...] = ()
        self.deck: list[str] = []
        self.deck_pos = 0
        self.display: list[str] = []
        self.pirate_table: list[str] = []
        self.phase = "setup"
        self.step: str | None = None
        self.current_seat: int | None = None
        self.end_triggered = False
        self.revealer: int | None = None
        self.turns_left = 0
        self.final_start = 0
        self.final_left = 0
        self.seq = 0
        self.result: dict[str, Any] | None = None

    def copy(self) -> State:
        """An independent copy (the deck list is shared: it is never changed after setup)."""
        s = State.__new__(State)
        s.players = [p.copy() for p in self.players]
        s.options = self.options
        s.colors = self.colors
        s.deck = self.deck
        s.deck_pos = self.deck_pos
        s.display = self.display[:]
        s.pirate_table = self.pirate_table[:]
        s.phase = self.phase
        s.step = self.step
        s.current_seat = self.current_seat
        s.end_triggered = self.end_triggered
        s.revealer = self.revealer
        s.turns_left = self.turns_left
        s.final_start = self.final_start
        s.final_left = self.final_left
        s.seq = self.seq
        s.result = self.result
        return s

    @property
    def deck_count(self) -> int:
        """Cards still face down in the deck."""
        return len(self.deck) - self.deck_pos
