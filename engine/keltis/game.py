"""Keltis: Das Kartenspiel as an ``engine.game.Game``: the object the server and bots use."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.game import Message, Viewer
from engine.keltis import cards, rules, setup, view
from engine.keltis import observation as obs
from engine.keltis.actions import ACTIONS
from engine.keltis.events import EVENTS, GameStarted
from engine.keltis.evolve import evolve
from engine.keltis.state import State


class Keltis:
    """The rules of RULES-keltis.md behind the generic game interface."""

    name = "keltis"
    title = "Keltis: Das Kartenspiel"
    min_players = setup.MIN_PLAYERS
    max_players = setup.MAX_PLAYERS
    events = EVENTS
    actions = ACTIONS
    uniform_view = False
    """Hands are hidden: each seat's view and projections differ (its own hand, its own
    deck draws), so a server computes them per viewer."""
    options_schema: Mapping[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "additionalProperties": False, "properties": {}}
    """CONTRACT §1: no options exist (any key is refused)."""
    deck_only_options: frozenset[str] = frozenset()
    deck_field = "deck"
    """Records carry the dealt deck as ``deck`` (CONTRACT §1)."""

    def check_options(self, options: Mapping[str, Any] | None, players: int) -> dict[str, Any]:
        """``{}`` (``setup.check_options``); ``ValueError`` for any key or a bad count."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"keltis takes {self.min_players}-{self.max_players} players")
        return setup.check_options(options)

    def result(self, state: State) -> dict[str, Any] | None:
        """CONTRACT §3's ``result``, ``None`` before the end."""
        return state.result

    def shuffled_deck(self, players: int, options: Mapping[str, Any], seed: str) -> list[str]:
        """``setup.shuffled_deck`` (one shuffle of the 101 cards, whatever the count)."""
        self.check_options(options, players)
        return setup.shuffled_deck(seed)

    def make_record(self, players: Sequence[str], options: Mapping[str, Any], seed: str | None,
                    deck: Sequence[str], actions: Sequence[Message | Mapping[str, Any]],
                    **extra: Any) -> dict[str, Any]:
        """``record.make_record``."""
        from engine.keltis.record import make_record
        return make_record(players, options, seed, deck, actions, **extra)

    def replay_record(self, record: Mapping[str, Any]) -> tuple[State, list[Message]]:
        """``record.replay_record``; raises ``RecordError``."""
        from engine.keltis.record import replay_record
        return replay_record(record)

    def record_view(self, record: Mapping[str, Any], seat: int | None = None
                    ) -> dict[str, Any]:
        """``record.record_view``: the CONTRACT view of ``seat`` after the record."""
        from engine.keltis.record import record_view
        return record_view(record, seat)

    def bots(self) -> Mapping[str, Callable[..., Any]]:
        """``random``, ``greedy`` and ``mcts`` (docs/bots.md)."""
        from engine.bots.random_bot import RandomBot
        from engine.keltis.bots import GreedyBot, MctsBot
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

    def action_details(self, state: State, seat: int) -> None:
        """None: the prompt's legal actions say all there is (no costs or payouts to show)."""
        return None

    def legal_form(self, state: State, seat: int) -> None:
        """None: the prompt lists the legal actions (they are few)."""
        return None

    def expand_form(self, form: Mapping[str, Any]) -> list[Message]:
        """Never called: this game has no compact form (``ValueError``)."""
        raise ValueError(f"{self.name} describes its legal actions by listing them")

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
