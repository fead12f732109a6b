"""Helpers for Loot Island tests: real games, and positions built from real games.

``Table`` starts a real game (``LOOT_ISLAND.start``, the CONTRACT §2 shuffle or given
orders) and moves on with ``LOOT_ISLAND.play``. ``Table.arrange`` sets up a position for a
rule test by *moving* map cards between the zones of that real game (hands, map deck,
landings, discard pile), so every card stays exactly once in the game (``check_cards``);
cubes and the round can be set too. Everything after that goes through the real rules.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.game import Message
from engine.loot_island import LOOT_ISLAND
from engine.loot_island import actions as ac
from engine.loot_island.data import LANDING_INDEX, MAP_IDS, VALUE
from engine.loot_island.state import State

G = LOOT_ISLAND


def loot_first(*cards: str) -> dict[str, list[str]]:
    """``orders`` whose loot decks put ``cards`` on top (in this order), the rest after."""
    from engine.loot_island.setup import CANONICAL
    out: dict[str, list[str]] = {}
    top = list(cards)
    for key in ("loot_1", "loot_2", "loot_3", "loot_4"):
        canon = list(CANONICAL[key])
        head = [c for c in top if c in canon]
        if head != top[:len(head)]:
            raise ValueError("top loot cards must follow deck order I, II, III, IV")
        top = top[len(head):]
        out[key] = head + [c for c in canon if c not in head]
    return out


class Table:
    """One game under test: its state, every event so far, and every action taken."""

    def __init__(self, players: int | Sequence[str] = 4, seed: str | None = "test",
                 options: Mapping[str, Any] | None = None,
                 orders: Mapping[str, Any] | None = None) -> None:
        names = [f"P{i}" for i in range(players)] if isinstance(players, int) else list(players)
        self.events: list[Message] = G.start(names, options or {}, seed, orders)
        self.state: State = G.replay(self.events)
        self.actions: list[Message] = []

    @property
    def seat(self) -> int:
        return self.state.current_seat  # type: ignore[return-value]

    def act(self, type: str, seat: int | None = None, **fields: Any) -> list[Message]:
        """Play one action (for the seat to move unless ``seat`` is given); its events."""
        if "from_" in fields:
            fields["from"] = fields.pop("from_")
        data = {"type": type, "seat": self.seat if seat is None else seat, **fields}
        return self.play(ac.ACTIONS.decode(data))

    def play(self, action: Message) -> list[Message]:
        new = G.play(self.state, action)
        self.actions.append(action)
        self.events.extend(new)
        return new

    def decide(self, type: str, seat: int | None = None, **fields: Any) -> list[Message]:
        """``decide`` only (the state is unchanged)."""
        if "from_" in fields:
            fields["from"] = fields.pop("from_")
        data = {"type": type, "seat": self.seat if seat is None else seat, **fields}
        return G.decide(self.state, ac.ACTIONS.decode(data))

    def legal(self) -> list[Message]:
        return G.legal_actions(self.state, self.seat)

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        return G.view(self.state, viewer)

    def of(self, *kinds: type) -> list[Message]:
        """Events of the given classes, in order."""
        return [e for e in self.events if isinstance(e, kinds)]

    def run(self, choose: Callable[[Table], Message], max_actions: int = 5000) -> None:
        """Play ``choose``'s actions until the game has ended."""
        for _ in range(max_actions):
            if G.is_over(self.state):
                return
            self.play(choose(self))
        raise AssertionError("game did not end")

    def pass_all(self) -> None:
        """Every seat passes until phase 2 is over."""
        s = self.state
        while s.phase == "actions":
            self.act("pass")

    # --- positions ---------------------------------------------------------------------

    def _take(self, card: str) -> None:
        s = self.state
        for p in s.players:
            if card in p.hand:
                p.hand.remove(card)
                return
        for zone in (s.map_deck, s.map_discard):
            if card in zone:
                zone.remove(card)
                return
        for x in s.landings:
            if card in x.cards:
                i = x.cards.index(card)
                del x.cards[i], x.values[i]
                return
        raise AssertionError(f"{card} is nowhere")

    def arrange(self, hands: Mapping[int, Sequence[str]] | None = None,
                landings: Mapping[str, tuple[Sequence[str], Sequence[int]]] | None = None,
                values: Mapping[str, int] | None = None, cubes: Sequence[int] | None = None,
                deck_top: Sequence[str] = (), discard: Sequence[str] | None = None,
                empty_deck: bool = False) -> None:
        """Move cards into place: ``hands[seat]`` becomes exactly those cards (the old ones
        go under the map deck), ``landings[name] = (cards bottom→top, discs)`` with joker
        ``values``, ``deck_top`` on top of the map deck (first = top), ``discard`` the
        whole discard pile; ``empty_deck`` moves the map deck to the discard pile."""
        s = self.state
        values = dict(values or {})
        for seat, cards in (hands or {}).items():
            old = [c for c in s.players[seat].hand if c not in cards]
            for c in cards:
                self._take(c)
            for c in old:
                s.players[seat].hand.remove(c)
            s.map_deck[:0] = old
            s.players[seat].hand.extend(cards)
        for name, (cards, discs) in (landings or {}).items():
            for c in cards:
                self._take(c)
            x = s.landings[LANDING_INDEX[name]]
            x.cards = list(cards)
            x.values = [values.get(c, VALUE[c]) for c in cards]
            x.discs = list(discs)
        for c in reversed(list(deck_top)):
            self._take(c)
        s.map_deck.extend(reversed(list(deck_top)))
        if discard is not None:
            for c in discard:
                self._take(c)
            s.map_deck[:0] = s.map_discard
            s.map_discard = list(discard)
        if empty_deck:
            s.map_discard = s.map_discard + s.map_deck[::-1]
            s.map_deck = []
        if cubes is not None:
            for p, n in zip(s.players, cubes, strict=True):
                p.cubes = n
        check_cards(s)


def check_cards(s: State) -> None:
    """Every map card is in exactly one zone."""
    zones = [c for p in s.players for c in p.hand] + s.map_deck + s.map_discard
    zones += [c for x in s.landings for c in x.cards]
    assert sorted(zones) == sorted(MAP_IDS), "map cards lost or duplicated"


def random_choice(rng: random.Random) -> Callable[[Table], Message]:
    """A chooser picking uniformly among the legal actions."""
    def choose(t: Table) -> Message:
        legal = t.legal()
        return legal[rng.randrange(len(legal))]
    return choose


def b_first(*events: str) -> list[str]:
    """``events_b`` with ``events`` first (rounds 2, 3, …), the rest in canonical order."""
    from engine.loot_island.data import EVENTS_B
    return [*events, *(e for e in EVENTS_B if e not in events)]


def to_round(t: Table, r: int) -> None:
    """Everyone passes and discards nothing until phase 2 of round ``r`` begins."""
    s = t.state
    while not (s.round == r and s.phase == "actions"):
        if s.phase == "actions":
            t.act("pass")
        elif s.phase == "preparation":
            t.act("discard", cards=[])
        else:
            raise AssertionError(f"unexpected decision in {s.phase}")


def a_first(event: str) -> list[str]:
    """``events_a`` with ``event`` first (round 1's event), the rest in canonical order."""
    from engine.loot_island.data import EVENTS_A
    return [event, *(e for e in EVENTS_A if e != event)]
