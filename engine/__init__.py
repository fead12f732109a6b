"""Pure rules engines of the service: the generic game interface and the games."""

from engine.game import Codec, Game, GameResult, IllegalAction, Message, RecordError, Viewer

__all__ = ["DEFAULT_GAME", "GAMES", "Codec", "Game", "GameResult", "IllegalAction", "Message",
           "RecordError", "Viewer", "default_game", "get_game", "record_game"]


def get_game(name: str) -> Game:
    """The game registered under ``name``; raises ``KeyError`` for an unknown game."""
    return GAMES[name]


def default_game() -> Game:
    """The game a caller means when it names none (``DEFAULT_GAME``: the first game of
    the service, and a record without a ``game`` field is one of it)."""
    return GAMES[DEFAULT_GAME]


def record_game(record: object) -> Game:
    """The game of a record (its ``game`` field; absent: ``DEFAULT_GAME``, CONTRACT-einauge
    §1). Raises ``RecordError`` (index ``None``) for a record that is no object or names
    no registered game."""
    from collections.abc import Mapping

    if not isinstance(record, Mapping):
        raise RecordError(None, "a record is a JSON object")
    name = record.get("game", DEFAULT_GAME)
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

DEFAULT_GAME = EINAUGE.name
