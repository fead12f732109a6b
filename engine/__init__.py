"""Pure rules engines of the service: the generic game interface and the games."""

from engine.game import Codec, Game, GameResult, IllegalAction, Message, RecordError, Viewer

__all__ = ["GAMES", "UNNAMED_RECORD_GAME", "Codec", "Game", "GameResult", "IllegalAction",
           "Message", "RecordError", "Viewer", "get_game", "record_game"]

UNNAMED_RECORD_GAME = "einauge"
"""The game of a record without a ``game`` field. Part of the record format, not a default
of the service: Einauge's records came first and did not name their game, and Einauge's
reader takes such a record as its own (``engine/records.py``); every other game's record
must name it (CONTRACT-keltis, CONTRACT-loot-island). The game a table gets when a
request names none is the service's ``default_game`` setting (``server.config``)."""


def get_game(name: str) -> Game:
    """The game registered under ``name``; raises ``KeyError`` for an unknown game."""
    return GAMES[name]


def record_game(record: object) -> Game:
    """The game of a record (its ``game`` field; absent: ``UNNAMED_RECORD_GAME``, Einauge's
    records of CONTRACT-einauge §1). Raises ``RecordError`` (index ``None``) for a record
    that is no object or names no registered game."""
    from collections.abc import Mapping

    if not isinstance(record, Mapping):
        raise RecordError(None, "a record is a JSON object")
    name = record.get("game", UNNAMED_RECORD_GAME)
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise RecordError(None, f"no game {name!r}; known: {', '.join(GAMES)}")
    return game


from engine.einauge import EINAUGE  # noqa: E402  (the registry needs the interface first)
from engine.keltis import KELTIS  # noqa: E402
from engine.loot_island import LOOT_ISLAND  # noqa: E402

GAMES: dict[str, Game] = {EINAUGE.name: EINAUGE, KELTIS.name: KELTIS,
                          LOOT_ISLAND.name: LOOT_ISLAND}
"""Every game of the service by name: the one place a game is registered."""
