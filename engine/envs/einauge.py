"""Einauge's encodings for the adapters (docs/games.md, "Machine learning").

**Actions**: one token each, 378 in all, in this order: ``sell_jewel`` (1); ``sell_card``
of each island card (56); ``buy`` of each island card (56, into its color row: the
engine lists island cards without ``row``), then of each ship into each color row and
``alone`` (8 × 9 = 72); ``fight`` the same way (56 + 72); ``pass`` (1); ``place`` of each
card, island cards then ships (64). Cards are in the order of ``cards.CARDS``.

**Observation** (float32; everything in Einauge is public but the deck order): the
display (64 card flags), the pirate table (64), the colors in play (8), the island cards
still face down (56 flags: the multiset, never their order) and the ships still in the
deck (8); per seat, the observer first: the cards in its rows (64 flags), each ship's
place (8 ships × (8 color rows + lone): 72), sabres, ducats, jewels and turns played; the
phase (turns, final round, ended: 3), the step (buy, fight, place: 3), the seat to move
(relative), whether the end is triggered, the turns and final-round turns left, the
options (``end_rule`` one_more_turn, ``color_bonus``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.einauge import EINAUGE
from engine.einauge.actions import Buy, Fight, Pass, Place, SellCard, SellJewel
from engine.einauge.cards import CARDS, COLORS, COLORS_IN_PLAY, ISLAND_CARDS, SHIPS
from engine.envs.base import Deal, Encoding, multi_hot, one_hot
from engine.game import Message

ALL = tuple(CARDS)
INDEX = {c: i for i, c in enumerate(ALL)}
ISLAND_INDEX = {c: i for i, c in enumerate(ISLAND_CARDS)}
SHIP_ROWS = (*COLORS, "alone")
_PHASES = ("turns", "final_round", "ended")
_STEPS = ("buy", "fight", "place")


def _action_keys() -> list[tuple[Any, ...]]:
    keys: list[tuple[Any, ...]] = [("sell_jewel",)]
    keys += [("sell_card", c) for c in ISLAND_CARDS]
    for kind in ("buy", "fight"):
        keys += [(kind, c, None) for c in ISLAND_CARDS]
        keys += [(kind, s, r) for s in SHIPS for r in SHIP_ROWS]
    keys.append(("pass",))
    keys += [("place", c) for c in (*ISLAND_CARDS, *SHIPS)]
    return keys


KEYS: tuple[tuple[Any, ...], ...] = tuple(_action_keys())
"""Every Einauge action without its seat, by token."""
TOKEN: dict[tuple[Any, ...], int] = {k: i for i, k in enumerate(KEYS)}


def action_key(action: Message) -> tuple[Any, ...]:
    """The seatless key of an Einauge action (``KEYS``)."""
    if isinstance(action, SellJewel):
        return ("sell_jewel",)
    if isinstance(action, SellCard | Place):
        return (action.type, action.card)
    if isinstance(action, Buy | Fight):
        return (action.type, action.card, action.row)
    if isinstance(action, Pass):
        return ("pass",)
    raise KeyError(f"not an Einauge action: {action!r}")


class EinaugeEncoding(Encoding):
    """Einauge at one player count (module docstring)."""

    game = EINAUGE
    chance_items = (*COLORS, *ISLAND_CARDS)
    num_tokens = len(KEYS)
    max_chance_nodes = len(COLORS) + len(ISLAND_CARDS)

    def tokens(self, action: Message) -> tuple[int, ...]:
        return (TOKEN[action_key(action)],)

    def token_name(self, token: int) -> str:
        return ":".join(str(x) for x in KEYS[token] if x is not None)

    def encode_shape(self) -> int:
        per_seat = len(ALL) + len(SHIPS) * len(SHIP_ROWS) + 4
        return (2 * len(ALL) + len(COLORS) + len(ISLAND_CARDS) + len(SHIPS)
                + self.players * per_seat + len(_PHASES) + len(_STEPS) + self.players + 5)

    def encode(self, obs: Any, prefix: Sequence[int]) -> np.ndarray:
        n = self.players
        me = obs.seat
        colors = {c: i for i, c in enumerate(COLORS)}
        ships = {s: i for i, s in enumerate(SHIPS)}
        parts = [multi_hot(INDEX, obs.display, len(ALL)),
                 multi_hot(INDEX, obs.pirate_table, len(ALL)),
                 multi_hot(colors, obs.colors, len(COLORS)),
                 multi_hot(ISLAND_INDEX, obs.unseen, len(ISLAND_CARDS)),
                 multi_hot(ships, obs.ships_in_deck, len(SHIPS))]
        for k in range(n):
            po = obs.players[(me + k) % n]
            place = np.zeros((len(SHIPS), len(SHIP_ROWS)), dtype=np.float32)
            in_rows = []
            for color, cards in po.rows:
                in_rows += cards
                for c in cards:
                    if c in ships:
                        place[ships[c], colors[color]] = 1.0
            for s in po.lone_ships:
                place[ships[s], len(COLORS)] = 1.0
            parts += [multi_hot(INDEX, in_rows, len(ALL)), place.ravel(),
                      np.array([po.sabres, po.ducats, po.jewels, po.turns], dtype=np.float32)]
        opts = obs.options
        parts += [one_hot(_PHASES.index(obs.phase) if obs.phase in _PHASES else None,
                          len(_PHASES)),
                  one_hot(_STEPS.index(obs.step) if obs.step in _STEPS else None, len(_STEPS)),
                  one_hot(None if obs.current_seat is None else (obs.current_seat - me) % n,
                          n),
                  np.array([float(obs.end_triggered), obs.turns_left, obs.final_left,
                            float(opts.get("end_rule") == "one_more_turn"),
                            float(bool(opts.get("color_bonus")))], dtype=np.float32)]
        return np.concatenate(parts)

    def deals(self, chosen: Mapping[str, list[str]]) -> Deal | None:
        # First the colors left out (RULES "Setup" 2; drawn one at a time, so every set
        # of them is equally likely), then the deck of the colors in play.
        if "removed_colors" not in chosen:
            out = len(COLORS) - COLORS_IN_PLAY[self.players]
            if out:
                return ("removed_colors", COLORS, out)
        if "deck" in chosen:
            return None
        removed = set(chosen.get("removed_colors", ()))
        pool = tuple(c for c in ISLAND_CARDS if CARDS[c].color not in removed)
        return ("deck", pool, len(pool))

    def setup(self, chosen: Mapping[str, list[str]]) -> list[Message]:
        return self.game.start(self.names, None, "chance", chosen["deck"])
