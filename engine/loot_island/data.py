"""The components of Loot Island, loaded once from ``data.toml`` (RULES "Components").

Ids follow RULES: map cards ``map-<colour>-<value><a|b>`` and ``map-<colour>-star-<a|b>``,
loot cards ``loot-01`` … ``loot-74``, ``islet-*``, ``event-a01`` … ``event-b12``,
``healer-01`` … ``healer-14``; landings ``north-1`` … ``west-2``. Every designed value comes
from the data file; this module turns it into flat tables the rules read with one lookup.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from typing import Any, NamedTuple

_DATA: dict[str, Any] = tomllib.loads(
    files(__package__).joinpath("data.toml").read_text(encoding="utf-8"))


class MapCard(NamedTuple):
    """A map card: ``value`` 1-10, or 0 for a joker (its value is named when played);
    ``action`` one of ``one, chest, draw, shed, plus1, none``."""

    id: str
    colour: str
    value: int
    action: str

    @property
    def joker(self) -> bool:
        """True for a joker (``map-<colour>-star-<a|b>``)."""
        return self.value == 0


class LootCard(NamedTuple):
    """A loot card: ``deck`` I-IV, ``kind`` one of bag, jewel, crown, skull, book, amulet;
    ``variant`` R/L/F for skulls; ``crosses`` for crowns, ``multiplier`` for books."""

    id: str
    deck: str
    kind: str
    gold: int
    curse: int
    variant: str | None
    crosses: int
    multiplier: int


class Healer(NamedTuple):
    """A healer: its cost is ``multiplier`` × cubes + ``fixed`` (RULES "Healers")."""

    id: str
    multiplier: int
    fixed: int


COASTS: tuple[str, ...] = ("north", "east", "south", "west")
"""Clockwise; ship space ``ship-X`` has its bow at coast X."""
LANDINGS: tuple[str, ...] = tuple(f"{c}-{i}" for c in COASTS for i in (1, 2))
"""Clockwise order of the 8 landings."""
LANDING_INDEX: dict[str, int] = {x: i for i, x in enumerate(LANDINGS)}

_SETUP = _DATA["setup"]
COLOURS: tuple[str, ...] = tuple(_SETUP["colours"])
MINIMUM: dict[int, int] = {int(k): v for k, v in _SETUP["minimum"].items()}
"""The minimum count at a landing, by player count (RULES "Setup")."""
HAND_SIZE: int = _SETUP["hand_size"]
START_CUBES: int = _SETUP["start_cubes"]
DISCS: int = _SETUP["discs"]

MAP: dict[str, MapCard] = {}
for _colour in COLOURS:
    for _v in range(1, 11):
        for _copy in ("a", "b"):
            _id = f"map-{_colour}-{_v}{_copy}"
            MAP[_id] = MapCard(_id, _colour, _v, _DATA["map_actions"][_copy][_v - 1])
    for _copy in ("a", "b"):
        _id = f"map-{_colour}-star-{_copy}"
        MAP[_id] = MapCard(_id, _colour, 0, "none")
MAP_IDS: tuple[str, ...] = tuple(MAP)
"""Canonical map order (CONTRACT §2.1): per colour 1a, 1b, …, 10b, star-a, star-b."""
MAP_INDEX: dict[str, int] = {c: i for i, c in enumerate(MAP_IDS)}
COLOUR: dict[str, str] = {c.id: c.colour for c in MAP.values()}
VALUE: dict[str, int] = {c.id: c.value for c in MAP.values()}
ACTION: dict[str, str] = {c.id: c.action for c in MAP.values()}

LOOT: dict[str, LootCard] = {
    k: LootCard(k, v["deck"], v["type"], v["gold"], v["curse"], v.get("variant"),
                v.get("crosses", 0), v.get("multiplier", 0))
    for k, v in sorted(_DATA["loot"].items())}
LOOT_DECKS: tuple[str, ...] = ("I", "II", "III", "IV")
LOOT_LISTS: dict[str, tuple[str, ...]] = {
    d: tuple(k for k, c in LOOT.items() if c.deck == d) for d in LOOT_DECKS}
"""Canonical lists ``loot_1`` … ``loot_4`` (CONTRACT §2.2), keyed by deck."""
LOOT_INDEX: dict[str, int] = {c: i for i, c in enumerate(LOOT)}

HEALERS: dict[str, Healer] = {k: Healer(k, v["multiplier"], v["fixed"])
                              for k, v in sorted(_DATA["healers"].items())}
HEALER_IDS: tuple[str, ...] = tuple(HEALERS)

EVENTS: dict[str, dict[str, Any]] = dict(sorted(_DATA["events"].items()))
"""Each event's modifiers while in force (keys of the data file's ``[events]``)."""
EVENTS_A: tuple[str, ...] = tuple(e for e in EVENTS if e.startswith("event-a"))
EVENTS_B: tuple[str, ...] = tuple(e for e in EVENTS if e.startswith("event-b"))
_EVENT_KEYS = {"minimum", "big", "refill", "no_islets", "no_jokers", "islet_any_cards",
               "keep_cubes", "discard_shed", "start_draw", "start_shed", "start_take"}

ISLETS: tuple[str, ...] = ("islet-spring", "islet-lookout", "islet-winds", "islet-wreck",
                           "islet-shortcut", "islet-camp", "islet-portage")
"""Canonical islet order (CONTRACT §2.5); the kinds of effect are code (rules.py)."""
SPRING_SHED: int = _DATA["islets"]["spring_shed"]
LOOKOUT_DRAW: int = _DATA["islets"]["lookout_draw"]
ISLET_COST: int = _DATA["islets"]["cost"]

DISCARD_SHED: int = _DATA["loot_rules"]["discard_shed"]
ELIMINATION_CUBES: int = _DATA["loot_rules"]["elimination_cubes"]

_SCORING = _DATA["scoring"]
CROWN_POINTS: tuple[int, ...] = tuple(_SCORING["crowns"])
SKULL_POINTS: tuple[int, ...] = tuple(_SCORING["skulls"])
JEWELS_PAIR: int = _SCORING["jewels_pair"]
JEWELS_TRIPLE: int = _SCORING["jewels_triple"]
AMULET_SET: int = _SCORING["amulet_set"]
START_MARKER: int = _SCORING["start_marker"]


def _check() -> None:
    if len(MAP) != 88 or len(LOOT) != 74 or len(HEALERS) != 14:
        raise ValueError("data.toml: 88 map cards, 74 loot cards and 14 healers expected")
    if [len(LOOT_LISTS[d]) for d in LOOT_DECKS] != [21, 16, 16, 21]:
        raise ValueError("data.toml: loot decks I-IV hold 21, 16, 16, 21 cards")
    if len(EVENTS_A) != 6 or len(EVENTS_B) != 12:
        raise ValueError("data.toml: 6 A events and 12 B events expected")
    for e, mods in EVENTS.items():
        unknown = sorted(set(mods) - _EVENT_KEYS)
        if unknown:
            raise ValueError(f"data.toml: {e}: unknown modifier(s) {unknown}")


_check()
