"""``legal_actions``: every decision ``decide`` accepts now, each choice listed once.

Where the contract lets one choice be written in several orders (the cards of a
``discard`` or an islet's payment, equal values within a ``play``), the list holds it once,
cards in canonical map order (plays: by value, then canonical order); ``decide`` also
accepts the other orders. Everything else is listed exactly: every landing, card set and
joker value, every islet parameter, ``skip``, every pick and healer.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product
from typing import Any

from engine.game import Message
from engine.loot_island import actions as ac
from engine.loot_island.checks import can_act, modifier
from engine.loot_island.data import (
    ACTION,
    COLOUR,
    COLOURS,
    HEALER_IDS,
    ISLET_COST,
    ISLETS,
    LANDINGS,
    MAP_INDEX,
    VALUE,
)
from engine.loot_island.state import State


def _canon(cards: list[str]) -> list[str]:
    return sorted(cards, key=MAP_INDEX.__getitem__)


def _subsets(items: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for c in items:  # items in canonical order, so every subset is too
        out += [[*sub, c] for sub in out]
    return out


def _sequences(mine: list[str], lo: int, empty: bool,
               no_jokers: bool) -> list[tuple[list[str], dict[str, int] | None]]:
    """Every ``(cards, joker values)`` of one colour's cards ``mine`` (canonical order)
    that may be laid on a top value ``lo`` (1 at an empty landing), unders excluded."""
    ones = [c for c in mine if VALUE[c] == 1] if empty else []
    printed = [c for c in mine if VALUE[c] >= max(lo, 2)]
    jokers = [] if no_jokers else [c for c in mine if VALUE[c] == 0]
    joker_sets: list[dict[str, int]] = []
    for n in range(1, len(jokers) + 1):
        for js in combinations(jokers, n):
            for vals in product(range(lo, 11), repeat=n):
                joker_sets.append(dict(zip(js, vals, strict=True)))
    out: list[tuple[list[str], dict[str, int] | None]] = []
    # Within a colour canonical order is value order, so a subset of printed cards is
    # already in laying order; only jokers are merged in.
    subsets = _subsets(printed)
    for first in [[], *([one] for one in ones)]:
        for sub in subsets:
            if first or sub:
                out.append(([*first, *sub], None))
            for jv in joker_sets:
                rest = sorted([*sub, *jv], key=lambda c: (jv.get(c) or VALUE[c], MAP_INDEX[c]))
                out.append(([*first, *rest], jv))
    return out


def open_rows(s: State, seat: int) -> Iterator[tuple[str, Any, bool, tuple[str, ...], int]]:
    """The landings ``seat`` may play cards at now (RULES "Playing cards": one of its discs
    is there, or it has a disc left), each as ``(name, landing, empty, colours, lo)``: an
    empty landing takes any colour but the one its coast's other landing holds and a first
    card from 1; a started one only its colour, from its top value ``lo``. The one place
    this rule is written: the legal list, the compact prompt and the search read it."""
    free = s.discs_free(seat) > 0
    for li, name in enumerate(LANDINGS):
        x = s.landings[li]
        if seat not in x.discs and not free:
            continue
        if not x.cards:
            other = s.landings[li ^ 1].cards
            taken = COLOUR[other[0]] if other else None
            yield name, x, True, tuple(k for k in COLOURS if k != taken), 1
        else:
            yield name, x, False, (COLOUR[x.cards[0]],), x.values[-1]


def _plays(s: State, seat: int) -> list[Message]:
    hand = _canon(s.players[seat].hand)
    by_colour = {k: [c for c in hand if COLOUR[c] == k] for k in COLOURS}
    no_jokers = modifier(s, "no_jokers", False)
    memo: dict[tuple[str, int, bool], list[tuple[list[str], dict[str, int] | None]]] = {}
    out: list[Message] = []
    play = ac.Play
    for name, x, empty, colours, lo in open_rows(s, seat):
        for k in colours:
            mine = by_colour[k]
            if not mine:
                continue
            if not empty:
                row = {ACTION[c] for c in x.cards}
                for one in mine:
                    if VALUE[one] == 1:
                        out.append(play(seat, name, [one]))
                        out.extend(play(seat, name, [one], None, cp)
                                   for cp in ("shed", "draw") if cp in row)
            key = (k, lo, empty)
            seqs = memo.get(key)
            if seqs is None:
                seqs = memo[key] = _sequences(mine, lo, empty, no_jokers)
            out.extend(play(seat, name, list(cards), None if jv is None else dict(jv))
                       for cards, jv in seqs)
    return out


def _islets(s: State, seat: int) -> list[Message]:
    if modifier(s, "no_islets", False) or not any(s.islets_open):
        return []
    hand = _canon(s.players[seat].hand)
    any_cards = modifier(s, "islet_any_cards", False)
    pairs = [list(p) for p in combinations(hand, ISLET_COST)
             if any_cards or len({COLOUR[c] for c in p}) == 1]
    if not pairs:
        return []
    mine = [li for li in range(8) if seat in s.landings[li].discs]
    others = [li for li in range(8) if li not in mine]
    free = s.discs_free(seat) > 0
    options: list[tuple[str, dict[str, str | bool]]] = []
    for i, islet in enumerate(ISLETS):
        if not s.islets_open[i]:
            continue
        options.append((islet, {"skip": True}))
        if islet == "islet-shortcut":
            options += [(islet, {"landing": LANDINGS[li]}) for li in mine]
        elif islet == "islet-camp":
            options += [(islet, {"landing": LANDINGS[li]}) for li in others if free]
        elif islet == "islet-portage":
            options += [(islet, {"from_": LANDINGS[a], "to": LANDINGS[b]})
                        for a in mine for b in others]
        else:
            options.append((islet, {}))
    return [ac.Islet(seat, islet, cards, **params)  # type: ignore[arg-type]
            for cards in pairs for islet, params in options]


def legal_actions(s: State, seat: int) -> list[Message]:
    """The decisions ``seat`` may take now (``[]`` when it is not that seat's decision)."""
    if s.current_seat != seat or s.phase == "ended":
        return []
    if s.phase == "preparation":
        return [ac.Discard(seat, cards) for cards in _subsets(_canon(s.players[seat].hand))]
    if s.phase == "actions" and s.step == "act":
        if not can_act(s, seat):
            return [ac.Pass(seat)]
        return [*_plays(s, seat), *_islets(s, seat), ac.Pass(seat)]
    if s.offer is not None:
        return ([ac.TakeLoot(seat, c) for c in s.offer]
                + [ac.DiscardLoot(seat, c) for c in s.offer])
    if s.phase == "healers":
        left = set(s.healers_left())
        return [ac.ChooseHealer(seat, h) for h in HEALER_IDS if h in left]
    return []
