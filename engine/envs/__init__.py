"""The games for machine learning: each game as a PettingZoo AEC environment
(``pettingzoo_env``) and as an OpenSpiel game (``openspiel_game``).

The adapters import the engine; nothing in the engine or the service imports them, and
PettingZoo, OpenSpiel and numpy are the ``ml`` extra of pyproject.toml, not the
service's dependencies. The encodings both adapters share (the action tokens, the
observation vectors, the chance deals) are in ``engine.envs.base`` and one module per
game; docs/games.md, "Machine learning", describes them and every decision they needed.
"""

from __future__ import annotations

from typing import Any

from engine.envs.base import Encoding, Match

__all__ = ["ENCODINGS", "Encoding", "Match", "encoding", "openspiel_game", "pettingzoo_env"]


def _encodings() -> dict[str, type[Encoding]]:
    from engine.envs.einauge import EinaugeEncoding
    from engine.envs.keltis import KeltisEncoding
    from engine.envs.loot_island import LootIslandEncoding

    return {c.game.name: c for c in (EinaugeEncoding, KeltisEncoding, LootIslandEncoding)}


ENCODINGS: dict[str, type[Encoding]] = _encodings()
"""The encoding class of each game, by the game's registry name."""


def encoding(game: str, players: int) -> Encoding:
    """The encodings of ``game`` (a name of ``engine.GAMES``) at ``players`` seats.
    Raises ``KeyError`` for an unknown game, ``ValueError`` for a player count outside
    the game's range."""
    if game not in ENCODINGS:
        raise KeyError(f"no game {game!r}; known: {', '.join(ENCODINGS)}")
    return ENCODINGS[game](players)


def pettingzoo_env(game: str, players: int, seed: int | None = None,
                   render_mode: str | None = None) -> Any:
    """A PettingZoo AEC environment of ``game`` at ``players`` seats
    (``engine.envs.pettingzoo.CardtableEnv``); ``seed`` seeds the games of resets that
    name no seed. Raises ``KeyError``/``ValueError`` as ``encoding``."""
    from engine.envs.pettingzoo import CardtableEnv

    return CardtableEnv(encoding(game, players), seed=seed, render_mode=render_mode)


def openspiel_game(game: str, players: int) -> Any:
    """``game`` at ``players`` seats as a ``pyspiel.Game``, registered with OpenSpiel as
    ``python_cardtable_<game>`` (``engine.envs.openspiel``). Raises
    ``KeyError``/``ValueError`` as ``encoding``."""
    from engine.envs.openspiel import load

    return load(encoding(game, players))
