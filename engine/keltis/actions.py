"""Player actions of Keltis (CONTRACT-keltis.md §1, ``actions``).

Wire forms: ``{"seat": 0, "type": "lay", "card": "green-5a", "row": "green"}``,
``{"type": "discard", "card": …}``, ``{"type": "stone", "cards": [a, b]}``,
``{"type": "draw", "from": "deck" | <color> | "point"}`` and ``{"type": "finish"}``.
``from`` is a Python keyword, so ``Draw`` holds it as ``source`` and its codec maps the
wire name both ways.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.game import Codec, IllegalAction, Message


@dataclass(frozen=True, slots=True)
class Lay(Message):
    """Play step or final turn: lay ``card`` from hand onto ``row`` (a color, or
    ``"point"`` for the point row)."""

    type = "lay"
    seat: int
    card: str
    row: str


@dataclass(frozen=True, slots=True)
class Discard(Message):
    """Play step: put ``card`` from hand face up onto its discard pile."""

    type = "discard"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class Stone(Message):
    """Play step: discard ``cards`` (two of equal value, in this order) and take the stone
    of their value. A list on the wire; held as a tuple so the action is hashable."""

    type = "stone"
    seat: int
    cards: tuple[str, str]

    def __post_init__(self) -> None:
        if isinstance(self.cards, list):
            object.__setattr__(self, "cards", tuple(self.cards))

    def to_dict(self) -> dict[str, Any]:
        """The wire form, ``cards`` as a list."""
        cards = list(self.cards) if isinstance(self.cards, tuple) else self.cards
        return {"type": self.type, "seat": self.seat, "cards": cards}


@dataclass(frozen=True, slots=True)
class Draw(Message):
    """Draw step: one card of the refill from ``source`` (wire ``from``): ``"deck"``, a
    color (that color's discard pile) or ``"point"``."""

    type = "draw"
    seat: int
    source: str

    def to_dict(self) -> dict[str, Any]:
        """The wire form, with ``from``."""
        return {"type": self.type, "seat": self.seat, "from": self.source}


@dataclass(frozen=True, slots=True)
class Finish(Message):
    """Final turn: end it before the second lay, although a card could still be laid."""

    type = "finish"
    seat: int


class ActionCodec(Codec):
    """The generic codec plus the wire name ``from`` of ``draw`` (``source`` inside)."""

    def decode(self, data: Mapping[str, Any]) -> Message:
        """Build the action for a wire dict; raises ``IllegalAction`` (``bad_message``)."""
        if isinstance(data, Mapping) and data.get("type") == "draw":
            if "source" in data:
                raise IllegalAction("bad_message", "draw: unexpected field(s) ['source']")
            if "from" in data:
                data = {("source" if k == "from" else k): v for k, v in data.items()}
            else:
                raise IllegalAction("bad_message", "draw: missing field(s) ['from']")
        return super().decode(data)


ACTIONS = ActionCodec([Lay, Discard, Stone, Draw, Finish])
