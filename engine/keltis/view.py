"""Per-viewer views (CONTRACT-keltis.md §3) and event projections.

A viewer is a seat (``int``) or a spectator (``None``). Before the end, a viewer sees its
own hand only: other hands appear as counts, the deck as a count, the removed cards as a
count, and no view or projection ever holds the deck order or the seed. Once the game has
ended every hand is shown to everyone (CONTRACT §3). Everything else is public (RULES
"What is hidden and what is public").
"""

from __future__ import annotations

import copy
from typing import Any

from engine.game import Message, Viewer
from engine.keltis import events as ev
from engine.keltis.cards import COLORS, DECK, STONE_ID
from engine.keltis.state import Player, State

_DIRECTION = {0: None, 1: "rising", -1: "falling"}


def _rows(p: Player) -> dict[str, Any]:
    return {c: {"cards": list(p.rows[c]), "direction": _DIRECTION[p.dirs[c]],
                "closed": c not in p.last}
            for c in COLORS if c in p.rows}


def _phase(s: State) -> str:
    return "turns" if s.phase == "setup" else s.phase


def public_view(s: State, viewer: Viewer = None) -> dict[str, Any]:
    """Exactly the fields of CONTRACT §3, in its order, as ``viewer`` may see them
    (``hand`` is the viewer's own hand, canonical order; every hand once ended)."""
    ended = s.phase == "ended"
    return {
        "game": "keltis",
        "seq": s.seq,
        "phase": _phase(s),
        "step": s.step,
        "current_seat": s.current_seat,
        "draws_left": s.draws_left,
        "end_triggered": s.end_triggered,
        "deck_count": s.deck_count,
        "removed_count": len(s.removed),
        "stones": [STONE_ID[v] for v in s.stones],
        "discards": {pile: list(cards) for pile, cards in s.discards.items()},
        "players": [
            {"seat": i, "name": p.name, "hand_count": len(p.hand),
             "hand": list(p.hand) if ended or viewer == i else None,
             "rows": _rows(p), "point_row": list(p.point_row),
             "stones": [STONE_ID[v] for v in p.stones]}
            for i, p in enumerate(s.players)
        ],
        "result": copy.deepcopy(s.result),  # the event keeps its own
    }


def client_view(s: State, viewer: Viewer) -> dict[str, Any]:
    """The CONTRACT view of ``viewer`` plus what a thin client shows without a rule:
    ``options``, ``blocked`` (piles that cannot be drawn from in this turn: its own
    discards went there), ``final_lays_left`` (lays left in the current final turn, else
    0), ``trigger`` (``{"seat", "reason"}`` once the end is triggered, else ``None``),
    ``closed_rows`` (over all players; 5 trigger the end), ``final_turns_left`` (final
    turns still to come during the final turns, the current one included, else 0: the
    board shows "final turn 2 of 3" without knowing their order)."""
    v = public_view(s, viewer)
    v["options"] = dict(s.options)
    v["blocked"] = list(s.blocked)
    v["final_lays_left"] = 2 - s.final_lays if s.step == "final" else 0
    v["trigger"] = ({"seat": s.trigger_seat, "reason": s.trigger} if s.end_triggered
                    else None)
    v["closed_rows"] = s.closed_rows
    v["final_turns_left"] = s.final_left if s.phase == "final_turns" else 0
    return v


def project(event: Message, viewer: Viewer) -> dict[str, Any]:
    """The wire form of ``event`` as ``viewer`` may see it.

    ``game_started`` loses its deck (``deck_count`` instead); ``cards_removed`` shows only
    ``count``; ``hand_dealt`` shows its ``cards`` to that seat only (``count`` for
    everyone else); ``card_drawn`` from the deck shows its ``card`` to the drawer only.
    Every other event is public and shown whole.
    """
    t = type(event)
    if t is ev.CardDrawn:
        if event.source == DECK and viewer != event.seat:  # type: ignore[attr-defined]
            return {"type": event.type, "seat": event.seat, "source": DECK}  # type: ignore[attr-defined]
        return event.to_dict()
    if t is ev.HandDealt:
        if viewer != event.seat:  # type: ignore[attr-defined]
            return {"type": event.type, "seat": event.seat,  # type: ignore[attr-defined]
                    "count": len(event.cards)}  # type: ignore[attr-defined]
        d = event.to_dict()
        d["cards"] = list(d["cards"])
        return d
    if t is ev.GameStarted:
        return {"type": event.type, "players": list(event.players),  # type: ignore[attr-defined]
                "options": dict(event.options),  # type: ignore[attr-defined]
                "deck_count": len(event.deck)}  # type: ignore[attr-defined]
    if t is ev.CardsRemoved:
        return {"type": event.type, "count": len(event.cards)}  # type: ignore[attr-defined]
    if t is ev.GameEnded:
        return copy.deepcopy(event.to_dict())
    return event.to_dict()
