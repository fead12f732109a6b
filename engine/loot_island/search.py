"""The moves Loot Island's search (``mcts``) considers: a small subset of the legal ones.

``legal_actions`` is exact, and so large that a search drowns in it: every subset of the
hand to discard (2^n), every subset of a colour's cards at every landing with every value
of every joker (up to about 2,600 actions in a 4-player game, 200 on average). The search
keeps, from the position as the seat sees it:

- *preparation*: discard nothing, one card, or all cards of one colour (a multi-card
  discard decomposed into its most useful forms: dropping a single card, or a colour);
- *actions*: the ``TOP`` best plays and islet uses by the greedy policy's one-step scores
  (``engine.loot_island.greedy``), built from a pruned list: a joker always named the lowest
  value it may take (the landing's top value, 1 at an empty landing), so laid before the
  printed cards (after those of equal value), since a lower top only keeps the row open;
  per landing and colour the single cards, the lowest *j* cards for every *j*, each with
  and without the jokers, and a printed 1 first or alone under the row; an islet paid
  with the cheapest pair of each colour, never with ``skip``; then ``pass``;
- *picks* and *healers*: all of them (at most 2 × the offer, at most 5), the greedy
  policy's choice first.

The moves come best first by the greedy policy (phase 2: by its scores; preparation: keep
the hand first), which the search uses as its prior (``IsMctsBot.ordered``).

Every move returned is one ``decide`` accepts (tests/engine/loot_island/test_search.py
checks each against ``legal_actions``). Pure, deterministic.
"""

from __future__ import annotations

from engine.game import Message
from engine.loot_island import actions as ac
from engine.loot_island import greedy
from engine.loot_island.checks import can_act, modifier
from engine.loot_island.data import (
    ACTION,
    COLOUR,
    COLOURS,
    ISLET_COST,
    ISLETS,
    LANDINGS,
    LOOT,
    LOOT_DECKS,
    MAP_INDEX,
    VALUE,
)
from engine.loot_island.legal import legal_actions, open_rows
from engine.loot_island.state import State

TOP = 8
"""Plays and islet uses kept per phase-2 decision (besides ``pass``)."""


def _canon(cards: list[str]) -> list[str]:
    return sorted(cards, key=MAP_INDEX.__getitem__)


def _discards(s: State, seat: int) -> list[Message]:
    hand = _canon(s.players[seat].hand)
    out: list[Message] = [ac.Discard(seat, []), *(ac.Discard(seat, [c]) for c in hand)]
    for k in COLOURS:
        mine = [c for c in hand if COLOUR[c] == k]
        if len(mine) >= 2:
            out.append(ac.Discard(seat, mine))
    return out


def _plays(s: State, seat: int) -> list[Message]:
    hand = _canon(s.players[seat].hand)
    no_jokers = modifier(s, "no_jokers", False)
    out: list[Message] = []
    seen: set[tuple[str, tuple[str, ...], str | None]] = set()

    def add(landing: str, cards: list[str], values: dict[str, int] | None,
            copy: str | None = None) -> None:
        key = (landing, tuple(cards), copy)
        if key not in seen:
            seen.add(key)
            out.append(ac.Play(seat, landing, cards, values or None, copy))

    for name, x, empty, colours, lo in open_rows(s, seat):
        for k in colours:
            mine = [c for c in hand if COLOUR[c] == k]
            if not mine:
                continue
            ones = [c for c in mine if VALUE[c] == 1]
            printed = [c for c in mine if VALUE[c] >= max(lo, 2)]
            jokers = [] if no_jokers else [c for c in mine if VALUE[c] == 0]
            if ones and not empty:
                actions = {ACTION[c] for c in x.cards}
                add(name, [ones[0]], None)
                for cp in ("shed", "draw"):
                    if cp in actions:
                        add(name, [ones[0]], None, cp)
            bases = [[c] for c in printed] + [printed[:j] for j in range(2, len(printed) + 1)]
            firsts = [[]] + ([[ones[0]]] if empty and ones else [])
            for first in firsts:
                if first:
                    add(name, first, None)
                for base in bases:
                    add(name, [*first, *base], None)
                if jokers:
                    values = {j: lo for j in jokers}
                    add(name, [*first, *jokers], values)
                    for base in bases:
                        # Laid in value order, ties in canonical order (legal_actions'
                        # spelling; the jokers' value lo is never above a printed card).
                        rest = sorted([*jokers, *base],
                                      key=lambda c: (values.get(c) or VALUE[c], MAP_INDEX[c]))
                        add(name, [*first, *rest], values)
    return out


