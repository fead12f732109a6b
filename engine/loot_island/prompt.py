"""The compact form of a seat's legal actions (``Game.legal_form``, docs/games.md).

``legal.legal_actions`` lists every decision one by one: every discard subset of the
preparation (2^n of an n-card hand) and, in the action step, every card set x landing x
joker value: up to ~16,000 actions, about 3 MB of JSON in one prompt. The form describes the
same set by its factors, so the prompt stays a few kB (docs/protocol.md §2, docs/benchmarks.md):

- preparation: ``{"seat", "discard": {"cards": [...]}}``: any subset of ``cards``
  (the empty one too), laid in the order listed;
- action step: ``{"seat", "plays": [...], "islets": {...} | None, "pass": True}`` where each
  play entry is either a *run* ``{"landing", "first": [ones], "cards": [[card, value], ...],
  "jokers": [...], "values": [lo, hi]}`` (at most one of ``first`` as the first card, then
  any subset of ``cards`` and of ``jokers``, at least one card in all, each joker named a
  value lo..hi; laid in ascending value, ties: ``cards`` in list order, then ``jokers`` in
  list order) or an *under* ``{"landing", "under": card, "copy": [...]}`` (the lone card,
  without ``copy`` or with one of those listed); ``islets`` is ``{"pay": [[cards], ...],
  "uses": [{"islet", ...parameters}, ...]}``: any 2 distinct cards of one ``pay`` group (in
  list order) with any of the ``uses``.

Every other step returns ``None``: its list is short (picks, healers), so the prompt lists it.
``expand`` turns a form back into the list, in exactly the order of ``legal_actions``
(tests/engine/loot_island/test_prompt.py checks it on random games). The form only
describes: ``decide`` still validates whatever comes back.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations, product
from typing import Any

from engine.game import Message
from engine.loot_island import actions as ac
from engine.loot_island.checks import can_act, modifier
from engine.loot_island.data import (
    ACTION,
    COLOUR,
    COLOURS,
    ISLET_COST,
    ISLETS,
    LANDINGS,
    MAP_INDEX,
    VALUE,
)
from engine.loot_island.legal import open_rows
from engine.loot_island.state import State


def _canon(cards: list[str]) -> list[str]:
    return sorted(cards, key=MAP_INDEX.__getitem__)


def _plays(s: State, seat: int) -> list[dict[str, Any]]:
    hand = _canon(s.players[seat].hand)
    by_colour = {k: [c for c in hand if COLOUR[c] == k] for k in COLOURS}
    no_jokers = modifier(s, "no_jokers", False)
    out: list[dict[str, Any]] = []
    for name, x, empty, colours, lo in open_rows(s, seat):
        for k in colours:
            mine = by_colour[k]
            if not mine:
                continue
            if not empty:
                row = {ACTION[c] for c in x.cards}
                copies = [cp for cp in ("shed", "draw") if cp in row]
                out += [{"landing": name, "under": c, "copy": copies}
                        for c in mine if VALUE[c] == 1]
            first = [c for c in mine if VALUE[c] == 1] if empty else []
            cards = [[c, VALUE[c]] for c in mine if VALUE[c] >= max(lo, 2)]
            jokers = [] if no_jokers else [c for c in mine if VALUE[c] == 0]
            if first or cards or jokers:
                out.append({"landing": name, "first": first, "cards": cards, "jokers": jokers,
                            "values": [lo, 10]})
    return out


def _islets(s: State, seat: int) -> dict[str, Any] | None:
    if modifier(s, "no_islets", False) or not any(s.islets_open):
        return None
    hand = _canon(s.players[seat].hand)
    if modifier(s, "islet_any_cards", False):
        groups = [hand]
    else:
        groups = [[c for c in hand if COLOUR[c] == k] for k in COLOURS]
    pay = [g for g in groups if len(g) >= ISLET_COST]
    if not pay:
        return None
    mine = [li for li in range(8) if seat in s.landings[li].discs]
    others = [li for li in range(8) if li not in mine]
    free = s.discs_free(seat) > 0
    uses: list[dict[str, Any]] = []
    for i, islet in enumerate(ISLETS):
        if not s.islets_open[i]:
            continue
        uses.append({"islet": islet, "skip": True})
        if islet == "islet-shortcut":
            uses += [{"islet": islet, "landing": LANDINGS[li]} for li in mine]
        elif islet == "islet-camp":
            uses += [{"islet": islet, "landing": LANDINGS[li]} for li in others if free]
        elif islet == "islet-portage":
            uses += [{"islet": islet, "from": LANDINGS[a], "to": LANDINGS[b]}
                     for a in mine for b in others]
        else:
            uses.append({"islet": islet})
    return {"pay": pay, "uses": uses}


def legal_form(s: State, seat: int) -> dict[str, Any] | None:
    """The compact form of ``legal_actions(s, seat)`` (module docstring), or ``None`` where
    the prompt lists the actions (picks, healers, not this seat's decision)."""
    if s.current_seat != seat:
        return None
    if s.phase == "preparation":
        return {"seat": seat, "discard": {"cards": _canon(s.players[seat].hand)}}
    if s.phase == "actions" and s.step == "act":
        if not can_act(s, seat):
            return {"seat": seat, "plays": [], "islets": None, "pass": True}
        return {"seat": seat, "plays": _plays(s, seat), "islets": _islets(s, seat),
                "pass": True}
    return None


def _subsets(items: list[Any]) -> list[list[Any]]:
    out: list[list[Any]] = [[]]
    for c in items:
        out += [[*sub, c] for sub in out]
    return out


def _run(seat: int, e: Mapping[str, Any]) -> list[Message]:
    lo, hi = e["values"]
    order = {c: i for i, (c, _) in enumerate(e["cards"])}
    order.update({c: len(order) + i for i, c in enumerate(e["jokers"])})
    value = dict(map(tuple, e["cards"]))
    jokers = e["jokers"]
    named = [dict(zip(js, vals, strict=True))
             for n in range(1, len(jokers) + 1) for js in combinations(jokers, n)
             for vals in product(range(lo, hi + 1), repeat=n)]
    out: list[Message] = []
    for first in [[], *([one] for one in e["first"])]:
        for sub in _subsets([c for c, _ in e["cards"]]):
            if first or sub:
                out.append(ac.Play(seat, e["landing"], [*first, *sub]))
            for jv in named:
                rest = sorted([*sub, *jv], key=lambda c, jv=jv: (jv.get(c) or value[c], order[c]))
                out.append(ac.Play(seat, e["landing"], [*first, *rest], dict(jv)))
    return out


def expand(form: Mapping[str, Any]) -> list[Message]:
    """Every action ``form`` describes, in the order ``legal_actions`` lists them."""
    seat = form["seat"]
    if "discard" in form:
        return [ac.Discard(seat, cards) for cards in _subsets(list(form["discard"]["cards"]))]
    out: list[Message] = []
    for e in form["plays"]:
        if "under" in e:
            out.append(ac.Play(seat, e["landing"], [e["under"]]))
            out += [ac.Play(seat, e["landing"], [e["under"]], None, cp) for cp in e["copy"]]
        else:
            out += _run(seat, e)
    isl = form["islets"]
    if isl is not None:
        for group in isl["pay"]:
            for pair in combinations(group, ISLET_COST):
                out += [ac.ACTIONS.decode({"type": "islet", "seat": seat, "cards": list(pair), **u})
                        for u in isl["uses"]]
    if form["pass"]:
        out.append(ac.Pass(seat))
    return out
