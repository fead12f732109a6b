"""Setup and reshuffles: options, the eight setup shuffles and the map reshuffles
(RULES "Setup" and "Map deck", CONTRACT §1-2).

Every list is read top first. One stream (``seed``) shuffles the canonical lists in the
order ``map, loot_1, loot_2, loot_3, loot_4, healers, events_a, events_b``, always all
eight; a list given in ``orders`` replaces its result while the draws are still made. The
r-th reshuffle uses the stream of ``seed + "/reshuffle/" + r``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.loot_island import events as ev
from engine.loot_island.data import (
    EVENTS_A,
    EVENTS_B,
    HEALER_IDS,
    LOOT_LISTS,
    MAP,
    MAP_IDS,
    MAP_INDEX,
)
from engine.shuffle import RandomStream

MAX_NAME = 64

CANONICAL: dict[str, tuple[str, ...]] = {
    "map": MAP_IDS,
    "loot_1": LOOT_LISTS["I"], "loot_2": LOOT_LISTS["II"],
    "loot_3": LOOT_LISTS["III"], "loot_4": LOOT_LISTS["IV"],
    "healers": HEALER_IDS, "events_a": EVENTS_A, "events_b": EVENTS_B,
}
"""The eight setup lists in canonical order (CONTRACT §2), in shuffle order."""
ORDER_KEYS = (*CANONICAL, "map_reshuffles")
LOOT_KEYS = ("loot_1", "loot_2", "loot_3", "loot_4")
"""The setup lists of the loot decks I-IV, in ``LOOT_DECKS`` order."""


def check_players(players: Any) -> list[str]:
    """2-5 non-empty names of at most 64 characters; raises ``ValueError`` otherwise."""
    if not isinstance(players, Sequence) or isinstance(players, str):
        raise ValueError("players must be a list of names")
    names = list(players)
    if not 2 <= len(names) <= 5:
        raise ValueError(f"Loot Island needs 2 to 5 players, not {len(names)}")
    for name in names:
        if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
            raise ValueError(f"players: a name must be 1 to {MAX_NAME} characters: {name!r}")
    return names


def check_options(options: Any) -> dict[str, Any]:
    """``{"events": bool, "min_cards": None | 1-12}`` with defaults filled in (CONTRACT §1);
    raises ``ValueError`` naming the bad option (unknown keys included)."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ValueError("options must be an object")
    unknown = set(options) - {"events", "min_cards"}
    if unknown:
        raise ValueError(f"options: unknown option(s) {sorted(map(str, unknown))}")
    events = options.get("events", True)
    if not isinstance(events, bool):
        raise ValueError("options: events must be true or false")
    min_cards = options.get("min_cards")
    if min_cards is not None and (type(min_cards) is not int or not 1 <= min_cards <= 12):
        raise ValueError("options: min_cards must be null or an integer 1 to 12")
    return {"events": events, "min_cards": min_cards}


def check_orders(orders: Any) -> dict[str, Any]:
    """The ``orders`` object: each setup list a permutation of its canonical list, and
    ``map_reshuffles`` a list of lists of distinct map-card ids. Raises ``ValueError``."""
    if orders is None:
        return {}
    if not isinstance(orders, Mapping):
        raise ValueError("orders must be an object")
    unknown = set(orders) - set(ORDER_KEYS)
    if unknown:
        raise ValueError(f"orders: unknown key(s) {sorted(map(str, unknown))}")
    out: dict[str, Any] = {}
    for key, canonical in CANONICAL.items():
        if key not in orders:
            continue
        given = orders[key]
        if (not isinstance(given, list) or len(given) != len(canonical)
                or not all(isinstance(c, str) for c in given)
                or set(given) != set(canonical)):
            raise ValueError(f"orders: {key} must be a permutation of its "
                             f"{len(canonical)} canonical ids")
        out[key] = list(given)
    if "map_reshuffles" in orders:
        res = orders["map_reshuffles"]
        if not isinstance(res, list):
            raise ValueError("orders: map_reshuffles must be a list")
        for r, entry in enumerate(res):
            if (not isinstance(entry, list) or not all(isinstance(c, str) and c in MAP
                                                       for c in entry)
                    or len(set(entry)) != len(entry)):
                raise ValueError(f"orders: map_reshuffles[{r}] must be a list of distinct "
                                 "map-card ids")
        out["map_reshuffles"] = [list(e) for e in res]
    return out


def shuffled_orders(seed: str | None, given: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """The eight setup lists, top first: each from ``given`` or from the shuffle of ``seed``
    (CONTRACT §2; the draws for a given list are still made). ``seed`` may be ``None``
    only when all eight are given; else ``ValueError``."""
    if seed is None:
        missing = [k for k in CANONICAL if k not in given]
        if missing:
            raise ValueError(f"seed: required unless orders gives all eight lists "
                             f"(missing {missing})")
        return {k: list(given[k]) for k in CANONICAL}
    stream = RandomStream(seed)
    out = {}
    for key, canonical in CANONICAL.items():
        shuffled = stream.shuffle(list(canonical))
        out[key] = list(given[key]) if key in given else shuffled
    return out


def reshuffled(seed: str, r: int, discard: Sequence[str]) -> list[str]:
    """The new map deck, top first, of the game's ``r``-th reshuffle (r ≥ 1): the discard
    pile in canonical map order, Fisher-Yates on the stream of ``seed/reshuffle/r``."""
    cards = sorted(discard, key=MAP_INDEX.__getitem__)
    return RandomStream(f"{seed}/reshuffle/{r}").shuffle(cards)


def game_started(players: Any, options: Any, seed: Any = None,
                 orders: Any = None) -> ev.GameStarted:
    """The ``game_started`` event; raises ``ValueError`` for bad players, options, seed or
    orders (the message names the field)."""
    names = check_players(players)
    opts = check_options(options)
    if seed is not None and not isinstance(seed, str):
        raise ValueError("seed must be a string")
    given = check_orders(orders)
    lists = shuffled_orders(seed, given)
    return ev.GameStarted(names, opts, seed, lists, given.get("map_reshuffles"))
