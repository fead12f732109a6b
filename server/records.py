"""Game records per game (CONTRACT §1): which function writes a game's record.

A record is the game's business (its format lives with its rules); the server only looks
the writer up by the game's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.einauge.record import RecordError
from engine.einauge.record import make_record as einauge_record
from engine.einauge.record import replay_record as einauge_replay

WRITERS: dict[str, Callable[..., dict[str, Any]]] = {"einauge": einauge_record}
REPLAYERS: dict[str, Callable[[Mapping[str, Any]], tuple[Any, list[Any]]]] = {
    "einauge": einauge_replay}


def make_record(game: str, players: Sequence[str], options: Mapping[str, Any], seed: str,
                deck: Sequence[str], actions: Sequence[Mapping[str, Any]],
                **extra: Any) -> dict[str, Any]:
    """The record of a finished game of ``game``; raises ``KeyError`` for a game without
    a record writer."""
    return WRITERS[game](players, options, seed, deck, actions, **extra)


def replay(record: Any) -> tuple[str, list[Any]]:
    """The game name and every event of a record, replayed by the engine. Raises
    ``RecordError`` (``index``: the failing action, ``None`` for a malformed record)."""
    if not isinstance(record, Mapping):
        raise RecordError(None, "a record is a JSON object")
    game = record.get("game", "einauge")
    replayer = REPLAYERS.get(game) if isinstance(game, str) else None
    if replayer is None:
        raise RecordError(None, f"no game {game!r}; known: {', '.join(REPLAYERS)}")
    _, events = replayer(record)
    return game, events


__all__ = ["RecordError", "make_record", "replay"]
