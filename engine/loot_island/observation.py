"""Observations and sampling, for information-set search (later MCTS bots).

``observation(state, seat)`` is everything ``seat`` knows: its view (CONTRACT §3) plus
the public bookkeeping a state needs (offers still to come, the pick count, …) and the
pools of unseen cards. ``sample(obs, rng)`` builds an ordinary ``State`` that agrees with
all of it and deals the unseen part at random: other hands and the map deck from the
unseen map cards, each loot deck I-IV in a random order (the decks stay stacked I on top),
the set-aside healers (until they are revealed) and the face-down events. Its seed is
random too, so its reshuffles are as unknown as the real ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from engine.game import Message
from engine.loot_island.data import (
    COASTS,
    EVENTS_B,
    HEALER_IDS,
    ISLETS,
    LANDINGS,
    LOOT,
    LOOT_DECKS,
    MAP_INDEX,
)
from engine.loot_island.state import Player, State
from engine.loot_island.view import view


@dataclass(frozen=True)
class Observation:
    """What ``seat`` knows. ``unseen_map``: map cards in other hands or the map deck;
    ``unseen_loot``: per deck, the cards still in the loot deck; ``healer_pool``: healers
    that may be set aside (empty once revealed); ``event_pool``: events not yet seen that
    may lie face down. All in canonical order."""

    seat: int
    view: dict[str, Any]
    options: dict[str, Any]
    internal: tuple[Any, ...]
    unseen_map: tuple[str, ...]
    unseen_loot: tuple[tuple[str, ...], ...]
    healer_pool: tuple[str, ...]
    event_pool: tuple[str, ...]

    @cached_property
    def legal(self) -> tuple[Message, ...]:
        """Exactly the actions the rules accept from ``seat`` now (``legal_actions``),
        computed on first use: they follow from what the seat sees alone (its hand, the
        board, the offer, the revealed healers), so any sample gives the same list. A
        large hand lists thousands (every discard subset), hence not built eagerly: the
        greedy policy never reads it."""
        from engine.loot_island.legal import legal_actions
        return tuple(legal_actions(sample(self, random.Random(0)), self.seat))


def observation(s: State, seat: int) -> Observation:
    """The observation of ``seat`` (0-based) in ``s``; raises ``ValueError`` for a seat
    out of range."""
    if not 0 <= seat < len(s.players):
        raise ValueError(f"seat {seat} is not in this game")
    hidden = [c for i, p in enumerate(s.players) if i != seat for c in p.hand] + s.map_deck
    loot = tuple(tuple(sorted(c for c in s.loot_deck if LOOT[c].deck == d))
                 for d in LOOT_DECKS)
    pool = () if s.chooser_order is not None else HEALER_IDS
    seen = set(s.events_seen)
    events = () if not s.events else tuple(e for e in EVENTS_B if e not in seen)
    chooser = None if s.chooser_order is None else tuple(s.chooser_order)
    internal = (s.step, s.first_passed, s.prep_done, tuple(s.pending), s.pick, chooser)
    return Observation(seat, view(s, seat), dict(s.options), internal,
                       tuple(sorted(hidden, key=MAP_INDEX.__getitem__)), loot, pool, events)


def sample(obs: Observation, rng: random.Random) -> State:
    """A full ``State`` consistent with ``obs``, the unseen part drawn with ``rng``."""
    v = obs.view
    s = State()
    s.options = dict(obs.options)
    s.seed = f"sample:{rng.getrandbits(128):032x}"
    s.step, s.first_passed, s.prep_done, pending, s.pick, chooser = obs.internal
    s.chooser_order = None if chooser is None else list(chooser)
    s.pending = list(pending)
    s.round, s.phase = v["round"], v["phase"]
    s.current_seat = v["current_seat"]
    s.ship = COASTS.index(v["ship"])
    s.start_seat = v["start_seat"]
    s.islets_open = [v["islets"][i] == "open" for i in ISLETS]
    for x, name in zip(s.landings, LANDINGS, strict=True):
        lv = v["landings"][name]
        x.cards = [c["card"] for c in lv["cards"]]
        x.values = [c["value"] for c in lv["cards"]]
        x.discs = list(lv["discs"])
    unseen = list(obs.unseen_map)
    rng.shuffle(unseen)
    for pv in v["players"]:
        p = Player(pv["name"])
        p.cubes, p.loot, p.passed = pv["cubes"], list(pv["loot"]), pv["passed"]
        p.healer, p.eliminated = pv["healer"], pv["eliminated"]
        if pv["hand"] is not None:
            p.hand = list(pv["hand"])
        else:
            k = pv["hand_count"]
            p.hand, unseen = unseen[:k], unseen[k:]
        s.players.append(p)
    s.map_deck = unseen
    s.map_discard = list(v["map_discard"])
    s.reshuffles = v["map_reshuffles"]
    loot: list[str] = []
    for deck in obs.unseen_loot:
        cards = list(deck)
        rng.shuffle(cards)
        loot += cards
    s.loot_deck = loot[::-1]
    s.loot_discard = list(v["loot_discard"])
    if v["offer"] is not None:
        o = v["offer"]
        s.offer, s.offer_landing, s.offer_size = list(o["cards"]), o["landing"], o["size"]
        s.offer_order = list(o["order"])
    if v["healers"] is not None:
        s.aside = [h["healer"] for h in v["healers"]]
    else:
        s.aside = rng.sample(list(obs.healer_pool), len(s.players))
    s.events_seen = list(v["events_seen"])
    s.event = v["event"]
    if s.options.get("events"):
        s.events = s.events_seen + rng.sample(list(obs.event_pool), v["event_deck_count"])
    s.seq = v["seq"]
    s.result = v["result"]
    return s

