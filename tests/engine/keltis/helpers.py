"""Helpers for driving real Keltis games in tests: an arranged deck, real actions, real events.

Nothing here pokes the state: games are set up with ``KELTIS.start(..., deck=...)`` (a
full 101-card deck whose order puts chosen cards into chosen hands and onto the top of
the deck) and moved on with ``KELTIS.play``, which runs ``decide``'s checks and the
automatic events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.game import Message
from engine.keltis import KELTIS
from engine.keltis.actions import ACTIONS
from engine.keltis.cards import CANONICAL
from engine.keltis.state import State


def deck_for(n: int, hands: Mapping[int, Sequence[str]] | None = None,
             top: Sequence[str | None] = (), removed: Sequence[str] = (),
             filler: Sequence[str] | None = None) -> list[str]:
    """A full deck for ``n`` players: ``removed`` first (2 players; filled to 30), then
    each seat's ``hands[seat]`` filled to 8, then ``top`` (the first deck cards; ``None``
    is a fill card), then the rest. Fill cards come from ``filler`` (default: canonical
    order), skipping used ones."""
    hands = dict(hands or {})
    used = [c for c in (*removed, *top, *(c for h in hands.values() for c in h)) if c]
    if len(set(used)) != len(used):
        raise ValueError("a card is placed twice")
    pool = [c for c in (filler or CANONICAL) if c not in set(used)]
    pool += [c for c in CANONICAL if c not in set(used) and c not in set(pool)]
    out: list[str] = []

    def fill(cards: Sequence[str], size: int) -> None:
        out.extend(cards)
        for _ in range(size - len(cards)):
            out.append(pool.pop(0))

    if n == 2:
        fill(removed, 30)
    elif removed:
        raise ValueError("only 2-player games remove cards")
    for seat in range(n):
        fill(hands.get(seat, ()), 8)
    out.extend(c if c is not None else pool.pop(0) for c in top)
    out.extend(pool)
    return out


def draws(n: int, per_seat: Mapping[int, Sequence[str]]) -> list[str | None]:
    """A ``top`` for ``deck_for`` when every turn draws one card from the deck, seat 0
    first: seat ``i``'s k-th draw is ``per_seat[i][k]`` (``None``: a fill card)."""
    turns = max((len(v) for v in per_seat.values()), default=0)
    out: list[str | None] = []
    for k in range(turns):
        for i in range(n):
            seq = per_seat.get(i, ())
            out.append(seq[k] if k < len(seq) else None)
    return out


class Table:
    """One game under test: its state, every event so far, and every action taken."""

    def __init__(self, n: int = 2, hands: Mapping[int, Sequence[str]] | None = None,
                 top: Sequence[str | None] = (), removed: Sequence[str] = (),
                 deck: Sequence[str] | None = None, seed: str = "test",
                 filler: Sequence[str] | None = None) -> None:
        self.deck = list(deck) if deck is not None else deck_for(n, hands, top, removed,
                                                                 filler)
        self.players = [f"p{i}" for i in range(n)]
        self.events: list[Message] = KELTIS.start(self.players, {}, seed, self.deck)
        self.state: State = KELTIS.replay(self.events)
        self.actions: list[Message] = []

    @property
    def seat(self) -> int:
        return self.state.current_seat  # type: ignore[return-value]

    def hand(self, seat: int | None = None) -> list[str]:
        return list(self.state.players[self.seat if seat is None else seat].hand)

    def act(self, type: str, **fields: Any) -> list[Message]:
        """Play one action (wire form) for the seat to move; returns its events."""
        return self.play(ACTIONS.decode({"type": type, "seat": self.seat, **fields}))

    def lay(self, card: str, row: str | None = None) -> list[Message]:
        from engine.keltis.cards import COLOR
        return self.act("lay", card=card, row=row or COLOR[card] or "point")

    def discard(self, card: str) -> list[Message]:
        return self.act("discard", card=card)

    def draw(self, source: str = "deck") -> list[Message]:
        return self.act("draw", **{"from": source})

    def play(self, action: Message) -> list[Message]:
        new = KELTIS.play(self.state, action)
        self.actions.append(action)
        self.events.extend(new)
        return new

    def legal(self, seat: int | None = None) -> list[Message]:
        return KELTIS.legal_actions(self.state, self.seat if seat is None else seat)

    def view(self, viewer: int | None = None) -> dict[str, Any]:
        return KELTIS.public_view(self.state, viewer)

    def run(self, choose: Callable[[Table], Message], max_actions: int = 10_000) -> None:
        """Play ``choose``'s actions until the game has ended."""
        for _ in range(max_actions):
            if KELTIS.is_over(self.state):
                return
            self.play(choose(self))
        raise AssertionError("game did not end")

    def of(self, *kinds: type) -> list[Message]:
        """Events of the given classes, in order."""
        return [e for e in self.events if isinstance(e, kinds)]


def discarder(t: Table) -> Message:
    """A predictable chooser: discard the first card in hand and draw from the deck (or
    the first open source); in a final turn lay the first legal lay, else finish."""
    legal = t.legal()
    for a in legal:
        if a.type == "discard" or (a.type == "draw" and a.source == "deck"):
            return a
    return legal[0]
