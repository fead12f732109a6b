"""Player actions of Loot Island (CONTRACT-loot-island.md §1, ``actions``).

Wire form: ``{"seat": 0, "type": "play", "landing": "north-1", "cards": [...]}``. The
``islet`` action's ``from`` key is a Python keyword, so its field is ``from_`` and the
codec renames it on the way in and out. Field types are checked by the rules (where the
error can name the rule); the codec rejects unknown types and unknown or missing keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.game import Codec, IllegalAction, Message


@dataclass(frozen=True, slots=True)
class Discard(Message):
    """Phase 1: discard ``cards`` (possibly none) from the hand, then refill."""

    type = "discard"
    seat: int
    cards: list[str]


@dataclass(frozen=True, slots=True)
class Play(Message):
    """Phase 2: lay ``cards`` at ``landing`` in this order; ``values`` names each joker's
    value; ``copy`` (``shed``/``draw``) only for a lone printed 1 pushed under a row."""

    type = "play"
    seat: int
    landing: str
    cards: list[str]
    values: dict[str, int] | None = None
    copy: str | None = None


@dataclass(frozen=True, slots=True)
class Islet(Message):
    """Phase 2: use ``islet`` for 2 ``cards``; ``skip`` forgoes its effect; parameters
    ``landing`` (shortcut, camp) or ``from_``/``to`` (portage; wire keys ``from``/``to``)."""

    type = "islet"
    seat: int
    islet: str
    cards: list[str]
    skip: bool | None = None
    landing: str | None = None
    from_: str | None = None
    to: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The wire form, with ``from_`` written as ``from``."""
        d = Message.to_dict(self)
        if "from_" in d:
            d["from"] = d.pop("from_")
        return d


@dataclass(frozen=True, slots=True)
class Pass(Message):
    """Phase 2: take no further action this phase."""

    type = "pass"
    seat: int


@dataclass(frozen=True, slots=True)
class TakeLoot(Message):
    """A pick: keep ``card`` of the offer, taking its curse value in cubes."""

    type = "take_loot"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class DiscardLoot(Message):
    """A pick: discard ``card`` of the offer, shedding cubes."""

    type = "discard_loot"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class ChooseHealer(Message):
    """The healer step: take ``healer``."""

    type = "choose_healer"
    seat: int
    healer: str


class _ActionCodec(Codec):
    def decode(self, data: Mapping[str, Any]) -> Message:
        if isinstance(data, Mapping) and data.get("type") == "islet":
            if "from_" in data:
                raise IllegalAction("bad_message", "islet: unexpected field(s) ['from_']")
            if "from" in data:
                data = {("from_" if k == "from" else k): v for k, v in data.items()}
        return super().decode(data)


ACTIONS = _ActionCodec([Discard, Play, Islet, Pass, TakeLoot, DiscardLoot, ChooseHealer])
