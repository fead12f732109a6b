"""Keltis: Das Kartenspiel as an ``engine.game.Game``: the object the server and bots use."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.base import GameBase
from engine.bots.random_bot import RandomBot
from engine.game import Message, Viewer
from engine.keltis import cards, rules, setup, view
from engine.keltis import observation as obs
from engine.keltis.actions import ACTIONS
from engine.keltis.bots import GreedyBot, MctsSearch
from engine.keltis.events import EVENTS
from engine.keltis.evolve import evolve
from engine.keltis.state import State
from engine.shuffle import RandomStream, shuffle_slots


class Keltis(GameBase):
    """The rules of RULES-keltis.md behind the generic game interface (the members
    every game shares: ``engine.base.GameBase``)."""

    name = "keltis"
    title = "Keltis: Das Kartenspiel"
    min_players = setup.MIN_PLAYERS
    max_players = setup.MAX_PLAYERS
    max_game_length = 1500
    """Events of one game at most (random play: at most about 480, at three seats)."""
    rated_min_decisions = 4
    """Four of the seat's own actions (a Keltis turn is a play or discard and a draw:
    about two turns)."""
    state_type = State
    events = EVENTS
    actions = ACTIONS
    uniform_view = False
    """Hands are hidden: each seat's view and projections differ (its own hand, its own
    deck draws), so a server computes them per viewer."""
    # CONTRACT §1: no options exist (``options_schema`` refuses any key); records carry
    # the dealt deck as ``deck`` (``GameBase``'s ``deck_field``).

    def check_options(self, options: Mapping[str, Any] | None, players: int) -> dict[str, Any]:
        """``{}`` (``setup.check_options``); ``ValueError`` for any key or a bad count."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"keltis takes {self.min_players}-{self.max_players} players")
        return setup.check_options(options)

    def shuffled_deck(self, players: int, options: Mapping[str, Any], seed: str) -> list[str]:
        """``setup.shuffled_deck`` (one shuffle of the 101 cards, whatever the count)."""
        self.check_options(options, players)
        return setup.shuffled_deck(seed)

    def record_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``{}`` (``setup.check_options``: no options exist); ``ValueError`` for any."""
        return setup.check_options(options)

    def bots(self) -> Mapping[str, Callable[..., Any]]:
        """``random``, ``greedy`` and ``mcts`` (docs/bots.md)."""
        return {"random": RandomBot, "greedy": GreedyBot, "mcts": MctsBot}

    def catalogue(self) -> dict[str, Any]:
        """Every deck card's kind (``number``, ``end``, ``point``), color and value, the
        stone cards' values, the colors and piles in canonical order and the hand size."""
        kinds = {cards.NUMBER: "number", cards.END: "end", cards.POINT_CARD: "point"}
        return {"cards": {c: {"kind": kinds[cards.KIND[c]], "color": cards.COLOR[c],
                              "value": cards.VALUE[c]} for c in cards.CANONICAL},
                "stones": {s: cards.STONE_VALUE[s] for s in cards.STONES},
                "colors": list(cards.COLORS), "piles": list(cards.PILES),
                "hand_size": cards.HAND_SIZE}

    def start(self, players: Sequence[str], options: Mapping[str, Any] | None, seed: str,
              deck: Sequence[str] | None = None) -> list[Message]:
        """``game_started`` (the deck from ``seed`` by CONTRACT §2, or ``deck`` as given)
        and the deal after it. Raises ``ValueError`` for bad players, options or deck."""
        return rules.start_events(State(), setup.game_started(players, options, seed, deck))

    # Bound directly (no wrapper call: these are the hot path of self-play and search).
    evolve = staticmethod(evolve)
    """Apply one event in place (see ``evolve.evolve``)."""
    decide = staticmethod(rules.decide)
    """Events for ``action``; raises ``IllegalAction``; ``state`` is unchanged."""
    play = staticmethod(rules.play)
    """Like ``decide`` but applies the events to ``state`` too (for fast self-play)."""

    def to_move(self, state: State) -> tuple[int, ...]:
        """The seat to move, or ``()`` once the game has ended."""
        step = state.step
        if step == "play" or step == "draw" or step == "final":
            return (state.current_seat,)  # type: ignore[return-value]
        return ()

    legal_actions = staticmethod(rules.legal_actions)
    """Exactly the actions ``decide`` accepts from ``seat`` now."""

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """The client view of ``viewer`` (CONTRACT §3 plus display helpers)."""
        return view.client_view(state, viewer)

    def public_view(self, state: State, viewer: Viewer = None) -> dict[str, Any]:
        """Exactly CONTRACT §3's view of ``viewer`` (default: a spectator)."""
        return view.public_view(state, viewer)

    def project(self, event: Message, viewer: Viewer) -> dict[str, Any]:
        """The wire form of ``event`` for ``viewer``: never another's hand or the deck."""
        return view.project(event, viewer)

    def observation(self, state: State, seat: int) -> obs.Observation:
        """What ``seat`` knows (``observation.observation``), for bots."""
        return obs.observation(state, seat)

    def sample(self, observation: obs.Observation, rng: random.Random) -> State:
        """A full state consistent with ``observation`` (``observation.sample``)."""
        return obs.sample(observation, rng)


    def redeal(self, dealt: list[str], state: State, seat: int, stream: RandomStream
               ) -> list[str]:
        """The deck with the cards ``seat`` has not seen by ``state`` (``unseen`` of its
        observation: the unknown part of the other hands, the removed cards, the deck) in
        a new order from ``stream``, each keeping a place of one of them."""
        deck = list(dealt)
        unseen = set(obs.observation(state, seat).unseen)
        shuffle_slots([(deck, i) for i, card in enumerate(deck) if card in unseen], stream)
        return deck

KELTIS = Keltis()


class MctsBot(MctsSearch):
    """``mcts`` on Keltis: the search of ``engine.keltis.bots`` on ``KELTIS``."""

    game = KELTIS
