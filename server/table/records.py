"""Game records (CONTRACT §1 of each game): written and replayed by the record's game.

A record is the game's business (its format lives with its rules); the server only looks
the game up by name (``engine.get_game``, or the record's ``game`` field).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine import get_game, record_game
from engine.game import RecordError


def make_record(game: str, players: Sequence[str], options: Mapping[str, Any], seed: str,
                deck: Sequence[str], actions: Sequence[Mapping[str, Any]],
                **extra: Any) -> dict[str, Any]:
    """The record of a finished game of ``game`` (``Game.make_record``); raises
    ``KeyError`` for an unknown game."""
    return get_game(game).make_record(players, options, seed, deck, actions, **extra)


def replay(record: Any) -> tuple[str, list[Any]]:
    """The game name and every event of a record, replayed by the engine. Raises
    ``RecordError`` (``index``: the failing action, ``None`` for a malformed record)."""
    game = record_game(record)
    _, events = game.replay_record(record)
    return game.name, events


__all__ = ["RecordError", "make_record", "replay"]
