"""Loot Island as a ``engine.game.Game``: the object the server, bots and tools use."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.base import GameBase
from engine.bots.random_bot import RandomBot
from engine.game import Message, Viewer
from engine.loot_island import checks, data, legal, prompt, rules, setup, view
from engine.loot_island.actions import ACTIONS
from engine.loot_island.bots import GreedyBot
from engine.loot_island.events import EVENTS, GameStarted, MapDeckReshuffled
from engine.loot_island.evolve import evolve
from engine.loot_island.mcts import MctsSearch
from engine.loot_island.observation import Observation, observation, sample
from engine.loot_island.state import State
from engine.shuffle import RandomStream, shuffle_slots


class LootIsland(GameBase):
    """The rules of RULES-loot-island.md behind the generic game interface (the members
    every game shares: ``engine.base.GameBase``)."""

    name = "loot-island"
    min_players = 2
    max_players = 5
    max_game_length = 1000
    """Events of one game at most (random play: at most about 350, at five seats)."""
    rated_min_decisions = 3
    """Three of the seat's own actions: a game where a seat acts fewer times was left at
    once."""
    state_type = State
    events = EVENTS
    actions = ACTIONS
    uniform_view = False
    """Hands are hidden: each seat's view and projections differ (``view``, ``project``)."""
    title = "Loot Island"
    options_schema: Mapping[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "additionalProperties": False,
        "properties": {
            "events": {"title": "Event cards", "type": "boolean", "default": True},
            "min_cards": {"title": "Minimum cards", "type": ["integer", "null"],
                          "minimum": 1, "maximum": 12, "default": None},
        }}
    """CONTRACT-loot-island §1's options (``setup.check_options`` is the check)."""
    replay_only_codes: Mapping[str, str] = {
        "bad_reshuffle": "raised only while a record with given reshuffle orders is replayed",
        "reshuffle_unknown": "raised only while a record without a seed is replayed; a live "
                             "table always has its seed",
    }
    deck_field = "orders"
    """Records carry the shuffles' results as ``orders`` (CONTRACT §1): eight setup lists
    and the ``map_reshuffles``."""

    def check_options(self, options: Mapping[str, Any] | None, players: int) -> dict[str, Any]:
        """``setup.check_options`` for ``players`` seats; raises ``ValueError``."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"loot-island takes {self.min_players}-{self.max_players} players")
        return setup.check_options(options)

    def setup_deck(self, events: Sequence[Message]) -> Any:
        """The record's ``orders`` (``setup_orders``): Loot Island deals eight lists, not
        one deck; ``make_record`` takes them where another game takes its deck."""
        return self.setup_orders(events)

    def shuffled_deck(self, players: int, options: Mapping[str, Any], seed: str
                      ) -> dict[str, list[str]]:
        """The eight setup lists of ``seed`` (``setup.shuffled_orders``, CONTRACT §2), top
        first, by name (``map``, ``loot_1`` … ``events_b``); the reshuffles depend on the
        play and are not among them. Raises ``ValueError`` for bad options or counts."""
        self.check_options(options, players)
        return setup.shuffled_orders(seed, {})

    def record_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """``events`` and ``min_cards`` as CONTRACT §1 writes them (defaults filled)."""
        options = options or {}
        return {"events": bool(options.get("events", True)),
                "min_cards": options.get("min_cards")}

    def record_deck(self, deck: Mapping[str, Any]) -> dict[str, Any]:
        """The record's ``orders`` (``setup_deck``'s, e.g.), each list copied."""
        return {k: [list(x) if isinstance(x, list) else x for x in v]
                for k, v in deck.items()}

    def bots(self) -> Mapping[str, Callable[..., Any]]:
        """``random`` (the generic one), ``greedy`` (``engine.loot_island.greedy``) and
        ``mcts`` (``engine.loot_island.mcts``); docs/bots.md, "Loot Island"."""
        return {"random": RandomBot, "greedy": GreedyBot, "mcts": MctsBot}

    def catalogue(self) -> dict[str, Any]:
        """Map cards (colour, value, action), loot cards (deck, kind, gold, curse, …),
        healers (cost terms), each event's modifiers while in force (the data file's
        ``[events]``: what a client shows an event changes), the islets in canonical
        order with their numbers (cubes shed, cards drawn, cards paid), ``islet_cost``
        (per event id and ``"none"``: ``checks.islet_cost``), the landings
        in clockwise order, and ``numbers``: the setup (``minimum`` by player count as
        strings "2"…"5", ``hand_size``, ``start_cubes``, ``discs``), ``discard_shed``,
        ``elimination_cubes`` and the scoring values (``crowns`` by rank, ``skulls`` by
        variants held, ``jewels_pair``, ``jewels_triple``, ``amulet_set``,
        ``start_marker``) that the rules page shows. All from ``data``: public component
        facts, nothing of a game."""
        return {"map": {k: c._asdict() for k, c in data.MAP.items()},
                "loot": {k: c._asdict() for k, c in data.LOOT.items()},
                "healers": {k: c._asdict() for k, c in data.HEALERS.items()},
                "colours": list(data.COLOURS),
                "events": {k: dict(v) for k, v in data.EVENTS.items()},
                "islets": list(data.ISLETS),
                "islet_numbers": {"cost": data.ISLET_COST, "spring_shed": data.SPRING_SHED,
                                  "lookout_draw": data.LOOKOUT_DRAW},
                # The cost in force, per event (and "none": no event), as the engine
                # checks it: a client shows it without knowing what an event changes.
                "islet_cost": {"none": checks.islet_cost(None),
                               **{k: checks.islet_cost(k) for k in data.EVENTS}},
                "landings": list(data.LANDINGS),
                "numbers": {"minimum": {str(n): m for n, m in data.MINIMUM.items()},
                            "hand_size": data.HAND_SIZE, "start_cubes": data.START_CUBES,
                            "discs": data.DISCS, "discard_shed": data.DISCARD_SHED,
                            "elimination_cubes": data.ELIMINATION_CUBES,
                            "crowns": list(data.CROWN_POINTS),
                            "skulls": list(data.SKULL_POINTS),
                            "jewels_pair": data.JEWELS_PAIR,
                            "jewels_triple": data.JEWELS_TRIPLE,
                            "amulet_set": data.AMULET_SET,
                            "start_marker": data.START_MARKER}}

    def start(self, players: Sequence[str], options: Mapping[str, Any] | None,
              seed: str | None, orders: Mapping[str, Any] | None = None) -> list[Message]:
        """``game_started`` (the eight setup lists from ``seed`` by CONTRACT §2, each
        replaced by ``orders`` where given) and the automatic events after it. Raises
        ``ValueError`` naming the bad field (players, options, seed or orders)."""
        return rules.start_events(State(), setup.game_started(players, options, seed, orders))

    evolve = staticmethod(evolve)
    """Apply one event in place (see ``evolve.evolve``)."""

    def decide(self, state: State, action: Message) -> list[Message]:
        """Events for ``action``; raises ``IllegalAction``; ``state`` is unchanged."""
        return rules.decide(state, action)

    def play(self, state: State, action: Message) -> list[Message]:
        """Like ``decide`` but applies the events to ``state`` too (for fast self-play)."""
        return rules.play(state, action)

    def to_move(self, state: State) -> tuple[int, ...]:
        """The seat whose decision is pending, or ``()`` once the game has ended."""
        seat = state.current_seat
        return () if seat is None or state.phase == "ended" else (seat,)

    def legal_actions(self, state: State, seat: int) -> list[Message]:
        """The decisions ``decide`` accepts from ``seat`` now, each choice once
        (see ``legal``)."""
        return legal.legal_actions(state, seat)

    def legal_form(self, state: State, seat: int) -> dict[str, Any] | None:
        """The compact form of the preparation's discards and the action step's plays and
        islet uses (``prompt.legal_form``); ``None`` for picks and healers (listed)."""
        return prompt.legal_form(state, seat)

    def expand_form(self, form: Mapping[str, Any]) -> list[Message]:
        """The actions ``form`` describes, as ``legal_actions`` lists them (``prompt.expand``)."""
        return prompt.expand(form)

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """CONTRACT §3's view for ``viewer``: own hand only, no deck order."""
        return view.view(state, viewer)

    def project(self, event: Message, viewer: Viewer) -> dict[str, Any] | None:
        """The wire form of ``event`` as ``viewer`` may see it (see ``view.project``)."""
        return view.project(event, viewer)

    def observation(self, state: State, seat: int) -> Observation:
        """What ``seat`` knows (see ``observation``)."""
        return observation(state, seat)

    def sample(self, obs: Observation, rng: Any) -> State:
        """A state consistent with ``obs``, its unseen part drawn from ``rng``."""
        return sample(obs, rng)

    def redeal(self, dealt: Mapping[str, Any], state: State, seat: int,
               stream: RandomStream) -> dict[str, Any]:
        """The ``orders`` with what ``seat`` has not seen by ``state`` dealt anew from
        ``stream`` (as ``observation.sample`` draws it): the map cards in other hands or
        the map deck among the places of the list each was last dealt from (the setup
        list or a reshuffle, which held the public discard pile: a card seen there before
        it was reshuffled keeps its earlier place); the cards still in each loot deck
        within their deck's list; the healers while they lie set aside unseen; the
        face-down events among the places of the events not yet seen. Only the
        ``state.reshuffles`` reshuffles made so far are kept: later ones follow from the
        branch's own seed."""
        o = observation(state, seat)
        out: dict[str, Any] = {k: list(v) for k, v in dealt.items() if k != "map_reshuffles"}
        out["map_reshuffles"] = [list(r) for r in dealt.get("map_reshuffles", [])
                                 [:state.reshuffles]]
        lists = [out["map"], *out["map_reshuffles"]]
        unseen_map = set(o.unseen_map)
        last: dict[str, tuple[int, int]] = {}
        for k, cards in enumerate(lists):  # later lists win: where it was last dealt from
            for i, card in enumerate(cards):
                if card in unseen_map:
                    last[card] = (k, i)
        for k, cards in enumerate(lists):  # each list stays a permutation of its cards
            shuffle_slots([(cards, i) for j, i in sorted(last.values()) if j == k], stream)
        for key, unseen in zip(setup.LOOT_KEYS, o.unseen_loot, strict=True):
            pool = set(unseen)
            shuffle_slots([(out[key], i) for i, c in enumerate(out[key]) if c in pool], stream)
        if o.healer_pool:
            shuffle_slots([(out["healers"], i) for i in range(len(out["healers"]))], stream)
        pool = set(o.event_pool)
        shuffle_slots([(out["events_b"], i) for i, c in enumerate(out["events_b"])
                       if c in pool], stream)
        return out

    def setup_orders(self, events: Sequence[Message]) -> dict[str, list[Any]]:
        """The record's ``orders`` (all eight setup lists and every ``map_reshuffles``
        entry used), from a game's events: the deck equivalent of Einauge's
        ``setup_deck``. Raises ``ValueError`` if the first event is not ``game_started``."""
        first = events[0] if events else None
        if not isinstance(first, GameStarted):
            raise ValueError("the first event must be game_started")
        out: dict[str, list[Any]] = {k: list(v) for k, v in first.orders.items()}
        out["map_reshuffles"] = [list(e.cards) for e in events
                                 if isinstance(e, MapDeckReshuffled)]
        return out


LOOT_ISLAND = LootIsland()


class MctsBot(MctsSearch):
    """``mcts`` on Loot Island: the search of ``engine.loot_island.mcts`` on
    ``LOOT_ISLAND``."""

    game = LOOT_ISLAND
