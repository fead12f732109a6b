"""Keltis: Das Kartenspiel as an ``engine.game.Game``: the object the server and bots use."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.game import Message, Viewer
from engine.keltis import observation as obs
from engine.keltis import rules, setup, view
from engine.keltis.actions import ACTIONS
from engine.keltis.events import EVENTS, GameStarted
from engine.keltis.evolve import evolve
from engine.keltis.state import State


class Keltis:
    """The rules of RULES-keltis.md behind the generic game interface."""

    name = "keltis"
    min_players = setup.MIN_PLAYERS
    max_players = setup.MAX_PLAYERS
    events = EVENTS
    actions = ACTIONS
    uniform_view = False
    """Hands are hidden: each seat's view and projections differ (its own hand, its own
    deck draws), so a server computes them per viewer."""

    def start(self, players: Sequence[str], options: Mapping[str, Any] | None, seed: str,
              deck: Sequence[str] | None = None) -> list[Message]:
        """``game_started`` (the deck from ``seed`` by CONTRACT §2, or ``deck`` as given)
        and the deal after it. Raises ``ValueError`` for bad players, options or deck."""
        return rules.start_events(State(), setup.game_started(players, options, seed, deck))

    def initial_state(self) -> State:
        """An empty state, before ``game_started``."""
        return State()

    def evolve(self, state: State, event: Message) -> State:
        """Apply one event in place (see ``evolve.evolve``)."""
        return evolve(state, event)

    def replay(self, events: Sequence[Message]) -> State:
        """The state after ``events``, folded from an empty one."""
        state = State()
        for e in events:
            evolve(state, e)
        return state

    # Bound directly (no wrapper call: these are the hot path of self-play and search).
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

    def is_over(self, state: State) -> bool:
        """True once ``game_ended`` has been applied."""
        return state.phase == "ended"

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

    def setup_deck(self, events: Sequence[Message]) -> list[str]:
        """The 101 cards of ``game_started`` (top first, before removal and deal), for
        the game record."""
        first = events[0]
        if not isinstance(first, GameStarted):
            raise ValueError("the first event must be game_started")
        return list(first.deck)


KELTIS = Keltis()
