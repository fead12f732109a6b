"""The generic game interface every game of the service implements.

The shape follows the decide/evolve style of event sourcing (and the habits of OpenSpiel
and boardgame.io): a game turns a player's *action* into *events* (``decide``), and the
state is the fold of ``evolve`` over those events. The server stores and ships events; it
never looks inside a state and never implements a rule.

Hidden information is handled by *viewers*: ``None`` is a spectator, an ``int`` is a seat.
``view`` and ``project`` return only what that viewer may know, so a game with hidden hands
(Keltis, Loot Island) needs no server change: the server asks the game what each viewer
sees and sends exactly that.

Everything here is pure: no I/O, no clock, no global random state.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

Viewer = int | None
"""A seat number, or ``None`` for a spectator (who sees only public information)."""


class IllegalAction(Exception):
    """An action the rules do not allow right now, or one that is malformed.

    ``code`` is a stable snake_case identifier for programs (``not_your_turn``,
    ``wrong_step``, ``cannot_afford``, …); ``message`` is a sentence for people. Raising it
    never changes any state.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """``{"code": …, "message": …}``, the wire form of the error."""
        return {"code": self.code, "message": self.message}


_FIELDS: dict[type, tuple[str, ...]] = {}
_OPTIONAL: dict[type, frozenset[str]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        fields = dataclasses.fields(cls)
        names = _FIELDS[cls] = tuple(f.name for f in fields)
        _OPTIONAL[cls] = frozenset(f.name for f in fields if f.default is None)
    return names


class Message:
    """Base of events and actions: a frozen dataclass with a stable wire name in ``type``.

    The wire form is a plain dict ``{"type": <wire name>, <field>: <value>, …}`` holding
    only str, int, bool, None, lists and dicts, so it encodes unchanged as msgpack or JSON.
    A field whose default is ``None`` is left out while it is ``None``.
    """

    type: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        """The wire form: ``{"type": …, **fields}``."""
        cls = type(self)
        d: dict[str, Any] = {"type": self.type}
        for name in _field_names(cls):
            value = getattr(self, name)
            if value is not None or name not in _OPTIONAL[cls]:
                d[name] = value
        return d


M = TypeVar("M", bound=Message)


class Codec:
    """Maps wire names to message classes and back, for one family (events or actions).

    ``decode`` raises ``IllegalAction("bad_message", …)`` for an unknown ``type``, a missing
    field or an unexpected field; it does not check field types (the game does, in
    ``decide``, where it can name the rule).
    """

    def __init__(self, classes: Sequence[type[Message]]) -> None:
        self.classes: dict[str, type[Message]] = {c.type: c for c in classes}
        # Per wire name: the keys a message may carry and the ones it must carry, so a
        # well-formed dict (the replay hot path) costs two set comparisons.
        self._allowed = {k: frozenset((*_field_names(c), "type")) for k, c in self.classes.items()}
        self._required = {k: frozenset(_field_names(c)) - _OPTIONAL[c]
                          for k, c in self.classes.items()}

    def decode(self, data: Mapping[str, Any]) -> Message:
        """Build the message for a wire dict; raises ``IllegalAction`` (``bad_message``)."""
        if not isinstance(data, Mapping):
            raise IllegalAction("bad_message", "expected an object with a 'type' field")
        kind = data.get("type")
        cls = self.classes.get(kind) if isinstance(kind, str) else None
        if cls is None:
            known = ", ".join(sorted(self.classes))
            raise IllegalAction("bad_message", f"unknown type {kind!r}; expected one of: {known}")
        keys = data.keys()
        extra = keys - self._allowed[kind]
        if extra:
            raise IllegalAction("bad_message",
                                f"{kind}: unexpected field(s) {sorted(map(str, extra))}")
        missing = self._required[kind] - keys
        if missing:
            order = [n for n in _field_names(cls) if n in missing]
            raise IllegalAction("bad_message", f"{kind}: missing field(s) {order}")
        return cls(**{k: v for k, v in data.items() if k != "type"})


class Game(Protocol):
    """What the server, the bots and the tools need from a game.

    ``S`` is the game's state type, opaque to everyone but the game. ``evolve`` may update
    the state it is given in place and returns the state to use next (replay is
    ``functools.reduce(game.evolve, events, game.initial_state())``); ``decide`` and
    every other method never change the state they are given.
    """

    name: str
    min_players: int
    max_players: int
    events: Codec
    actions: Codec
    uniform_view: bool
    """True when ``view`` and ``project`` are the same for every viewer (no hidden hands)."""

    def start(self, players: Sequence[str], options: Mapping[str, Any], seed: str) -> list[Message]:
        """The events that set a new game up (the first is ``game_started``).

        ``players`` are display names in seat order; ``seed`` decides all chance.
        Raises ``ValueError`` for bad players or options.
        """
        ...

    def initial_state(self) -> Any:
        """The empty state that ``game_started`` is applied to."""
        ...

    def evolve(self, state: Any, event: Message) -> Any:
        """Apply one event; returns the new state (possibly the same object, updated)."""
        ...

    def decide(self, state: Any, action: Message) -> list[Message]:
        """The events an action causes, up to the next decision a player must make.

        Raises ``IllegalAction`` with a stable code; never changes ``state``.
        """
        ...

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Seats that may act now (empty once the game has ended)."""
        ...

    def legal_actions(self, state: Any, seat: int) -> list[Message]:
        """Exactly the actions ``decide`` accepts from ``seat`` now."""
        ...

    def is_over(self, state: Any) -> bool:
        """True once the game has ended."""
        ...

    def view(self, state: Any, viewer: Viewer) -> dict[str, Any]:
        """What ``viewer`` may see of the state, as a plain dict."""
        ...

    def project(self, event: Message, viewer: Viewer) -> dict[str, Any] | None:
        """The wire form of ``event`` as ``viewer`` may see it (``None``: nothing at all).

        For ``viewer=None`` (a spectator) it is also what the hash chain links
        (``engine.chain``, docs/fairness.md §5): heads are sent to everyone, so it must
        hold nothing hidden, and everything hidden must follow from the seed."""
        ...
