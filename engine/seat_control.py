"""Who plays each seat: game-agnostic table events, stored in a table's event stream.

Every change of who plays a seat is an event in the table's stored stream, chained like
the game's own events, projected to every viewer unchanged (it hides nothing), and kept
in the game record (``seat_changes``), so replays and ``cardtable verify`` see it:

- ``seat_timed_out {seat, count}``: the seat's time for a move ran out; a bot makes that
  one move for it (the action right after it in the stream). ``count`` is the number of
  timeouts of the seat in a row (reset by a move its player makes).
- ``seat_controller_changed {seat, by, reason, bot?, level?}``: from now on the seat is
  played by ``by`` (``"bot"`` or ``"player"``); ``reason`` is ``timeout`` (too many
  timeouts in a row), ``handover`` (the table's creator), ``abandoned`` (another player
  claimed the seat of a player who was away too long), ``resigned`` or ``returned``.
- ``game_voided {reason}``: the game is void from here on: nobody moves again, nobody
  wins, no rating changes (the operator's ``cardtable void-rewound`` after a restore from
  an older backup, or an administrator: server/table/void.py). It names no seat; in a
  record it is the last of the ``seat_changes``. An administrator's void has the reason
  ``admin``.

A game's ``evolve`` never sees these events: the server folds them into ``Control``
(pure, below) and the game's state is the fold of the game's events only. Which moves a
bot made is read off the stream: the action after a ``seat_timed_out``, and every action
of a seat between a change to ``bot`` and a change back to ``player``.

Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.game import Codec, Message

BY = ("bot", "player")
REASONS = ("timeout", "handover", "abandoned", "resigned", "returned")


@dataclass(frozen=True, slots=True)
class SeatTimedOut(Message):
    """The seat's move time ran out; the next action in the stream is a bot's for it."""

    type = "seat_timed_out"
    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class SeatControllerChanged(Message):
    """From this event on ``seat`` is played by ``by`` (``bot``: kind ``bot``, ``level``)."""

    type = "seat_controller_changed"
    seat: int
    by: str
    reason: str
    bot: str | None = None
    level: int | None = None


@dataclass(frozen=True, slots=True)
class GameVoided(Message):
    """The game is void from this event on (``reason``: why, for people to read)."""

    type = "game_voided"
    reason: str


CODEC = Codec([SeatTimedOut, SeatControllerChanged, GameVoided])
TYPES = frozenset(CODEC.classes)


def is_control(event: Mapping[str, Any] | Message) -> bool:
    """True for a seat-control event (a wire dict or a message)."""
    if isinstance(event, Message):  # the common cases first: no ABC check
        return event.type in TYPES
    if type(event) is dict:
        return event.get("type") in TYPES
    kind = event.get("type") if isinstance(event, Mapping) else getattr(event, "type", None)
    return kind in TYPES


def resigned_seat(event: Message) -> int | None:
    """The seat ``event`` resigns (a ``seat_controller_changed`` with reason
    ``resigned``), else ``None``. From that event on the seat's former player reads only
    what a spectator reads (docs/protocol.md §5, "Resigning")."""
    if isinstance(event, SeatControllerChanged) and event.reason == "resigned":
        return event.seat
    return None


def decode(codec: Codec, data: Mapping[str, Any]) -> Message:
    """A stored event's message: a seat-control event, else ``codec``'s (the game's).
    Raises ``IllegalAction`` (``bad_message``) as ``Codec.decode`` does."""
    if is_control(data):
        return CODEC.decode(data)
    return codec.decode(data)


def check(event: Message, seats: int) -> None:
    """Raise ``ValueError`` for a control event that names no seat of ``seats`` or an
    unknown ``by``/``reason`` (a ``game_voided``: a reason that is no text)."""
    if isinstance(event, GameVoided):
        if not isinstance(event.reason, str) or not event.reason:
            raise ValueError("game_voided: reason must be a non-empty text")
        return
    seat = getattr(event, "seat", None)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
        raise ValueError(f"{event.type}: seat {seat!r} is not a seat of this game")
    if isinstance(event, SeatTimedOut):
        if not isinstance(event.count, int) or event.count < 1:
            raise ValueError("seat_timed_out: count must be a positive number")
    elif isinstance(event, SeatControllerChanged) and (event.by not in BY
                                                       or event.reason not in REASONS):
        raise ValueError(f"seat_controller_changed: by {event.by!r}, reason "
                             f"{event.reason!r} (by: {BY}, reason: {REASONS})")


@dataclass
class SeatState:
    """One seat as the stream tells it: ``by`` (``None``: as seated at the start),
    the bot's ``bot``/``level``, ``resigned``, and the last ``reason``."""

    by: str | None = None
    bot: str | None = None
    level: int | None = None
    resigned: bool = False
    reason: str | None = None


@dataclass
class Control:
    """The fold of a table's seat-control events (one ``SeatState`` per seat touched)."""

    seats: dict[int, SeatState] = field(default_factory=dict)
    voided: str | None = None
    """The reason of the ``game_voided`` event, once the game is void."""

    def apply(self, event: Message) -> None:
        """Fold one control event in (``seat_timed_out`` changes no controller)."""
        if isinstance(event, GameVoided):
            self.voided = event.reason
        if isinstance(event, SeatControllerChanged):
            s = self.seats.setdefault(event.seat, SeatState())
            s.by, s.reason = event.by, event.reason
            s.bot, s.level = (event.bot, event.level) if event.by == "bot" else (None, None)
            s.resigned = s.resigned or event.reason == "resigned"

    def by(self, seat: int, seated: str | None) -> str | None:
        """``bot`` or ``player`` for ``seat`` (``seated``: its lobby kind, ``human`` or
        ``bot``, used while no event changed it)."""
        s = self.seats.get(seat)
        if s is not None and s.by is not None:
            return s.by
        return {"human": "player", "bot": "bot"}.get(seated or "")

    def resigned(self, seat: int) -> bool:
        """True once the seat's player resigned."""
        s = self.seats.get(seat)
        return bool(s and s.resigned)


def voided(events: Iterable[Message]) -> str | None:
    """The reason of the first ``game_voided`` among ``events``, else ``None``."""
    return next((e.reason for e in events if isinstance(e, GameVoided)), None)


def record_changes(entries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The record's ``seat_changes`` from stored entries ``{"e", "a"?}``: each control
    event's wire dict plus ``before_action``, the index of the first record action after
    it (``len(actions)`` when none follows)."""
    out, actions = [], 0
    for entry in entries:
        if "a" in entry:
            actions += 1
        if is_control(entry["e"]):
            out.append({"before_action": actions, **entry["e"]})
    return out


def parse_changes(raw: Any, actions: int, seats: int) -> list[tuple[int, Message]]:
    """Validate a record's ``seat_changes``: a list of control events with
    ``before_action`` in ``0..actions``, not decreasing. Returns ``(before_action,
    event)`` pairs in order; raises ``ValueError`` naming the bad entry."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError("seat_changes must be a list")
    out: list[tuple[int, Message]] = []
    last = 0
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise ValueError(f"seat_changes[{i}] must be an object")
        at = item.get("before_action")
        if not isinstance(at, int) or isinstance(at, bool) or not last <= at <= actions:
            raise ValueError(f"seat_changes[{i}]: before_action must be a number in "
                             f"{last}..{actions}")
        data = {k: v for k, v in item.items() if k != "before_action"}
        if not is_control(data):
            raise ValueError(f"seat_changes[{i}]: type must be one of {sorted(TYPES)}")
        try:
            event = CODEC.decode(data)
            check(event, seats)
        except Exception as e:  # IllegalAction or ValueError: both a malformed record
            raise ValueError(f"seat_changes[{i}]: {e}") from None
        if isinstance(event, GameVoided) and (at != actions or i != len(raw) - 1):
            raise ValueError(f"seat_changes[{i}]: game_voided must be the last change, "
                             "after every action")
        out.append((at, event))
        last = at
    return out


def interleave(changes: Sequence[tuple[int, Message]], actions: int,
               play: Callable[[int], list[Message]]) -> list[Message]:
    """The events of the changes placed among the actions': ``play(i)`` gives action
    ``i``'s events; the changes with ``before_action == i`` come just before them."""
    out: list[Message] = []
    k = 0
    for i in range(actions + 1):
        while k < len(changes) and changes[k][0] == i:
            out.append(changes[k][1])
            k += 1
        if i < actions:
            out.extend(play(i))
    return out
