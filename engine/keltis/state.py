"""The state of a Keltis game: the fold of ``evolve`` over its events.

Mutable on purpose, as in Einauge: ``evolve`` updates a state in place so bots can play
many games a second; whoever needs the previous state keeps a ``copy()``. Cards are their
string ids (interned, compared by identity first); hands are kept in canonical card order
so that what a seat is offered never depends on the hidden order cards arrived in.
Nothing outside the engine reads these fields; clients get ``view.view``.
"""

from __future__ import annotations

from typing import Any

from engine.keltis.cards import PILES


class Player:
    """One seat's holdings.

    ``hand``: cards in canonical order. ``known``: the cards of ``hand`` every player saw
    arrive there (drawn from a discard pile), in the order drawn. ``rows``: color → cards
    in the order laid (point and end cards included), only colors the player has started.
    ``last``: color → value of the row's last card, for open rows only (a closed row has
    no entry). ``dirs``: color → ``0`` undecided, ``1`` rising, ``-1`` falling.
    ``point_row``: point cards in the order laid. ``stones``: stone values held, ascending.
    """

    __slots__ = ("dirs", "hand", "known", "last", "name", "point_row", "rows", "stones")

    def __init__(self, name: str) -> None:
        self.name = name
        self.hand: list[str] = []
        self.known: list[str] = []
        self.rows: dict[str, list[str]] = {}
        self.last: dict[str, int] = {}
        self.dirs: dict[str, int] = {}
        self.point_row: list[str] = []
        self.stones: list[int] = []

    def copy(self) -> Player:
        """An independent copy."""
        p = Player.__new__(Player)
        p.name = self.name
        p.hand = self.hand[:]
        p.known = self.known[:]
        p.rows = {c: cards[:] for c, cards in self.rows.items()}
        p.last = self.last.copy()
        p.dirs = self.dirs.copy()
        p.point_row = self.point_row[:]
        p.stones = self.stones[:]
        return p


class State:
    """Everything about one game.

    ``deck``: the cards in deal order, top first, after ``game_started`` the whole shuffled
    list; ``deck_pos`` indexes the next card to deal or draw (removed and dealt cards lie
    before it). ``removed``: the 30 cards set aside unseen with 2 players.
    ``phase``: ``"setup"`` (before ``game_started``), ``"turns"``, ``"final_turns"``,
    ``"ended"``. ``step``: ``"deal"``, ``"play"``, ``"draw"``, ``"final"``, or ``None``
    while an automatic step is due (final turns to start, final scoring). ``draws_left``:
    draws still due in this turn's refill. ``blocked``: the piles this turn's own discards
    went onto (they may not be drawn from). ``stones``: stone values still in the middle,
    ascending. ``discards``: pile → cards, bottom first. ``closed_rows``: color rows
    holding an end card, over all players. ``trigger_seat``/``trigger``: who triggered
    the end and why (``"deck_empty"`` or ``"rows_closed"``). ``final_left``: final turns
    still to come, the current one included; ``final_lays``: cards laid in this final turn.
    """

    __slots__ = ("blocked", "closed_rows", "current_seat", "dealt", "deck", "deck_pos",
                 "discards", "draws_left", "end_triggered", "final_lays", "final_left",
                 "options", "phase", "players", "removed", "result", "seq", "step",
                 "stones", "trigger", "trigger_seat")

    def __init__(self) -> None:
        self.players: list[Player] = []
        self.options: dict[str, Any] = {}
        self.deck: list[str] = []
        self.deck_pos = 0
        self.removed: list[str] = []
        self.dealt = 0
        self.phase = "setup"
        self.step: str | None = None
        self.current_seat: int | None = None
        self.draws_left = 0
        self.blocked: tuple[str, ...] = ()
        self.stones: list[int] = []
        self.discards: dict[str, list[str]] = {p: [] for p in PILES}
        self.closed_rows = 0
        self.end_triggered = False
        self.trigger_seat: int | None = None
        self.trigger: str | None = None
        self.final_left = 0
        self.final_lays = 0
        self.seq = 0
        self.result: dict[str, Any] | None = None

    def copy(self) -> State:
        """An independent copy (``deck`` is shared: it is never changed after setup)."""
        s = State.__new__(State)
        s.players = [p.copy() for p in self.players]
        s.options = self.options
        s.deck = self.deck
        s.deck_pos = self.deck_pos
        s.removed = self.removed
        s.dealt = self.dealt
        s.phase = self.phase
        s.step = self.step
        s.current_seat = self.current_seat
        s.draws_left = self.draws_left
        s.blocked = self.blocked
        s.stones = self.stones[:]
        s.discards = {p: cards[:] for p, cards in self.discards.items()}
        s.closed_rows = self.closed_rows
        s.end_triggered = self.end_triggered
        s.trigger_seat = self.trigger_seat
        s.trigger = self.trigger
        s.final_left = self.final_left
        s.final_lays = self.final_lays
        s.seq = self.seq
        s.result = self.result
        return s

    @property
    def deck_count(self) -> int:
        """Cards still face down in the deck."""
        return len(self.deck) - self.deck_pos
