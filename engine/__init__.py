"""Pure rules engines of the service: the generic game interface and the games."""

from engine.game import Codec, Game, IllegalAction, Message, Viewer

__all__ = ["GAMES", "Codec", "Game", "IllegalAction", "Message", "Viewer", "get_game"]


def get_game(name: str) -> Game:
    """The game registered under ``name``; raises ``KeyError`` for an unknown game."""
    return GAMES[name]


from engine.einauge import EINAUGE  # noqa: E402  (the registry needs the interface first)
from engine.keltis import KELTIS  # noqa: E402
from engine.loot_island import LOOT_ISLAND  # noqa: E402

GAMES: dict[str, Game] = {EINAUGE.name: EINAUGE, KELTIS.name: KELTIS,
                          LOOT_ISLAND.name: LOOT_ISLAND}
