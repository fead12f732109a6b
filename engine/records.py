"""Game records (CONTRACT §1 of each game): write, replay and view, for every game.

A record is a plain dict as JSON gives it: ``game``, ``players``, ``options``, ``seed``,
the dealt cards under the game's ``deck_field`` (``deck``, or Loot Island's ``orders``),
``actions`` in order, optionally ``seat_changes`` (engine/seat_control.py), and any other
fields (CONTRACT: "add fields freely"; replaying ignores them). Replaying one rebuilds
every event, so a record is checked against the rules action by action.

The layout is the same for every game; what differs is what a game says about itself:
its ``name``, ``deck_field``, how its options and dealt cards are written
(``record_options``, ``record_deck``) and whether a record without ``game`` is one of it
(``records_without_game``: Einauge, CONTRACT-einauge §1). ``engine.base.GameBase`` binds
these functions as the game's ``make_record``, ``replay_record`` and ``record_view``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from engine import seat_control
from engine.game import Codec, IllegalAction, Message, RecordError, Viewer


class RecordedGame(Protocol):
    """What the record functions read of a game (``engine.base.GameBase`` has it all)."""

    name: str
    actions: Codec
    deck_field: str
    records_without_game: bool

    def start(self, players: Sequence[str], options: Mapping[str, Any] | None, seed: str,
              deck: Any = None) -> list[Message]: ...

    def replay(self, events: Sequence[Message]) -> Any: ...

    def play(self, state: Any, action: Message) -> list[Message]: ...

    def public_view(self, state: Any, viewer: Viewer = None) -> dict[str, Any]: ...

    def record_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]: ...

    def record_deck(self, deck: Any) -> Any: ...


def make_record(game: RecordedGame, players: Sequence[str], options: Mapping[str, Any] | None,
                seed: str | None, deck: Any, actions: Sequence[Message | Mapping[str, Any]],
                **extra: Any) -> dict[str, Any]:
    """A record in the layout of CONTRACT §1: ``game``, ``players``, ``options`` (as the
    game writes them, ``record_options``), ``seed``, the dealt cards under ``deck_field``
    (``record_deck``: e.g. ``setup_deck(events)``), ``actions`` in their wire form, then
    the ``extra`` fields in their order."""
    return {
        "game": game.name,
        "players": list(players),
        "options": game.record_options(options),
        "seed": seed,
        game.deck_field: game.record_deck(deck),
        "actions": [a.to_dict() if isinstance(a, Message) else dict(a) for a in actions],
        **extra,
    }


def replay_record(game: RecordedGame, record: Any) -> tuple[Any, list[Message]]:
    """Set ``game`` up from ``record`` and apply its actions in order.

    ``seat_changes`` (optional, engine/seat_control.py) are placed before the action
    their ``before_action`` names. Returns the final state and every event (the
    seat-control ones included, in stream order). Raises ``RecordError``: ``index=None``
    for a malformed record (not an object, another game, bad players, options, seed, dealt
    cards, actions list or seat_changes), otherwise the index of the first action that is
    malformed (``bad_message``/``bad_action``) or illegal, with the engine's code and
    message.
    """
    if not isinstance(record, Mapping):
        raise RecordError(None, "a record is a JSON object")
    name = record.get("game", game.name) if game.records_without_game else record.get("game")
    if name != game.name:
        raise RecordError(None, f"not a {game.name} record: game is {record.get('game')!r}")
    seed = record.get("seed")
    if seed is not None and not isinstance(seed, str):
        raise RecordError(None, "seed must be a string")
    actions = record.get("actions", [])
    if not isinstance(actions, Sequence) or isinstance(actions, str | bytes):
        raise RecordError(None, "actions must be a list")
    players = record.get("players")
    try:
        events = game.start(players, record.get("options"), seed,  # type: ignore[arg-type]
                            record.get(game.deck_field))
    except ValueError as e:
        raise RecordError(None, str(e)) from None
    state = game.replay(events)
    try:
        changes = seat_control.parse_changes(record.get("seat_changes"), len(actions),
                                             len(players or ()))
    except ValueError as e:
        raise RecordError(None, str(e)) from None
    decode, play = game.actions.decode, game.play

    def step(i: int) -> list[Message]:
        try:
            return play(state, decode(actions[i]))
        except IllegalAction as e:
            raise RecordError(i, f"{e.code}: {e.message}") from None
        except (TypeError, ValueError) as e:
            raise RecordError(i, f"bad_action: {e}") from None

    # The service's seat changes sit among the game's events as stored: they change no
    # game state, but the chain covers them (docs/fairness.md).
    events.extend(seat_control.interleave(changes, len(actions), step))
    return state, events


def record_view(game: RecordedGame, record: Any, seat: Any = None) -> dict[str, Any]:
    """What ``record play FILE [--seat N]`` prints (CONTRACT §3): the game's
    ``public_view`` of ``seat`` (``None``: a spectator) after replaying ``record``. Raises
    ``RecordError`` as ``replay_record`` does, and for a seat not at the table (``index``
    ``None``)."""
    state, _ = replay_record(game, record)
    seats = len(record["players"])
    if seat is not None and (type(seat) is not int or not 0 <= seat < seats):
        raise RecordError(None, f"seat must be 0..{seats - 1}, not {seat!r}")
    return game.public_view(state, seat)
