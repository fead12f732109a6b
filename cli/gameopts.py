"""``--game`` and the game-option flags shared by ``selfplay`` and ``tournament``.

The flags are generated from every registered game's ``options_schema`` (an enum gives a
``--name`` with choices, a boolean a ``--name`` switch), so a game's options need no CLI
change; the chosen game then checks the given ones (``Game.check_options``) and refuses
the options it does not have.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine import GAMES, Game, get_game
from server import config


def add_game_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--game`` (default: the service's ``default_game`` setting) and the option
    flags."""
    p.add_argument("--game", choices=list(GAMES), default=None,
                   help="the game to play (default: the CARDTABLE_DEFAULT_GAME setting, "
                        "einauge unless set)")
    seen: set[str] = set()
    for game in GAMES.values():
        for key, spec in game.options_schema.get("properties", {}).items():
            if key in seen:
                continue
            flag = "--" + key.replace("_", "-")
            help_ = f"{game.name} option {key}: {spec.get('description', spec.get('title', ''))}"
            if spec.get("type") == "boolean":
                p.add_argument(flag, dest=f"opt_{key}", action="store_true", default=None,
                               help=help_)
            elif "enum" in spec:
                p.add_argument(flag, dest=f"opt_{key}", choices=spec["enum"], default=None,
                               help=help_)
            else:
                continue  # lists and the like: not a command-line option
            seen.add(key)


def named_game(args: argparse.Namespace, prog: str) -> str:
    """``--game``, or when not given the ``default_game`` setting (``server.config``; it is
    put into ``args.game``). Exits with the reason for a bad setting."""
    if args.game is None:
        try:
            args.game = config.from_env().default_game
        except config.SettingsError as e:
            raise SystemExit(f"{prog}: {e}") from None
    return str(args.game)


def chosen(args: argparse.Namespace, players: int, prog: str) -> tuple[Game, dict[str, Any]]:
    """The game of ``--game`` (``named_game``) and its options from the flags given, checked
    by the game (defaults filled in). Exits with the game's reason for a bad option or
    player count."""
    game = get_game(named_game(args, prog))
    given = {k[4:]: v for k, v in vars(args).items() if k.startswith("opt_") and v is not None}
    try:
        return game, game.check_options(given, players)
    except ValueError as e:
        raise SystemExit(f"{prog}: {e}") from None
