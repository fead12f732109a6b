"""What each viewer sees: CONTRACT §3's view and events as a viewer gets them.

Hidden (RULES "What is hidden"): other players' hands, the order of the map deck, the loot
deck and the face-down events, which healers were set aside (until the healer step), the
unused healers and events, and the seed. A seat sees its own hand; once the game has ended
every hand is shown. Counts that follow from public draws are public.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.game import Message, Viewer
from engine.loot_island import events as ev
from engine.loot_island.data import (
    COASTS,
    HAND_SIZE,
    HEALER_IDS,
    HEALERS,
    ISLETS,
    LANDINGS,
    LOOT,
    LOOT_DECKS,
    MAP_INDEX,
)
from engine.loot_island.rules import minimum
from engine.loot_island.state import State

_PHASE_STEP = {"preparation": "discard", "actions": "act", "loot": "pick",
               "final_exploration": "pick", "healers": "choose", "ended": None,
               "setup": None}


def _canon(cards: list[str]) -> list[str]:
    return sorted(cards, key=MAP_INDEX.__getitem__)


def view(s: State, viewer: Viewer) -> dict[str, Any]:
    """CONTRACT §3's view for ``viewer`` (a seat, or ``None`` for a spectator), in its
    field order; nothing in it that the viewer may not know."""
    ended = s.phase == "ended"
    counts = dict.fromkeys(LOOT_DECKS, 0)
    for c in s.loot_deck:
        counts[LOOT[c].deck] += 1
    landings = {}
    for name, x in zip(LANDINGS, s.landings, strict=True):
        landings[name] = {"colour": x.colour,
                          "cards": [{"card": c, "value": v}
                                    for c, v in zip(x.cards, x.values, strict=True)],
                          "discs": list(x.discs), "count": x.count, "chests": x.chests}
    offer = None
    if s.offer is not None:
        offer = {"landing": s.offer_landing, "size": s.offer_size, "cards": list(s.offer),
                 "order": list(s.offer_order)}
    healers = None
    if s.chooser_order is not None:
        healers = [{"healer": h, "multiplier": HEALERS[h].multiplier,
                    "fixed": HEALERS[h].fixed, "seat": s.healer_owner(h)}
                   for h in HEALER_IDS if h in s.aside]
    in_final = s.phase in ("final_exploration", "healers", "ended")
    return {
        "game": "loot-island",
        "seq": s.seq,
        "round": s.round,
        "phase": s.phase,
        "step": _PHASE_STEP.get(s.phase, s.step),
        "current_seat": None if ended else s.current_seat,
        "ship": COASTS[s.ship],
        "start_seat": s.start_seat,
        "min_cards": minimum(s, with_event=not in_final) if s.players else None,
        "event": s.event,
        "events_seen": list(s.events_seen),
        "event_deck_count": max(0, len(s.events) - len(s.events_seen)),
        "islets": {i: "open" if s.islets_open[k] else "used" for k, i in enumerate(ISLETS)},
        "landings": landings,
        "map_deck_count": len(s.map_deck),
        "map_discard": list(s.map_discard),
        "map_reshuffles": s.reshuffles,
        "loot_deck_count": len(s.loot_deck),
        "loot_deck_counts": counts,
        "loot_discard": list(s.loot_discard),
        "offer": offer,
        "healers": healers,
        "players": [
            {"seat": i, "name": p.name, "hand_count": len(p.hand),
             "hand": _canon(p.hand) if ended or viewer == i else None,
             "cubes": p.cubes, "loot": list(p.loot), "discs_free": s.discs_free(i),
             "passed": p.passed, "healer": p.healer, "eliminated": p.eliminated}
            for i, p in enumerate(s.players)
        ],
        "result": copy.deepcopy(s.result),
    }


def project(event: Message, viewer: Viewer) -> dict[str, Any] | None:
    """The wire form of ``event`` for ``viewer``: ``game_started`` without the seed and
    orders (the viewer's own hand, counts and the face-up A event instead),
    ``map_card_drawn`` without the card for anyone but the drawer, ``map_deck_reshuffled``
    with only the number of cards. Every other event is public as it is."""
    d = event.to_dict()
    t = type(event)
    if t is ev.GameStarted:
        o = d.pop("orders")
        d.pop("seed")
        d.pop("map_reshuffles", None)
        n = len(d["players"])
        d["hand"] = (_canon(o["map"][viewer * HAND_SIZE:(viewer + 1) * HAND_SIZE])
                     if isinstance(viewer, int) and 0 <= viewer < n else None)
        d["hand_counts"] = [HAND_SIZE] * n
        d["map_deck_count"] = len(o["map"]) - n * HAND_SIZE
        d["loot_deck_counts"] = {"I": len(o["loot_1"]), "II": len(o["loot_2"]),
                                 "III": len(o["loot_3"]), "IV": len(o["loot_4"])}
        events_on = d["options"]["events"]
        d["event"] = o["events_a"][0] if events_on else None
        d["event_deck_count"] = 4 if events_on else 0
    elif t is ev.MapCardDrawn:
        if viewer != d["seat"]:
            del d["card"]
    elif t is ev.MapDeckReshuffled:
        d["count"] = len(d.pop("cards"))
    return d
