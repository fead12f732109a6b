"""Helpers for driving real Einauge games in tests: a given deck, real actions, real events.

Nothing here pokes the state: games are set up with ``EINAUGE.start(..., deck=...)`` and
moved on with ``EINAUGE.play`` (which runs ``decide``'s checks and the automatic events).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.einauge import EINAUGE
from engine.einauge import actions as ac
from engine.einauge import events as ev
from engine.einauge.cards import CARDS
from engine.einauge.state import State
from engine.game import Message


class Table:
    """One game under test: its state, every event so far, and every action taken."""

    def __init__(self, deck: Sequence[str] | None = None, players: Sequence[str] = ("A", "B"),
                 seed: str = "test", **options: Any) -> None:
        self.events: list[Message] = EINAUGE.start(list(players), options, seed, deck)
        self.state: State = EINAUGE.replay(self.events)
        self.actions: list[Message] = []

    @property
    def seat(self) -> int:
        return self.state.current_seat  # type: ignore[return-value]

    @property
    def player(self):
        return self.state.players[self.seat]

    def act(self, type: str, **fields: Any) -> list[Message]:
        """Play one action for the seat to move; returns its events."""
        action = ac.ACTIONS.decode({"type": type, "seat": self.seat, **fields})
        new = EINAUGE.play(self.state, action)
        self.actions.append(action)
        self.events.extend(new)
        return new

    def play(self, action: Message) -> list[Message]:
        new = EINAUGE.play(self.state, action)
        self.actions.append(action)
        self.events.extend(new)
        return new

    def legal(self) -> list[Message]:
        return EINAUGE.legal_actions(self.state, self.seat)

    def view(self) -> dict[str, Any]:
        return EINAUGE.public_view(self.state)

    def run(self, choose: Callable[[Table], Message], max_actions: int = 10_000) -> None:
        """Play ``choose``'s actions until the game has ended."""
        for _ in range(max_actions):
            if EINAUGE.is_over(self.state):
                return
            self.play(choose(self))
        raise AssertionError("game did not end")

    def of(self, *kinds: type) -> list[Message]:
        """Events of the given classes, in order."""
        return [e for e in self.events if isinstance(e, kinds)]


def simple(t: Table) -> Message:
    """A predictable chooser: buy the cheapest affordable card (ships alone), never fight
    (``pass``), place the first display card. Sells a jewel only when it must."""
    legal = t.legal()
    buys = [a for a in legal if isinstance(a, ac.Buy) and a.row in (None, "alone")]
    if buys:
        return min(buys, key=lambda a: (CARDS[a.card].price, a.card))
    if any(isinstance(a, ac.Pass) for a in legal):
        return ac.Pass(t.seat)
    places = [a for a in legal if isinstance(a, ac.Place)]
    if places:
        return places[0]
    return legal[0]  # a forced sale


def normal_turn_seats(events: Sequence[Message]) -> list[int]:
    """Seat of every normal turn, in order: each has exactly one buy or buy_skipped."""
    return [e.seat for e in events if isinstance(e, ev.CardBought | ev.BuySkipped)]


def final_round_seats(events: Sequence[Message]) -> list[int]:
    """Seat of every final-round turn, in order (one fight event each)."""
    out: list[int] = []
    started = False
    for e in events:
        if isinstance(e, ev.FinalRoundStarted):
            started = True
        elif started and isinstance(e, ev.FightWon | ev.FightDeclined | ev.FightSkipped):
            out.append(e.seat)
    return out


def filler(n: int, avoid: Sequence[str] = ()) -> list[str]:
    """``n`` island cards, cheapest first, none of them in ``avoid`` and none blue."""
    pool = sorted((c for c in CARDS if CARDS[c].color not in (None, "blue") and c not in avoid),
                  key=lambda c: (CARDS[c].price, c))
    return pool[:n]


def deck_of(*head: str, n: int = 20) -> list[str]:
    """``head`` on top, then cheap filler cards (no blue) up to ``n`` cards in all."""
    return [*head, *filler(n - len(head), avoid=head)]
