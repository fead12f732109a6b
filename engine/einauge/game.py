"""Einauge sei wachsam! as a ``engine.game.Game``: the object the server and bots use."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.base import GameBase
from engine.bots.random_bot import RandomBot
from engine.einauge import offers, rules, setup, view, view_sync
from engine.einauge.actions import ACTIONS
from engine.einauge.bots import GreedyBot, MctsBot
from engine.einauge.cards import CARDS, COLORS, COLORS_IN_PLAY
from engine.einauge.determinize import determinize
from engine.einauge.events import EVENTS
from engine.einauge.evolve import evolve
from engine.einauge.observation import Observation, observe
from engine.einauge.state import State
from engine.game import Message, Viewer
from engine.shuffle import RandomStream, shuffle_slots

OPTIONS_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "end_rule": {"title": "End rule", "enum": list(setup.END_RULES), "default": "round",
                     "description": "round: the round is finished after the last ship; "
                                    "one_more_turn: every player has one more turn"},
        "color_bonus": {"title": "Color bonus", "type": "boolean", "default": False,
                        "description": "the variant that scores a bonus per complete color"},
    },
}
"""A table's options (CONTRACT §1) as JSON Schema (``check_options`` is the check).
``removed_colors`` is a record's option only: a table's colors are drawn by its shuffle,
so the deck its record lists follows from the seed (``engine.verify``)."""


class Einauge(GameBase):
    """The rules of RULES-einauge.md behind the generic game interface (the members
    every game shares: ``engine.base.GameBase``)."""

    name = "einauge"
    title = "Einauge sei wachsam!"
    min_players = min(COLORS_IN_PLAY)
    max_players = max(COLORS_IN_PLAY)
    max_game_length = 600
    """Events of one game at most (random play: at most about 220 at five seats)."""
    rated_min_decisions = 3
    """Three of the seat's own actions: a game where a seat acts fewer times was left at
    once."""
    state_type = State
    events = EVENTS
    actions = ACTIONS
    uniform_view = True
    """Every viewer sees the same view and events (only the deck order is hidden, from all),
    so a server may compute one view and one projection per event for all sockets."""
    options_schema: Mapping[str, Any] = OPTIONS_SCHEMA
    deck_only_options = frozenset({"removed_colors"})
    deck_field = "deck"
    """Records carry the dealt deck as ``deck`` (CONTRACT §1)."""
    records_without_game = True
    """CONTRACT-einauge §1: a record without ``game`` is an Einauge record."""

    def check_options(self, options: Mapping[str, Any] | None, players: int) -> dict[str, Any]:
        """A table's options: ``setup.check_options`` with defaults filled in, without
        ``removed_colors`` (records only); ``ValueError`` for a bad option."""
        if options is not None and not isinstance(options, Mapping):
            raise ValueError("options must be an object")
        if players not in COLORS_IN_PLAY:
            raise ValueError(f"einauge takes {self.min_players}-{self.max_players} players")
        if options and "removed_colors" in options:
            raise ValueError("removed_colors is an option of records only (CONTRACT §1); a "
                             "table's colors in play are drawn by its shuffle")
        return setup.check_options(options, players)

    def start(self, players: Sequence[str], options: Mapping[str, Any] | None, seed: str,
              deck: Sequence[str] | None = None) -> list[Message]:
        """``game_started`` (deck from ``seed`` by CONTRACT §2, or ``deck`` as given) and
        the automatic events after it. Raises ``ValueError`` for bad players or options."""
        return rules.start_events(State(), setup.game_started(players, options, seed, deck))

    evolve = staticmethod(evolve)
    """Apply one event in place (see ``evolve.evolve``)."""

    def decide(self, state: State, action: Message) -> list[Message]:
        """Events for ``action``; raises ``IllegalAction``; ``state`` is unchanged."""
        return rules.decide(state, action)

    # ``play(state, action)``: like ``decide`` but applies the events to ``state`` too
    # (for fast self-play); bound directly, no wrapper call, as are ``legal_actions``
    # (exactly the actions ``decide`` accepts from ``seat`` now), ``legal_count(state,
    # seat)`` (``len(legal_actions(state, seat))``) and ``legal_action(state, seat, i)``
    # (``legal_actions(state, seat)[i]``, ``IndexError`` out of range).
    play = staticmethod(rules.play)

    def to_move(self, state: State) -> tuple[int, ...]:
        """The seat to move, or ``()`` once the game has ended."""
        return () if state.current_seat is None or state.step is None else (state.current_seat,)

    legal_actions = staticmethod(rules.legal_actions)
    legal_count = staticmethod(rules.legal_count)
    legal_action = staticmethod(rules.legal_action)

    def action_details(self, state: State, seat: int, legal: Sequence[Message] | None = None
                       ) -> list[dict[str, Any]]:
        """Per legal action of ``seat`` (same order; ``legal``: those actions when the
        caller has them): its cost and the row payout it would bring (see
        ``offers.detail``), for a client's buttons and the ship dialog."""
        return offers.action_details(state, seat, legal)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """The client view (public view plus display helpers); the same for every viewer."""
        return view.client_view(state, viewer)

    def public_view(self, state: State, viewer: Viewer = None) -> dict[str, Any]:
        """Exactly CONTRACT section 3's public view (the same for every viewer)."""
        return view.public_view(state)

    def sync_view(self, client: dict[str, Any], state: State, viewer: Viewer
                  ) -> list[dict[str, Any]]:
        """``view_sync.sync_view``: the client view kept in step, and its patch."""
        return view_sync.sync_view(client, state)

    def observation(self, state: State, seat: int) -> Observation:
        """``observation.observe``: the public view, the unseen cards as a multiset."""
        return observe(state, seat)

    def sample(self, observation: Observation, rng: random.Random) -> State:
        """``determinize``: the unseen island cards in a uniformly random order."""
        return determinize(observation, rng=rng)

    def redeal(self, dealt: list[str], state: State, seat: int, stream: RandomStream
               ) -> list[str]:
        """The deck with its island cards still face down in ``state`` in a new order
        from ``stream``; the cards revealed and the ships (always last, in their fixed
        order) stay. Everyone sees the same in Einauge, so ``seat`` changes nothing."""
        deck = list(dealt)
        unseen = set(observe(state, seat).unseen)
        shuffle_slots([(deck, i) for i, card in enumerate(deck) if card in unseen], stream)
        return deck

    def shuffled_deck(self, players: int, options: Mapping[str, Any], seed: str) -> list[str]:
        """``setup.shuffled_deck`` (with ``removed_colors`` when the options give it)."""
        if players not in COLORS_IN_PLAY:
            raise ValueError(f"{players} players: no shuffle is defined")
        removed = options.get("removed_colors")
        if removed is not None and not (isinstance(removed, list)
                                        and all(isinstance(c, str) for c in removed)):
            raise ValueError("options.removed_colors must be a list of colors")
        return setup.shuffled_deck(players, seed, removed)

    def record_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``end_rule`` and ``color_bonus`` as CONTRACT §1 writes them (defaults filled)."""
        options = options or {}
        return {"end_rule": options.get("end_rule", "round"),
                "color_bonus": bool(options.get("color_bonus", False))}

    def bots(self) -> Mapping[str, Callable[..., Any]]:
        """``random``, ``greedy`` and ``mcts`` (docs/bots.md)."""
        return {"random": RandomBot, "greedy": GreedyBot, "mcts": MctsBot}

    def catalogue(self) -> dict[str, Any]:
        """Every card's color, price, sabres, ducats, jewels, chests and fight cost, and
        the colors in canonical order."""
        return {"cards": {cid: {"color": c.color, "price": c.price, "sabres": c.sabres,
                                "ducats": c.ducats, "jewels": c.jewels, "chests": c.chests,
                                "fight_cost": c.fight_cost}
                          for cid, c in CARDS.items()},
                "colors": list(COLORS)}

    def project(self, event: Message, viewer: Viewer) -> dict[str, Any]:
        """The wire form of ``event`` for a client: never the deck order."""
        return view.project(event, viewer)


EINAUGE = Einauge()
