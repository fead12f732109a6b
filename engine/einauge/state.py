"""The state of an Einauge game: the fold of ``evolve`` over its events.

Mutable on purpose: ``evolve`` updates a state in place, which lets a bot play thousands of
games a second; whoever needs the previous state keeps a ``copy()``. Nothing outside the
engine reads these fields; clients see ``view.public_view``.

Structural sharing: a copy shares the deck, the options, the result, and each player's row
lists and ``lone_ships`` with its original, because no code changes those lists in place:
every change builds a new list and assigns it (``evolve.add_to_row``, ``evolve._card_sold``,
the bots' own lookahead). ``decide`` copies the state once per action, and copying every
row of every player was two thirds of its cost (py-spy of a saturated server).
Whoever changes a copy keeps to the same rule: assign a new list, never ``append``,
``remove``, ``extend`` or ``del`` on a row or on ``lone_ships``; the rows dict, the display
and the pirate table are the copy's own and may be changed in place.
"""

from __future__ import annotations

from typing import Any


class Player:
    """One seat's holdings. ``rows`` maps color → cards in joining order (ships included);
    ``lone_ships`` are ships laid alone, in the order laid. Tokens are counts.

    The lists in ``rows`` and ``lone_ships`` may be shared with copies (module docstring):
    replace them, never change them in place."""

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
        """A copy with its own ``rows`` dict whose row lists, like ``lone_ships``, are the
        original's (shared: they are replaced, never changed in place)."""
        p = Player.__new__(Player)
        p.name = self.name
        p.sabres = self.sabres
        p.ducats = self.ducats
        p.jewels = self.jewels
        p.rows = self.rows.copy()
        p.lone_ships = self.lone_ships
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
        """A copy that evolves independently of this state: its own players (``Player.copy``),
        display and pirate table; shared with this state: the deck (never changed after
        setup), the options and the result (never changed once set), and the players' row
        lists and lone ships (replaced, never changed in place: module docstring)."""
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
