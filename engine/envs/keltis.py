"""Keltis's encodings for the adapters (docs/games.md, "Machine learning").

**Actions**: one token each, 1,385 in all, in this order: ``lay`` of each of the 101
deck cards (``cards.CANONICAL``) on each of the 6 rows (5 colors, then the point row:
606, most never legal); ``discard`` of each card (101); ``stone`` of each *ordered* pair
of distinct cards of equal value 1-9 (670: the order is the engine's, it decides which
card ends on top of a shared discard pile); ``draw`` from the deck and each of the 6
piles (7); ``finish`` (1).

**Observation** (float32): the seat's hand (101); per seat, the observer first: its
rows (6 × 101 card flags), for each color row its direction (none, rising, falling) and
whether it is closed (5 × 4), the known cards of its hand (101), its hand count, its
stones (9); the discard piles' cards (101) and top cards (101); the stones in the middle
(9); the deck and removed counts; the step (play, draw, final: 3); the seat to move
(relative, one per seat); the draws left; the blocked piles (6); whether the end is
triggered; the final lays made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from engine.envs.base import Deal, Encoding, multi_hot, one_hot
from engine.game import Message
from engine.keltis import KELTIS
from engine.keltis.actions import Discard, Draw, Finish, Lay, Stone
from engine.keltis.cards import (
    CANONICAL,
    COLORS,
    END,
    INFO,
    PILES,
    RANK,
    ROWS,
    SOURCES,
    STONE_VALUES,
    VALUE,
)

N = len(CANONICAL)
_STEPS = ("play", "draw", "final")

def _action_keys() -> list[tuple[Any, ...]]:
    keys: list[tuple[Any, ...]] = [("lay", c, r) for c in CANONICAL for r in ROWS]
    keys += [("discard", c) for c in CANONICAL]
    keys += [("stone", a, b) for a in CANONICAL for b in CANONICAL
             if a != b and VALUE[a] is not None and VALUE[a] == VALUE[b]
             and VALUE[a] in STONE_VALUES]
    keys += [("draw", s) for s in SOURCES]
    keys.append(("finish",))
    return keys

KEYS: tuple[tuple[Any, ...], ...] = tuple(_action_keys())
"""Every Keltis action without its seat, by token."""
TOKEN: dict[tuple[Any, ...], int] = {k: i for i, k in enumerate(KEYS)}

def action_key(action: Message) -> tuple[Any, ...]:
    """The seatless key of a Keltis action (``KEYS``)."""
    if isinstance(action, Lay):
        return ("lay", action.card, action.row)
    if isinstance(action, Discard):
        return ("discard", action.card)
    if isinstance(action, Stone):
        return ("stone", *action.cards)
    if isinstance(action, Draw):
        return ("draw", action.source)
    if isinstance(action, Finish):
        return ("finish",)
    raise KeyError(f"not a Keltis action: {action!r}")

def _direction(cards: Sequence[str]) -> tuple[int, bool]:
    """(0 none, 1 rising, 2 falling) and closed, of a color row laid in this order."""
    last: int | None = None
    direction = 0
    closed = False
    for c in cards:
        kind, _, value = INFO[c]
        if kind == END:
            closed = True
            continue
        if direction == 0 and last is not None and value is not None and value != last:
            direction = 1 if value > last else 2
        last = value
    return direction, closed

class KeltisEncoding(Encoding):
    """Keltis at one player count (module docstring)."""

    game = KELTIS
    chance_items = CANONICAL
    num_tokens = len(KEYS)
    max_chance_nodes = N

    def tokens(self, action: Message) -> tuple[int, ...]:
        return (TOKEN[action_key(action)],)

    def token_name(self, token: int) -> str:
        return ":".join(str(x) for x in KEYS[token])

    def encode_shape(self) -> int:
        per_seat = 6 * N + 5 * 4 + N + 1 + len(STONE_VALUES)
        return (N + self.players * per_seat + 2 * N + len(STONE_VALUES) + 2 + len(_STEPS)
                + self.players + 1 + len(PILES) + 1 + 1)

    def encode(self, obs: Any, prefix: Sequence[int]) -> np.ndarray:
        n = self.players
        me = obs.seat
        parts = [multi_hot(RANK, obs.hand, N)]
        for k in range(n):
            po = obs.players[(me + k) % n]
            rows = dict(po.rows)
            grid = np.zeros((6, N), dtype=np.float32)
            dirs = np.zeros((5, 4), dtype=np.float32)
            for ci, color in enumerate(COLORS):
                cards = rows.get(color, ())
                for c in cards:
                    grid[ci, RANK[c]] = 1.0
                d, closed = _direction(cards)
                dirs[ci, d] = 1.0
                dirs[ci, 3] = float(closed)
            for c in po.point_row:
                grid[5, RANK[c]] = 1.0
            parts += [grid.ravel(), dirs.ravel(), multi_hot(RANK, po.known, N),
                      np.array([po.hand_count], dtype=np.float32),
                      multi_hot({v: i for i, v in enumerate(STONE_VALUES)}, po.stones,
                                len(STONE_VALUES))]
        piles = dict(obs.discards)
        parts += [multi_hot(RANK, [c for p in PILES for c in piles.get(p, ())], N),
                  multi_hot(RANK, [piles[p][-1] for p in PILES if piles.get(p)], N),
                  multi_hot({v: i for i, v in enumerate(STONE_VALUES)}, obs.stones,
                            len(STONE_VALUES)),
                  np.array([obs.deck_count, obs.removed_count], dtype=np.float32),
                  one_hot(_STEPS.index(obs.step) if obs.step in _STEPS else None,
                          len(_STEPS)),
                  one_hot(None if obs.current_seat is None else (obs.current_seat - me) % n,
                          n),
                  np.array([obs.draws_left], dtype=np.float32),
                  multi_hot({p: i for i, p in enumerate(PILES)}, obs.blocked, len(PILES)),
                  np.array([float(obs.end_triggered), obs.final_lays], dtype=np.float32)]
        return np.concatenate(parts)

    def deals(self, chosen: Mapping[str, list[str]]) -> Deal | None:
        return None if "deck" in chosen else ("deck", CANONICAL, N)

    def setup(self, chosen: Mapping[str, list[str]]) -> list[Message]:
        return self.game.start(self.names, None, "chance", chosen["deck"])

