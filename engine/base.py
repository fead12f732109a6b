"""``GameBase``: the members of ``engine.game.Game`` that every game writes the same way.

A game subclasses it and writes only what is its own: identity and seats, options, the
codecs, ``state_type``, ``start``, ``evolve``, ``decide``, ``to_move``,
``legal_actions``, ``view``, ``project``, ``observation``, ``sample``, ``redeal``,
``shuffled_deck``, ``catalogue`` and ``max_game_length`` (docs/games.md, "Adding a
game"). The defaults below are the ones the games share; a game overrides any of them
(Einauge its ``public_view``, Loot Island its ``setup_deck`` and ``record_deck``, …).

The defaults expect a state object with ``result`` (``None`` until the end, then the
game's ``GameResult``) that ``evolve`` updates in place.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine import records
from engine.bots.random_bot import RandomBot
from engine.game import Codec, GameResult, Message, Viewer

EMPTY_OPTIONS: Mapping[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "additionalProperties": False, "properties": {}}
"""The schema of a game without options (any key is refused)."""


class GameBase:
    """The shared members of a game (module docstring); see ``engine.game.Game``."""

    name: str
    title: str
    min_players: int
    max_players: int
    max_game_length: int
    events: Codec
    actions: Codec
    start: Callable[..., list[Message]]
    """Every game writes its own (``engine.game.Game.start``)."""
    state_type: Callable[[], Any]
    """Builds the empty state ``game_started`` is applied to (``initial_state``)."""
    evolve: Callable[[Any, Message], Any]
    """Every game binds its own (``engine.game.Game.evolve``)."""
    decide: Callable[[Any, Message], list[Message]]
    """Every game binds its own (``engine.game.Game.decide``)."""
    view: Callable[[Any, Viewer], dict[str, Any]]
    """Every game binds its own (``engine.game.Game.view``)."""
    options_schema: Mapping[str, Any] = EMPTY_OPTIONS
    deck_only_options: frozenset[str] = frozenset()
    deck_field: str = "deck"
    replay_only_codes: Mapping[str, str] = {}
    records_without_game: bool = False
    """True for the one game whose records may leave ``game`` out (Einauge,
    CONTRACT-einauge §1)."""

    # -- rules --------------------------------------------------------------------------

    def initial_state(self) -> Any:
        """An empty state (``state_type()``), before ``game_started``."""
        return self.state_type()

    def replay(self, events: Sequence[Message]) -> Any:
        """The state after ``events``, folded with ``evolve`` from ``initial_state()``."""
        state = self.initial_state()
        evolve = self.evolve
        for e in events:
            state = evolve(state, e)
        return state

    def play(self, state: Any, action: Message, /) -> list[Message]:
        """``decide``, and its events applied to ``state`` (``evolve`` in place)."""
        events = self.decide(state, action)
        evolve = self.evolve
        for e in events:
            evolve(state, e)
        return events

    def is_over(self, state: Any) -> bool:
        """True once the game's result is known (``game_ended`` applied)."""
        return state.result is not None

    def result(self, state: Any) -> GameResult | None:
        """The state's ``result`` (``GameResult``), ``None`` before the end."""
        result: GameResult | None = state.result
        return result

    def action_details(self, state: Any, seat: int, legal: Sequence[Message] | None = None
                       ) -> list[dict[str, Any]] | None:
        """None: the prompt's legal actions say all there is (no costs or payouts)."""
        return None

    def legal_form(self, state: Any, seat: int) -> dict[str, Any] | None:
        """None: the prompt lists the legal actions."""
        return None

    def expand_form(self, form: Mapping[str, Any]) -> list[Message]:
        """Never called for a game without a compact form (``ValueError``)."""
        raise ValueError(f"{self.name} describes its legal actions by listing them")

    # -- views ----------------------------------------------------------------------------

    def public_view(self, state: Any, viewer: Viewer = None) -> dict[str, Any]:
        """CONTRACT §3's view of ``viewer``: here ``view`` (a game whose client view adds
        display helpers overrides it)."""
        return self.view(state, viewer)

    def sync_view(self, view: dict[str, Any], state: Any, viewer: Viewer
                  ) -> list[dict[str, Any]] | None:
        """None: this game keeps no view in step; the server builds ``view`` anew after
        each append and diffs the two (server/table/patch.py)."""
        return None

    # -- records and fairness ---------------------------------------------------------------

    def setup_deck(self, events: Sequence[Message]) -> Any:
        """The cards ``game_started`` (the first event) dealt, top first: its ``deck``."""
        first = events[0] if events else None
        deck = getattr(first, "deck", None)
        if first is None or first.type != "game_started" or deck is None:
            raise ValueError("the first event must be game_started")
        return list(deck)

    def record_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The options as a record writes them (CONTRACT §1): here as given."""
        return dict(options or {})

    def record_deck(self, deck: Any) -> Any:
        """The dealt cards as a record writes them under ``deck_field``: here a list."""
        return list(deck)

    def make_record(self, players: Sequence[str], options: Mapping[str, Any], seed: str | None,
                    deck: Any, actions: Sequence[Message | Mapping[str, Any]],
                    **extra: Any) -> dict[str, Any]:
        """``engine.records.make_record`` for this game."""
        return records.make_record(self, players, options, seed, deck, actions, **extra)

    def replay_record(self, record: Mapping[str, Any]) -> tuple[Any, list[Message]]:
        """``engine.records.replay_record`` for this game; raises ``RecordError``."""
        return records.replay_record(self, record)

    def record_view(self, record: Mapping[str, Any], seat: int | None = None
                    ) -> dict[str, Any]:
        """``engine.records.record_view`` for this game; raises ``RecordError``."""
        return records.record_view(self, record, seat)

    # -- bots -------------------------------------------------------------------------------

    def bots(self) -> Mapping[str, Callable[..., Any]]:
        """``random`` only (a game with bots of its own lists them after it)."""
        return {"random": RandomBot}
