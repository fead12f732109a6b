"""What clients see: the public view of CONTRACT section 3 and events as clients get them.

Everything in Einauge is public except the deck order (RULES "What is public"), so every
viewer, seat or spectator, gets the same view; a seat's view only adds its legal actions.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.einauge import events as ev
from engine.einauge.cards import CARDS, CHESTS, COLORS, FIGHT_COST, SHIPS
from engine.einauge.evolve import DISPLAY_SIZE
from engine.einauge.state import State
from engine.game import Message, Viewer


def public_view(s: State) -> dict[str, Any]:
    """Exactly the fields of CONTRACT section 3, in its order; no secret in it."""
    return _view(s, False)


def _view(s: State, helpers: bool) -> dict[str, Any]:
    # One pass over the players for both views: the client's is built after every action
    # (docs/benchmarks.md, "CPU per action"), and its helpers reuse the rows just copied.
    players = []
    for i, p in enumerate(s.players):
        rows = p.rows
        shown = {c: rows[c][:] for c in COLORS if c in rows}
        entry = {"seat": i, "name": p.name, "sabres": p.sabres, "ducats": p.ducats,
                 "jewels": p.jewels, "rows": shown, "lone_ships": p.lone_ships[:]}
        if helpers:
            entry["chests"] = {c: sum([CHESTS[card] for card in cards])
                               for c, cards in shown.items()}
            entry["turns"] = p.turns
        players.append(entry)
    return {
        "game": "einauge",
        "seq": s.seq,
        "phase": s.phase,
        "step": s.step,
        "current_seat": s.current_seat,
        "end_triggered": s.end_triggered,
        "display": s.display[:],
        "pirate_table": s.pirate_table[:],
        "deck_count": s.deck_count,
        "players": players,
        # The event keeps its own.
        "result": None if s.result is None else copy.deepcopy(s.result),
    }


def client_view(s: State, viewer: Viewer) -> dict[str, Any]:
    """The public view plus what a thin client shows without knowing a rule.

    Added: ``options``, ``colors`` (in play), ``islands_in_deck`` (island cards before the
    ships), per player ``chests`` (treasure chests per row) and ``turns`` (normal turns
    begun), the fight cost of every card on the pirate table and display, and ``turn``:
    the number of turns begun in the whole game (normal and final-round turns; 0 before
    the start), so a replay can step by turn: event k belongs to the turn the view before
    it shows (``max(1, …)`` for the start).
    """
    v = _view(s, True)
    v["options"] = dict(s.options)
    v["colors"] = list(s.colors)
    v["islands_in_deck"] = len([c for c in s.deck[s.deck_pos:] if CARDS[c].color])
    v["fight_costs"] = {c: FIGHT_COST[c] for c in (*s.pirate_table, *s.display)}
    v["turn"] = turns_begun(s)
    return v


def turns_begun(s: State) -> int:
    """Turns begun so far: every normal turn (``Player.turns``) plus the final-round turns
    (one per player; the one in progress counts)."""
    final = 0
    if s.phase == "final_round":
        final = len(s.players) - s.final_left + (1 if s.final_left > 0 else 0)
    elif s.phase == "ended":
        final = len(s.players)
    return sum(p.turns for p in s.players) + final


def project(event: Message, viewer: Viewer) -> dict[str, Any]:
    """The wire form of ``event`` for any viewer: ``game_started`` loses its deck and shows
    the setup a client sees (display, pirate table, deck count, colors in play); every
    other event is its full wire form. The hash chain links exactly this (fairness.md §5)."""
    d = event.to_dict()
    if type(event) is ev.GameStarted:
        deck = d.pop("deck")
        d["display"] = deck[:DISPLAY_SIZE]
        d["pirate_table"] = deck[DISPLAY_SIZE:DISPLAY_SIZE + 1]
        d["deck_count"] = len(deck) + len(SHIPS) - DISPLAY_SIZE - 1
        colors = {CARDS[c].color for c in deck}
        d["colors"] = [c for c in COLORS if c in colors]
    return d
