"""Einauge sei wachsam! as a ``engine.game.Game``: the object the server and bots use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.einauge import offers, rules, setup, view
from engine.einauge.actions import ACTIONS
from engine.einauge.events import EVENTS, GameStarted
from engine.einauge.evolve import evolve
from engine.einauge.state import State
from engine.game import Message, Viewer


class Einauge:
    """The rules of RULES-einauge.md behind the generic game interface."""

    name = "einauge"
    min_players = 2
    max_players = 5
    events = EVENTS
    actions = ACTIONS
    uniform_view = True
    """Every viewer sees the same view and events (only the deck order is hidden, from all),
    so a server may compute one view and one projection per event for all sockets."""

    def start(self, players: Sequence[str], options: Mapping[str, Any] | None, seed: str,
              deck: Sequence[str] | None = None) -> list[Message]:
        """``game_started`` (deck from ``seed`` by CONTRACT §2, or ``deck`` as given) and
        the automatic events after it. Raises ``ValueError`` for bad players or options."""
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

    def decide(self, state: State, action: Message) -> list[Message]:
        """Events for ``action``; raises ``IllegalAction``; ``state`` is unchanged."""
        return rules.decide(state, action)

    def play(self, state: State, action: Message) -> list[Message]:
        """Like ``decide`` but applies the events to ``state`` too (for fast self-play)."""
        return rules.play(state, action)

    def to_move(self, state: State) -> tuple[int, ...]:
        """The seat to move, or ``()`` once the game has ended."""
        return () if state.current_seat is None or state.step is None else (state.current_seat,)

    def legal_actions(self, state: State, seat: int) -> list[Message]:
        """Exactly the actions ``decide`` accepts from ``seat`` now."""
        return rules.legal_actions(state, seat)

    # For callers that need only the number of legal actions or one of them (bound
    # directly, no wrapper call):
    # ``legal_count(state, seat)`` is ``len(legal_actions(state, seat))`` and
    # ``legal_action(state, seat, i)`` is ``legal_actions(state, seat)[i]`` (``IndexError``
    # out of range), without building the list.
    legal_count = staticmethod(rules.legal_count)
    legal_action = staticmethod(rules.legal_action)

    def action_details(self, state: State, seat: int) -> list[dict[str, Any]]:
        """Per legal action of ``seat`` (same order): its cost and the row payout it would
        bring (see ``offers.detail``), for a client's buttons and the ship dialog."""
        return offers.action_details(state, seat)

    def is_over(self, state: State) -> bool:
        """True once ``game_ended`` has been applied."""
        return state.phase == "ended"

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """The client view (public view plus display helpers); the same for every viewer."""
        return view.client_view(state, viewer)

    def public_view(self, state: State) -> dict[str, Any]:
        """Exactly CONTRACT section 3's public view."""
        return view.public_view(state)

    def project(self, event: Message, viewer: Viewer) -> dict[str, Any]:
        """The wire form of ``event`` for a client: never the deck order."""
        return view.project(event, viewer)

    def setup_deck(self, events: Sequence[Message]) -> list[str]:
        """The island cards dealt in ``game_started`` (top first), for the game record."""
        first = events[0]
        if not isinstance(first, GameStarted):
            raise ValueError("the first event must be game_started")
        return list(first.deck)


EINAUGE = Einauge()
