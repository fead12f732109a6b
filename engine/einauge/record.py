"""Game records (CONTRACT-einauge.md section 1): load, replay and write.

A record is a plain dict as JSON gives it: ``game``, ``players``, ``options``, ``seed``
and/or ``deck``, and ``actions`` in order. Replaying one rebuilds every event, so a record
is checked against the rules action by action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import seat_control
from engine.einauge.actions import ACTIONS
from engine.einauge.game import EINAUGE
from engine.einauge.state import State
from engine.game import IllegalAction, Message, RecordError


def replay_record(record: Mapping[str, Any]) -> tuple[State, list[Message]]:
    """Set the game up from ``record`` and apply its actions in order.

    ``seat_changes`` (optional, engine/seat_control.py) are placed before the action
    their ``before_action`` names. Returns the final state and every event (the
    seat-control ones included, in stream order). Raises ``RecordError``: ``index=None`` for a
    malformed record (wrong game, players, options, seed or deck), otherwise the index of
    the first action that is malformed or illegal, with the engine's code and message.
    """
    if not isinstance(record, Mapping):
        raise RecordError(None, "a record is a JSON object")
    if record.get("game", "einauge") != "einauge":
        raise RecordError(None, f"not an Einauge record: game is {record.get('game')!r}")
    seed, deck = record.get("seed"), record.get("deck")
    if seed is not None and not isinstance(seed, str):
        raise RecordError(None, "seed must be a string")
    actions = record.get("actions", [])
    if not isinstance(actions, Sequence) or isinstance(actions, str):
        raise RecordError(None, "actions must be a list")
    try:
        events = EINAUGE.start(record.get("players"), record.get("options"), seed, deck)  # type: ignore[arg-type]
    except ValueError as e:
        raise RecordError(None, str(e)) from None
    state = EINAUGE.replay(events)
    try:
        changes = seat_control.parse_changes(record.get("seat_changes"), len(actions),
                                             len(record.get("players") or ()))
    except ValueError as e:
        raise RecordError(None, str(e)) from None

    def play(i: int) -> list[Message]:
        try:
            return EINAUGE.play(state, ACTIONS.decode(actions[i]))
        except IllegalAction as e:
            raise RecordError(i, f"{e.code}: {e.message}") from None
        except (TypeError, ValueError) as e:
            raise RecordError(i, f"bad_action: {e}") from None

    # Seat-control events (engine/seat_control.py) sit among the game's events as stored:
    # they change no game state, but the chain covers them.
    events.extend(seat_control.interleave(changes, len(actions), play))
    return state, events


def make_record(players: Sequence[str], options: Mapping[str, Any], seed: str | None,
                deck: Sequence[str], actions: Sequence[Message | Mapping[str, Any]],
                **extra: Any) -> dict[str, Any]:
    """A record in the layout of CONTRACT section 1 (``extra`` fields are appended)."""
    return {
        "game": "einauge",
        "players": list(players),
        "options": {"end_rule": options.get("end_rule", "round"),
                    "color_bonus": bool(options.get("color_bonus", False))},
        "seed": seed,
        "deck": list(deck),
        "actions": [a.to_dict() if isinstance(a, Message) else dict(a) for a in actions],
        **extra,
    }
