"""Game records (CONTRACT-loot-island.md §1): replay and write.

A record is a plain dict as JSON gives it: ``game``, ``players``, ``options``, ``seed``,
``orders`` and ``actions``. Replaying it rebuilds every event, checking each action
against the rules. Unknown top-level fields are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import seat_control
from engine.game import IllegalAction, Message, RecordError
from engine.loot_island.actions import ACTIONS
from engine.loot_island.game import LOOT_ISLAND
from engine.loot_island.state import State


def replay_record(record: Any) -> tuple[State, list[Message]]:
    """Set the game up from ``record`` and apply its actions in order.

    ``seat_changes`` (optional, engine/seat_control.py) are placed before the action
    their ``before_action`` names, as Einauge's are. Returns the final state and every
    event (the seat-control ones included, in stream order). Raises ``RecordError``:
    ``index=None`` for a malformed record (not an object, wrong ``game``, bad ``players``,
    ``options``, ``seed``, ``orders``, ``actions`` or ``seat_changes``), else the index of
    the first illegal action.
    """
    if not isinstance(record, Mapping):
        raise RecordError(None, "a record is a JSON object")
    if record.get("game") != "loot-island":
        raise RecordError(None, f"game: not a Loot Island record ({record.get('game')!r})")
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError(None, "actions must be a list")
    try:
        events = LOOT_ISLAND.start(record.get("players"), record.get("options"),  # type: ignore[arg-type]
                                   record.get("seed"), record.get("orders"))
    except ValueError as e:
        raise RecordError(None, str(e)) from None
    state = LOOT_ISLAND.replay(events)
    try:
        changes = seat_control.parse_changes(record.get("seat_changes"), len(actions),
                                             len(record.get("players") or ()))
    except ValueError as e:
        raise RecordError(None, str(e)) from None

    def play(i: int) -> list[Message]:
        try:
            return LOOT_ISLAND.play(state, ACTIONS.decode(actions[i]))
        except IllegalAction as e:
            raise RecordError(i, f"{e.code}: {e.message}") from None

    # The service's seat changes sit among the game's events as stored: they change no
    # game state, but the chain covers them (docs/fairness.md).
    events.extend(seat_control.interleave(changes, len(actions), play))
    return state, events


def record_view(record: Any, seat: Any = None) -> dict[str, Any]:
    """What ``record play FILE [--seat N]`` prints (CONTRACT §3): the view of ``seat``
    (``None``: a spectator) after replaying ``record``. Raises ``RecordError`` as
    ``replay_record`` does, and for a seat not at the table (``index`` ``None``)."""
    state, _ = replay_record(record)
    if seat is not None and (type(seat) is not int or not 0 <= seat < len(state.players)):
        raise RecordError(None, f"seat must be 0..{len(state.players) - 1}, not {seat!r}")
    return LOOT_ISLAND.view(state, seat)


def make_record(players: Sequence[str], options: Mapping[str, Any], seed: str | None,
                orders: Mapping[str, Any], actions: Sequence[Message | Mapping[str, Any]],
                **extra: Any) -> dict[str, Any]:
    """A record in the layout of CONTRACT §1 (``orders`` e.g. from
    ``LOOT_ISLAND.setup_orders(events)``; ``extra`` fields are appended)."""
    return {
        "game": "loot-island",
        "players": list(players),
        "options": {"events": bool(options.get("events", True)),
                    "min_cards": options.get("min_cards")},
        "seed": seed,
        "orders": {k: [list(x) if isinstance(x, list) else x for x in v]
                   for k, v in orders.items()},
        "actions": [a.to_dict() if isinstance(a, Message) else dict(a) for a in actions],
        **extra,
    }
