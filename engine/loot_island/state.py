"""The state of a Loot Island game: the fold of ``evolve`` over its events.

Mutable on purpose (as in Einauge): ``evolve`` updates a state in place and whoever needs
the previous one keeps a ``copy()``. Decks are lists with the *top at the end* (a draw is
``pop()``); piles are bottom first. Nothing outside the engine reads these fields; clients
see ``view.view``.
"""

from __future__ import annotations

from typing import Any

from engine.loot_island.data import ACTION, COLOUR, DISCS, START_CUBES


class Player:
    """One seat: ``hand`` (map card ids, in the order gained), ``cubes``, ``loot`` (kept,
    in the order gained), ``passed`` (this phase 2), ``healer`` and ``eliminated``
    (``None``, ``"curses"`` or ``"cannot_pay"``)."""

    __slots__ = ("cubes", "eliminated", "hand", "healer", "loot", "name", "passed")

    def __init__(self, name: str) -> None:
        self.name = name
        self.hand: list[str] = []
        self.cubes = START_CUBES
        self.loot: list[str] = []
        self.passed = False
        self.healer: str | None = None
        self.eliminated: str | None = None

    def copy(self) -> Player:
        """An independent copy."""
        p = Player.__new__(Player)
        p.name = self.name
        p.hand = self.hand[:]
        p.cubes = self.cubes
        p.loot = self.loot[:]
        p.passed = self.passed
        p.healer = self.healer
        p.eliminated = self.eliminated
        return p


class Landing:
    """One landing: ``cards`` bottom to top with their ``values`` (a joker's named value),
    ``discs`` the owners' seats bottom to top."""

    __slots__ = ("cards", "discs", "values")

    def __init__(self) -> None:
        self.cards: list[str] = []
        self.values: list[int] = []
        self.discs: list[int] = []

    def copy(self) -> Landing:
        """An independent copy."""
        x = Landing.__new__(Landing)
        x.cards = self.cards[:]
        x.values = self.values[:]
        x.discs = self.discs[:]
        return x

    @property
    def colour(self) -> str | None:
        """The colour of its cards, ``None`` when it has none."""
        return COLOUR[self.cards[0]] if self.cards else None

    @property
    def count(self) -> int:
        """Cards plus ``plus1`` cards (RULES phase 3, step 2)."""
        return len(self.cards) + sum(1 for c in self.cards if ACTION[c] == "plus1")

    @property
    def chests(self) -> int:
        """``chest`` cards (RULES phase 3, step 2)."""
        return sum(1 for c in self.cards if ACTION[c] == "chest")


class State:
    """Everything about one game.

    ``phase``/``step``: ``setup``/None before ``game_started``; ``preparation``/``discard``;
    ``actions``/``begin`` (start-of-phase-2 effects still to come) or ``act``;
    ``loot``/``begin``, ``pick`` or ``cleaned``; ``final_exploration``/``pick``;
    ``healers``/``choose``; ``ended``/None. ``pending`` lists the offers still to come as
    ``(landing, size, number)``; ``offer`` is the one being picked (``offer_landing``,
    ``offer_size``, ``offer_order`` = disc owners bottom to top, ``pick`` = picks made).
    ``events`` are the 5 round events (``[]`` with events off); ``event`` the one in force.
    ``reshuffle_orders`` are ``orders.map_reshuffles`` of a record (``None``: none given).
    """

    __slots__ = ("aside", "chooser_order", "current_seat", "event", "events", "events_seen",
                 "first_passed", "islets_open", "landings", "loot_deck", "loot_discard",
                 "map_deck", "map_discard", "offer", "offer_landing", "offer_order",
                 "offer_size", "options", "orders", "pending", "phase", "pick", "players",
                 "prep_done", "reshuffle_orders", "reshuffles", "result", "round", "seed",
                 "seq", "ship", "start_seat", "step")

    def __init__(self) -> None:
        self.players: list[Player] = []
        self.options: dict[str, Any] = {}
        self.seed: str | None = None
        self.orders: dict[str, list[str]] = {}
        self.reshuffle_orders: list[list[str]] | None = None
        self.round = 0
        self.phase = "setup"
        self.step: str | None = None
        self.current_seat: int | None = None
        self.ship = 0
        self.start_seat = 0
        self.islets_open = [True] * 7
        self.landings = [Landing() for _ in range(8)]
        self.map_deck: list[str] = []
        self.map_discard: list[str] = []
        self.reshuffles = 0
        self.loot_deck: list[str] = []
        self.loot_discard: list[str] = []
        self.aside: list[str] = []
        self.events: list[str] = []
        self.events_seen: list[str] = []
        self.event: str | None = None
        self.first_passed = False
        self.prep_done = 0
        self.pending: list[tuple[str, str, int]] = []
        self.offer: list[str] | None = None
        self.offer_landing: str | None = None
        self.offer_size: str | None = None
        self.offer_order: list[int] = []
        self.pick = 0
        self.chooser_order: list[int] | None = None
        self.result: dict[str, Any] | None = None
        self.seq = 0

    def copy(self) -> State:
        """An independent copy (``options``, ``orders`` and ``reshuffle_orders`` are shared:
        they never change after setup)."""
        s = State.__new__(State)
        for name in State.__slots__:
            setattr(s, name, getattr(self, name))
        s.players = [p.copy() for p in self.players]
        s.islets_open = self.islets_open[:]
        s.landings = [x.copy() for x in self.landings]
        s.map_deck = self.map_deck[:]
        s.map_discard = self.map_discard[:]
        s.loot_deck = self.loot_deck[:]
        s.loot_discard = self.loot_discard[:]
        s.aside = self.aside[:]
        s.events = self.events[:]
        s.events_seen = self.events_seen[:]
        s.pending = self.pending[:]
        s.offer = None if self.offer is None else self.offer[:]
        s.offer_order = self.offer_order[:]
        s.chooser_order = None if self.chooser_order is None else self.chooser_order[:]
        return s

    def discs_free(self, seat: int) -> int:
        """Discs of ``seat`` not on the board."""
        return DISCS - sum(x.discs.count(seat) for x in self.landings)

    def healer_owner(self, healer: str) -> int | None:
        """The seat that took ``healer``, else ``None``."""
        for i, p in enumerate(self.players):
            if p.healer == healer:
                return i
        return None

    def healers_left(self) -> list[str]:
        """Set-aside healers not yet taken, in set-aside order."""
        taken = {p.healer for p in self.players}
        return [h for h in self.aside if h not in taken]