def _islets(s: State, seat: int) -> list[Message]:
    if modifier(s, "no_islets", False) or not any(s.islets_open):
        return []
    hand = _canon(s.players[seat].hand)
    # The cheapest cards to give up first: no joker, no chest, low values.
    def cost(c: str) -> tuple[int, int, int]:
        return (VALUE[c] == 0, ACTION[c] == "chest", VALUE[c])

    if modifier(s, "islet_any_cards", False):
        groups = [hand]
    else:
        groups = [[c for c in hand if COLOUR[c] == k] for k in COLOURS]
    pairs = [sorted(sorted(g, key=cost)[:ISLET_COST], key=MAP_INDEX.__getitem__)
             for g in groups if len(g) >= ISLET_COST]
    if not pairs:
        return []
    mine = [li for li in range(8) if seat in s.landings[li].discs]
    others = [li for li in range(8) if li not in mine]
    free = s.discs_free(seat) > 0
    out: list[Message] = []
    for i, islet in enumerate(ISLETS):
        if not s.islets_open[i]:
            continue
        if islet == "islet-shortcut":
            params = [{"landing": LANDINGS[li]} for li in mine]
        elif islet == "islet-camp":
            params = [{"landing": LANDINGS[li]} for li in others] if free else []
        elif islet == "islet-portage":
            params = [{"from_": LANDINGS[a], "to": LANDINGS[b]} for a in mine for b in others]
        else:
            params = [{}]
        out += [ac.Islet(seat, islet, list(cards), **p)  # type: ignore[arg-type]
                for cards in pairs for p in params]
    return out


class _Seen:
    """What ``greedy``'s scores read of an observation (the loot still in each deck), from
    a full state: the search plays on samples, so this is no more than the seat saw."""

    def __init__(self, s: State) -> None:
        self.unseen_loot = tuple(tuple(c for c in s.loot_deck if LOOT[c].deck == d)
                                 for d in LOOT_DECKS)


def scored(s: State, seat: int, moves: list[Message]) -> list[tuple[float, Message]]:
    """``(score, move)`` for each play or islet use of ``moves`` (in their order), the
    score being greedy's one-step estimate in points (``greedy._play_score``, an islet's
    effect less its payment); read from ``s`` only what ``seat`` sees (``_Seen``)."""
    c = greedy._Ctx(s, seat, _Seen(s))  # type: ignore[arg-type]
    out = []
    effects: dict[tuple[object, ...], float] = {}  # an islet's effect, whatever the payment
    for a in moves:
        if type(a) is ac.Play:
            score = greedy._play_score(c, a)
        else:
            key = (a.islet, a.landing, a.from_, a.to)  # type: ignore[attr-defined]
            effect = effects.get(key)
            if effect is None:
                effect = effects[key] = greedy._islet_score(c, a)  # type: ignore[arg-type]
            score = effect - greedy._payment(c, a.cards)  # type: ignore[attr-defined]
        out.append((score, a))
    return out


def candidates(s: State, seat: int) -> list[Message]:
    """The pruned plays and islet uses of ``seat`` in phase 2 (module docstring), unranked."""
    return [*_plays(s, seat), *_islets(s, seat)]


def _ranked(s: State, seat: int, moves: list[Message]) -> list[Message]:
    """The ``TOP`` best of ``moves`` by greedy's one-step score (ties: list order)."""
    if len(moves) <= TOP:
        return moves
    order = sorted(((-score, i) for i, (score, _) in enumerate(scored(s, seat, moves))))
    return [moves[i] for _, i in order[:TOP]]


def search_actions(s: State, seat: int) -> list[Message]:
    """The moves the search tries for ``seat`` now (module docstring), each one ``decide``
    accepts; ``[]`` when it is not ``seat``'s decision."""
    if s.current_seat != seat or s.phase == "ended":
        return []
    if s.phase == "preparation":
        return _discards(s, seat)
    if s.phase == "actions" and s.step == "act":
        if not can_act(s, seat):
            return [ac.Pass(seat)]
        return [*_ranked(s, seat, candidates(s, seat)), ac.Pass(seat)]
    legal = legal_actions(s, seat)
    if not legal:
        return legal
    # Greedy's choice first (the search's prior), then the rest in the rules' order.
    first = greedy._pick(s, seat, legal) if s.offer is not None else greedy._healer(s, seat)
    k = action_key(first)
    return [first, *(a for a in legal if action_key(a) != k)]


def action_key(a: Message) -> object:
    """A hashable key of an action (``Play``, ``Islet`` and ``Discard`` hold lists): the
    search tree's edge label. The seat is left out (a node's moves are all one seat's)."""
    t = type(a)
    if t is ac.Play:
        values = a.values  # type: ignore[attr-defined]
        return ("play", a.landing, tuple(a.cards),  # type: ignore[attr-defined]
                tuple(sorted(values.items())) if values else None, a.copy)  # type: ignore[attr-defined]
    if t is ac.Islet:
        return ("islet", a.islet, tuple(a.cards), a.skip, a.landing,  # type: ignore[attr-defined]
                a.from_, a.to)  # type: ignore[attr-defined]
    if t is ac.Discard:
        return ("discard", tuple(a.cards))  # type: ignore[attr-defined]
    return a
