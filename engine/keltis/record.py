"""Game records (CONTRACT-keltis.md §1): replay and write.

A record is a plain dict as JSON gives it: ``game`` (``"keltis"``), ``players``,
``options`` (``{}``), ``seed`` and/or ``deck``, and ``actions`` in order. Replaying one
rebuilds every event, so a record is checked against the rules action by action. Unknown
top-level fields are ignored (CONTRACT: "add fields freely").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import seat_control
from engine.game import IllegalAction, Message, RecordError
from engine.keltis.actions import ACTIONS
from engine.keltis.game import KELTIS
from engine.keltis.setup import check_options
from engine.keltis.state import State
from engine.keltis.view import public_view


def replay_record(record: Mapping[str, Any]) -> tuple[State, list[Message]]:
    """Set the game up from ``record`` and apply its actions in order.

    ``seat_changes`` (optional, engine/seat_control.py) are placed before the action
    their ``before_action`` names, as Einauge's are. Returns the final state and every
    event (the seat-control ones included, in stream order). Raises ``RecordError``:
    ``index=None`` for a malformed record (not Keltis, bad players, options, seed, deck or
    seat_changes), otherwise the index
    of the first action that is malformed (``bad_message``/``bad_action``: an unknown key,
    a wrong type) or illegal, with the engine's code and message.
    """
    if not isinstance(record, Mapping):
        raise RecordError(None, "a record is a JSON object")
    if record.get("game") != "keltis":
        raise RecordError(None, f"not a Keltis record: game is {record.get('game')!r}")
    seed, deck = record.get("seed"), record.get("deck")
    if seed is not None and not isinstance(seed, str):
        raise RecordError(None, "seed must be a string")
    actions = record.get("actions", [])
    if not isinstance(actions, Sequence) or isinstance(actions, str):
        raise RecordError(None, "actions must be a list")
    try:
        events = KELTIS.start(record.get("players"), record.get("options"), seed, deck)  # type: ignore[arg-type]
    except ValueError as e:
        raise RecordError(None, str(e)) from None
    state = KELTIS.replay(events)
    try:
        changes = seat_control.parse_changes(record.get("seat_changes"), len(actions),
                                             len(record.get("players") or ()))
    except ValueError as e:
        raise RecordError(None, str(e)) from None

    def play(i: int) -> list[Message]:
        try:
            return KELTIS.play(state, ACTIONS.decode(actions[i]))
        except IllegalAction as e:
            raise RecordError(i, f"{e.code}: {e.message}") from None
        except (TypeError, ValueError) as e:
            raise RecordError(i, f"bad_action: {e}") from None

    # The service's seat changes sit among the game's events as stored: they change no
    # game state, but the chain covers them (docs/fairness.md).
    events.extend(seat_control.interleave(changes, len(actions), play))
    return state, events


def make_record(players: Sequence[str], options: Mapping[str, Any] | None, seed: str | None,
                deck: Sequence[str], actions: Sequence[Message | Mapping[str, Any]],
                **extra: Any) -> dict[str, Any]:
    """A record in the layout of CONTRACT §1 (``extra`` fields are appended); actions in
    their wire form (``draw`` with ``from``). Same signature as Einauge's ``make_record``,
    so a server can look the writer up by game name. ``options`` as the game used them
    (``{}``: none exist); raises ``ValueError`` for any other."""
    return {
        "game": "keltis",
        "players": list(players),
        "options": check_options(options),
        "seed": seed,
        "deck": list(deck),
        "actions": [a.to_dict() if isinstance(a, Message) else dict(a) for a in actions],
        **extra,
    }


def record_view(record: Mapping[str, Any], seat: int | None = None) -> dict[str, Any]:
    """What ``record play FILE [--seat N]`` prints (CONTRACT §3): the CONTRACT view of
    ``seat`` (``None``: a spectator) after replaying ``record``. Raises ``RecordError``
    as ``replay_record`` does, and for a seat not at the table (``index`` ``None``)."""
    state, _ = replay_record(record)
    if seat is not None and (type(seat) is not int or not 0 <= seat < len(state.players)):
        raise RecordError(None, f"seat must be 0..{len(state.players) - 1}, not {seat!r}")
    return public_view(state, seat)
