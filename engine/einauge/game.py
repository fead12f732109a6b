"""Einauge sei wachsam! as a ``engine.game.Game``: the object the server and bots use."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.einauge import offers, rules, setup, view
from engine.einauge.actions import ACTIONS
from engine.einauge.cards import CARDS, COLORS, COLORS_IN_PLAY
from engine.einauge.determinize import determinize
from engine.einauge.events import EVENTS, GameStarted
from engine.einauge.evolve import evolve
from engine.einauge.observation import Observation, observe
from engine.einauge.state import State
from engine.game import Message, RecordError, Viewer

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


class Einauge:
    """The rules of RULES-einauge.md behind the generic game interface."""

    name = "einauge"
    title = "Einauge sei wachsam!"
    min_players = min(COLORS_IN_PLAY)
    max_players = max(COLORS_IN_PLAY)
    events = EVENTS
    actions = ACTIONS
    uniform_view = True
    """Every viewer sees the same view and events (only the deck order is hidden, from all),
    so a server may compute one view and one projection per event for all sockets."""
    options_schema = OPTIONS_SCHEMA
    deck_only_options = frozenset({"removed_colors"})
    deck_field = "deck"
    """Records carry the dealt deck as ``deck`` (CONTRACT §1)."""

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

    def action_details(self, state: State, seat: int) -> list[dict[str, Any]]:
        """Per legal action of ``seat`` (same order): its cost and the row payout it would
        bring (see ``offers.detail``), for a client's buttons and the ship dialog."""
        return offers.action_details(state, seat)

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
        """The client view (public view plus display helpers); the same for every viewer."""
        return view.client_view(state, viewer)

    def public_view(self, state: State, viewer: Viewer = None) -> dict[str, Any]:
        """Exactly CONTRACT section 3's public view (the same for every viewer)."""
        return view.public_view(state)

    def result(self, state: State) -> dict[str, Any] | None:
        """CONTRACT §3's ``result``, ``None`` before the end."""
        return state.result

    def observation(self, state: State, seat: int) -> Observation:
        """``observation.observe``: the public view, the unseen cards as a multiset."""
        return observe(state, seat)

    def sample(self, observation: Observation, rng: random.Random) -> State:
        """``determinize``: the unseen island cards in a uniformly random order."""
        return determinize(observation, rng=rng)

    def shuffled_deck(self, players: int, options: Mapping[str, Any], seed: str) -> list[str]:
        """``setup.shuffled_deck`` (with ``removed_colors`` when the options give it)."""
        if players not in COLORS_IN_PLAY:
            raise ValueError(f"{players} players: no shuffle is defined")
        removed = options.get("removed_colors")
        if removed is not None and not (isinstance(removed, list)
                                        and all(isinstance(c, str) for c in removed)):
            raise ValueError("options.removed_colors must be a list of colors")
        return setup.shuffled_deck(players, seed, removed)

    def make_record(self, players: Sequence[str], options: Mapping[str, Any], seed: str | None,
                    deck: Sequence[str], actions: Sequence[Message | Mapping[str, Any]],
                    **extra: Any) -> dict[str, Any]:
        """``record.make_record``."""
        from engine.einauge.record import make_record
        return make_record(players, options, seed, deck, actions, **extra)

    def replay_record(self, record: Mapping[str, Any]) -> tuple[State, list[Message]]:
        """``record.replay_record``; raises ``RecordError``."""
        from engine.einauge.record import replay_record
        return replay_record(record)

    def record_view(self, record: Mapping[str, Any], seat: int | None = None
                    ) -> dict[str, Any]:
        """The public view after the record (every seat sees it: nothing is hidden but
        the deck order). Raises ``RecordError``."""
        state, _ = self.replay_record(record)
        if seat is not None and (type(seat) is not int or not 0 <= seat < len(state.players)):
            raise RecordError(None, f"seat must be 0..{len(state.players) - 1}, not {seat!r}")
        return view.public_view(state)

    def bots(self) -> Mapping[str, Callable[..., Any]]:
        """``random``, ``greedy`` and ``mcts`` (docs/bots.md)."""
        from engine.bots.random_bot import RandomBot
        from engine.einauge.bots import GreedyBot, MctsBot
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

    def setup_deck(self, events: Sequence[Message]) -> list[str]:
        """The island cards dealt in ``game_started`` (top first), for the game record."""
        first = events[0]
        if not isinstance(first, GameStarted):
            raise ValueError("the first event must be game_started")
        return list(first.deck)


EINAUGE = Einauge()
