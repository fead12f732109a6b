"""``legal_actions`` agrees with ``decide``: every listed action is accepted, and every
play, islet use and discard that ``decide`` accepts is listed (in its canonical order)."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.game import IllegalAction, Message
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import actions as ac
from engine.loot_island.data import ISLETS, LANDINGS, MAP_INDEX, VALUE
from engine.loot_island.state import State
from tests.engine.loot_island.helpers import Table


def _accepts(s: State, a: Message) -> bool:
    try:
        G.decide(s, a)
    except IllegalAction:
        return False
    return True


def _canonical(a: Message) -> Message:
    if isinstance(a, ac.Play) and len(a.cards) > 1:
        vals = a.values or {}
        cards = sorted(a.cards, key=lambda c: (vals.get(c) or VALUE[c], MAP_INDEX[c]))
        return ac.Play(a.seat, a.landing, cards, a.values, a.copy)
    if isinstance(a, ac.Islet | ac.Discard):
        cards = sorted(a.cards, key=MAP_INDEX.__getitem__)
        if isinstance(a, ac.Discard):
            return ac.Discard(a.seat, cards)
        return ac.Islet(a.seat, a.islet, cards, a.skip, a.landing, a.from_, a.to)
    return a


def _candidate_plays(s: State, seat: int) -> list[Message]:
    hand = s.players[seat].hand
    out: list[Message] = []
    for landing in LANDINGS:
        for n in (1, 2):
            for cards in itertools.permutations(hand, n):
                jokers = [c for c in cards if VALUE[c] == 0]
                for vals in itertools.product(range(1, 11), repeat=len(jokers)):
                    values = dict(zip(jokers, vals, strict=True)) or None
                    copies = [None, "shed", "draw"] if n == 1 and VALUE[cards[0]] == 1 else [None]
                    out += [ac.Play(seat, landing, list(cards), values, cp) for cp in copies]
    return out


def _candidate_islets(s: State, seat: int) -> list[Message]:
    hand = s.players[seat].hand
    out: list[Message] = []
    for cards in itertools.permutations(hand, 2):
        for islet in ISLETS:
            out.append(ac.Islet(seat, islet, list(cards), True))
            out.append(ac.Islet(seat, islet, list(cards)))
            out += [ac.Islet(seat, islet, list(cards), None, x) for x in LANDINGS]
            out += [ac.Islet(seat, islet, list(cards), None, None, a, b)
                    for a in LANDINGS for b in LANDINGS]
    return out


def _positions(seed: str, players: int, wanted: int, phase: str) -> list[State]:
    rng = random.Random(seed)
    t = Table(players, seed=seed)
    found = []
    while not G.is_over(t.state) and len(found) < wanted:
        if t.state.phase == phase and rng.random() < 0.3:
            found.append(t.state.copy())
        legal = t.legal()
        t.play(legal[rng.randrange(len(legal))])
    return found


@pytest.mark.parametrize(("seed", "players"), [("legal-1", 2), ("legal-2", 4)])
def test_plays_and_islets_accepted_exactly_when_listed(seed: str, players: int) -> None:
    for s in _positions(seed, players, 2, "actions"):
        seat = s.current_seat
        assert seat is not None
        legal = G.legal_actions(s, seat)
        assert len(legal) == len({repr(a) for a in legal})  # each choice once
        listed = {repr(a) for a in legal}
        for a in legal:
            assert _accepts(s, a), a
        hand = s.players[seat].hand
        if sum(VALUE[c] == 0 for c in hand) > 1 and len(hand) > 9:
            continue  # keep the brute force small
        for a in _candidate_plays(s, seat) + _candidate_islets(s, seat):
            canon = _canonical(a)
            if _accepts(s, a):
                assert repr(canon) in listed, a
            elif canon == a:  # in canonical order: listed exactly when accepted
                assert repr(a) not in listed, a


def test_discards_every_subset_once_any_order_accepted() -> None:
    for s in _positions("legal-3", 3, 2, "preparation"):
        seat = s.current_seat
        assert seat is not None
        legal = G.legal_actions(s, seat)
        hand = s.players[seat].hand
        assert len(legal) == 2 ** len(hand)
        for a in legal[:20]:
            assert _accepts(s, a)
        shuffled = list(reversed(sorted(hand, key=MAP_INDEX.__getitem__)))[:3]
        assert _accepts(s, ac.Discard(seat, shuffled))


def test_picks_and_healers_listed() -> None:
    rng = random.Random(4)
    t = Table(3, seed="legal-4")
    seen = set()
    while not G.is_over(t.state):
        legal = t.legal()
        if t.state.offer is not None:
            assert {a.card for a in legal} == set(t.state.offer)  # type: ignore[attr-defined]
            assert len(legal) == 2 * len(t.state.offer)
            seen.add("pick")
        if t.state.phase == "healers":
            assert sorted(a.healer for a in legal) == sorted(t.state.healers_left())  # type: ignore[attr-defined]
            assert len(legal) >= 2
            seen.add("healer")
        for a in legal[:5]:
            assert _accepts(t.state, a)
        t.play(legal[rng.randrange(len(legal))])
    assert "healer" in seen
    assert G.legal_actions(t.state, 0) == []
