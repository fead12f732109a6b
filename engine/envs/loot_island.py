"""Loot Island's encodings for the adapters (docs/games.md, "Machine learning").

**Actions** are chosen a part at a time (``engine.envs.base``, "Actions as tokens"): a
discard, a play and an islet use are combinations (every subset of a hand, every card
set × landing × joker value), far too many to enumerate once, so each is a sequence of
the 281 tokens below, ending with ``done``; picks, healers and ``pass`` are one token.

- ``pass`` (0), ``done`` (1), ``discard`` (2), the 8 landings (3-10), the 88 map cards
  (11-98, canonical map order), the joker values 1-10 (99-108), the copies ``shed`` and
  ``draw`` (109-110), the 7 islets (111-117), ``skip`` (118), ``take_loot`` of each of the
  74 loot cards (119-192), ``discard_loot`` of each (193-266), the 14 healers (267-280).
- ``discard``: ``discard``, the cards in canonical map order, ``done`` (``done`` at once
  discards none).
- ``play``: the landing, then the cards in laying order, each joker followed by its
  value, then the copy of a lone printed 1 if any, ``done``.
- ``islet``: the islet, its two cards in canonical order, then ``skip``, or its landing
  (shortcut, camp), or its ``from`` and ``to`` landings (portage), ``done``.

The engine lists each choice once (cards in canonical order where the order is free,
plays by value): the sequences follow its lists, so the completed sequences are exactly
its legal actions.

**Observation** (float32): the seat's hand (88 flags), the map discard pile (88), the
map cards the seat has not seen (88: other hands and the deck, as a set); per landing its
colour, cards (88 flags), top value, count, chests and the discs on it (per seat,
relative); the open islets (7), the ship's coast (4), the start seat (relative), the
round, the phase (6), the step of the engine's bookkeeping (6), the first-passed flag,
the preparation count, the pending seats count, the pick count, the seat to move
(relative), the minimum, the event in force (18 + none), the events seen (18), the event
and map deck counts, the reshuffles so far, the loot deck counts (4), the loot discard
pile (74 flags), the offer (74 flags, landing: 8, whether it is big), the healers set aside (14) and
those that may still be (14); per seat, the observer first: hand count, cubes, loot (74
flags), free discs, passed, healer (14), eliminated; then the tokens chosen of the
current action (281 counts) and the last of them (281).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.envs.base import Deal, Encoding, multi_hot, one_hot
from engine.game import IllegalAction, Message
from engine.loot_island import LOOT_ISLAND
from engine.loot_island import actions as ac
from engine.loot_island.data import (
    COASTS,
    COLOURS,
    EVENTS_A,
    EVENTS_B,
    HEALER_IDS,
    ISLETS,
    LANDINGS,
    LOOT,
    LOOT_DECKS,
    MAP_IDS,
    MAP_INDEX,
)
from engine.loot_island.setup import CANONICAL

LOOT_IDS = tuple(LOOT)
LOOT_INDEX = {c: i for i, c in enumerate(LOOT_IDS)}
HEALER_INDEX = {h: i for i, h in enumerate(HEALER_IDS)}
EVENT_IDS = (*EVENTS_A, *EVENTS_B)
EVENT_INDEX = {e: i for i, e in enumerate(EVENT_IDS)}
LANDING_INDEX = {x: i for i, x in enumerate(LANDINGS)}
COPIES = ("shed", "draw")
_PHASES = ("preparation", "actions", "loot", "final_exploration", "healers", "ended")
_STEPS = ("begin", "discard", "act", "pick", "cleaned", "choose")

PASS, DONE, DISCARD = 0, 1, 2
LANDING0 = 3
CARD0 = LANDING0 + len(LANDINGS)
VALUE0 = CARD0 + len(MAP_IDS) - 1  # VALUE0 + v for joker value v (1-10)
COPY0 = VALUE0 + 11
ISLET0 = COPY0 + len(COPIES)
SKIP = ISLET0 + len(ISLETS)
TAKE0 = SKIP + 1
DROP0 = TAKE0 + len(LOOT_IDS)
HEALER0 = DROP0 + len(LOOT_IDS)
NUM_TOKENS = HEALER0 + len(HEALER_IDS)
ISLET_INDEX = {x: i for i, x in enumerate(ISLETS)}


def _names() -> list[str]:
    names = ["pass", "done", "discard", *LANDINGS, *MAP_IDS,
             *(f"value-{v}" for v in range(1, 11)), *(f"copy-{c}" for c in COPIES),
             *ISLETS, "skip", *(f"take-{c}" for c in LOOT_IDS),
             *(f"discard-{c}" for c in LOOT_IDS), *HEALER_IDS]
    assert len(names) == NUM_TOKENS
    return names


TOKEN_NAMES: tuple[str, ...] = tuple(_names())


def action_tokens(action: Message) -> tuple[int, ...]:
    """The token sequence of a Loot Island action (module docstring); ``KeyError`` for a
    foreign action or an unknown id."""
    if isinstance(action, ac.Pass):
        return (PASS,)
    if isinstance(action, ac.Discard):
        return (DISCARD, *(CARD0 + MAP_INDEX[c] for c in action.cards), DONE)
    if isinstance(action, ac.Play):
        out = [LANDING0 + LANDING_INDEX[action.landing]]
        values = action.values or {}
        for c in action.cards:
            out.append(CARD0 + MAP_INDEX[c])
            if c in values:
                out.append(VALUE0 + values[c])
        if action.copy is not None:
            out.append(COPY0 + COPIES.index(action.copy))
        out.append(DONE)
        return tuple(out)
    if isinstance(action, ac.Islet):
        out = [ISLET0 + ISLET_INDEX[action.islet],
               *(CARD0 + MAP_INDEX[c] for c in action.cards)]
        if action.skip:
            out.append(SKIP)
        for landing in (action.landing, action.from_, action.to):
            if landing is not None:
                out.append(LANDING0 + LANDING_INDEX[landing])
        out.append(DONE)
        return tuple(out)
    if isinstance(action, ac.TakeLoot):
        return (TAKE0 + LOOT_INDEX[action.card],)
    if isinstance(action, ac.DiscardLoot):
        return (DROP0 + LOOT_INDEX[action.card],)
    if isinstance(action, ac.ChooseHealer):
        return (HEALER0 + HEALER_INDEX[action.healer],)
    raise KeyError(f"not a Loot Island action: {action!r}")


class LootIslandEncoding(Encoding):
    """Loot Island at one player count (module docstring)."""

    game = LOOT_ISLAND
    chance_items = (*MAP_IDS, *LOOT_IDS, *HEALER_IDS, *EVENT_IDS)
    num_tokens = NUM_TOKENS
    max_tokens_per_action = 2 + len(MAP_IDS)
    """A discard of a whole hand (a hand never holds every map card: a safe bound)."""
    max_chance_nodes = (sum(len(v) for v in CANONICAL.values())
                        + len(MAP_IDS) * LOOT_ISLAND.max_game_length)
    """The setup lists, and a reshuffle of at most every map card per event of the game
    (each reshuffle is an event, ``map_deck_reshuffled``; random play makes a handful)."""

    def tokens(self, action: Message) -> tuple[int, ...]:
        return action_tokens(action)

    def token_name(self, token: int) -> str:
        return TOKEN_NAMES[token]

    def encode_shape(self) -> int:
        n, m, k = self.players, len(MAP_IDS), len(LOOT_IDS)
        landing = len(COLOURS) + m + 3 + n
        per_seat = 1 + 1 + k + 1 + 1 + len(HEALER_IDS) + 1
        return (3 * m + len(LANDINGS) * landing + len(ISLETS) + len(COASTS) + n + 1
                + len(_PHASES) + len(_STEPS) + 4 + n + 1 + len(EVENT_IDS) + 1
                + len(EVENT_IDS) + 1 + 1 + 1 + len(LOOT_DECKS) + k + k + len(LANDINGS) + 1
                + 2 * len(HEALER_IDS) + n * per_seat + 2 * NUM_TOKENS)

    def encode(self, obs: Any, prefix: Sequence[int]) -> np.ndarray:
        n, m, k = self.players, len(MAP_IDS), len(LOOT_IDS)
        me = obs.seat
        v = obs.view
        me_view = v["players"][me]
        colours = {c: i for i, c in enumerate(COLOURS)}

        def rel(seat: int | None) -> int | None:
            return None if seat is None else (seat - me) % n

        parts = [multi_hot(MAP_INDEX, me_view["hand"] or (), m),
                 multi_hot(MAP_INDEX, v["map_discard"], m),
                 multi_hot(MAP_INDEX, obs.unseen_map, m)]
        for name in LANDINGS:
            lv = v["landings"][name]
            top = lv["cards"][-1]["value"] if lv["cards"] else 0
            discs = np.zeros(n, dtype=np.float32)
            for seat in lv["discs"]:
                discs[rel(seat)] += 1.0
            parts += [one_hot(colours.get(lv["colour"]) if lv["colour"] else None,
                              len(COLOURS)),
                      multi_hot(MAP_INDEX, [c["card"] for c in lv["cards"]], m),
                      np.array([top, lv["count"], lv["chests"]], dtype=np.float32), discs]
        step, first_passed, prep_done, pending, pick, _chooser = obs.internal
        event = v["event"]
        offer = v["offer"] or {}
        parts += [np.array([v["islets"][i] == "open" for i in ISLETS], dtype=np.float32),
                  one_hot(COASTS.index(v["ship"]), len(COASTS)),
                  one_hot(rel(v["start_seat"]), n),
                  np.array([v["round"]], dtype=np.float32),
                  one_hot(_PHASES.index(v["phase"]) if v["phase"] in _PHASES else None,
                          len(_PHASES)),
                  one_hot(_STEPS.index(step) if step in _STEPS else None, len(_STEPS)),
                  np.array([float(bool(first_passed)), prep_done, len(pending), pick],
                           dtype=np.float32),
                  one_hot(rel(v["current_seat"]), n),
                  np.array([v["min_cards"] or 0], dtype=np.float32),
                  one_hot(EVENT_INDEX[event] if event else len(EVENT_IDS),
                          len(EVENT_IDS) + 1),
                  multi_hot(EVENT_INDEX, v["events_seen"], len(EVENT_IDS)),
                  np.array([v["event_deck_count"], v["map_deck_count"],
                            v["map_reshuffles"]], dtype=np.float32),
                  np.array([v["loot_deck_counts"][d] for d in LOOT_DECKS], dtype=np.float32),
                  multi_hot(LOOT_INDEX, v["loot_discard"], k),
                  multi_hot(LOOT_INDEX, offer.get("cards", ()), k),
                  one_hot(LANDING_INDEX[offer["landing"]] if offer.get("landing") else None,
                          len(LANDINGS)),
                  np.array([offer.get("size") == "big"], dtype=np.float32),
                  multi_hot(HEALER_INDEX, [h["healer"] for h in v["healers"] or ()],
                            len(HEALER_IDS)),
                  multi_hot(HEALER_INDEX, obs.healer_pool, len(HEALER_IDS))]
        for j in range(n):
            pv = v["players"][(me + j) % n]
            parts += [np.array([pv["hand_count"], pv["cubes"]], dtype=np.float32),
                      multi_hot(LOOT_INDEX, pv["loot"], k),
                      np.array([pv["discs_free"], float(bool(pv["passed"]))],
                               dtype=np.float32),
                      one_hot(HEALER_INDEX[pv["healer"]] if pv["healer"] else None,
                              len(HEALER_IDS)),
                      np.array([float(pv["eliminated"] is not None)], dtype=np.float32)]
        chosen = np.zeros(NUM_TOKENS, dtype=np.float32)
        for t in prefix:
            chosen[t] += 1.0
        parts += [chosen, one_hot(prefix[-1] if prefix else None, NUM_TOKENS)]
        return np.concatenate(parts)

    def deals(self, chosen: Mapping[str, list[str]]) -> Deal | None:
        # The eight setup lists of CONTRACT §2 in its order, each a full permutation.
        for name, canonical in CANONICAL.items():
            if name not in chosen:
                return (name, canonical, len(canonical))
        return None

    def setup(self, chosen: Mapping[str, list[str]]) -> list[Message]:
        # No seed: every list is given, and each reshuffle is dealt by chance when a draw
        # needs it (``reshuffle_pool``).
        return self.game.start(self.names, None, None,
                               {k: chosen[k] for k in CANONICAL})

    def reshuffle_pool(self, state: Any, action: Message) -> tuple[str, ...] | None:
        if state.seed is not None:
            return None
        probe = state.copy()
        try:
            self.game.play(probe, action)
        except IllegalAction as e:
            if e.code != "reshuffle_unknown":
                raise
            # ``play`` stopped at the draw that needs the reshuffle: the discard pile
            # now is exactly the cards it reshuffles.
            return tuple(sorted(probe.map_discard, key=MAP_INDEX.__getitem__))
        return None

    def add_reshuffle(self, state: Any, order: list[str]) -> None:
        # A new list: ``State.copy`` shares ``reshuffle_orders`` between copies.
        state.reshuffle_orders = [*(state.reshuffle_orders or []), order]
