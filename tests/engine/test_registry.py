"""The game registry and the Game protocol: every registered game offers every member the
server, the CLI and the bots call, and the generic callers work for each game (the rules,
views and records of every game at every seat count: tests/engine/test_conformance.py)."""

from __future__ import annotations

import json

import pytest

from engine import GAMES, UNNAMED_RECORD_GAME, get_game, record_game
from engine.bots import kinds, make_bot
from engine.game import Game

MEMBERS = [name for name in Game.__dict__ if not name.startswith("_")] + list(
    Game.__annotations__)


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_has_every_protocol_member(name: str) -> None:
    game = get_game(name)
    missing = [m for m in MEMBERS if not hasattr(game, m)]
    assert missing == [] and game.name == name
    assert 1 <= game.min_players <= game.max_players
    assert game.options_schema["type"] == "object"
    json.dumps(game.options_schema)  # the lobby sends it as JSON
    assert next(iter(game.bots())) == "random"


def test_record_game() -> None:
    # A record naming no game is Einauge's (the format: Einauge's records came first), not
    # whatever the service's default game is.
    assert UNNAMED_RECORD_GAME == "einauge"
    assert record_game({"players": []}) is get_game("einauge")


@pytest.mark.parametrize("name", list(GAMES))
def test_options_are_checked_by_the_game(name: str) -> None:
    game = get_game(name)
    defaults = game.check_options({}, game.min_players)
    assert game.check_options(None, game.min_players) == defaults
    for bad in ({"no_such_option": 1}, [("a", 1)], "round"):
        with pytest.raises(ValueError):
            game.check_options(bad, game.min_players)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        game.check_options({}, game.max_players + 1)
    schema_keys = set(game.options_schema["properties"])
    assert set(defaults) <= schema_keys


def test_einauge_options_as_before() -> None:
    game = get_game("einauge")
    assert game.check_options({}, 3) == {"end_rule": "round", "color_bonus": False}
    with pytest.raises(ValueError):
        game.check_options({"end_rule": "x"}, 3)
    with pytest.raises(ValueError):
        game.check_options({"color_bonus": 1}, 3)
    with pytest.raises(ValueError, match="records only"):  # a table's colors: its shuffle
        game.check_options({"removed_colors": ["blue", "red"]}, 3)


@pytest.mark.parametrize("name", list(GAMES))
def test_bots_by_game(name: str) -> None:
    game = get_game(name)
    assert set(kinds(name)) == set(game.bots())
    for kind in kinds(game):
        bot = make_bot(kind, "s", game=name, **({"iterations": 5} if kind == "mcts" else {}))
        players = [f"p{i}" for i in range(game.min_players)]
        state = game.replay(game.start(players, {}, "b"))
        seat = game.to_move(state)[0]
        assert bot.choose(game, state, seat) in game.legal_actions(state, seat)
    with pytest.raises(ValueError):
        make_bot("psychic", game=name)


def test_no_caller_imports_a_game_by_name() -> None:
    """server/, cli/, engine/bots/ and the generic engine modules (every engine/*.py but
    the registry's ``__init__``) reach games only through the registry (``engine.GAMES``):
    no import of a game's package."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [p for d in ("server", "cli", "engine/bots") for p in (root / d).rglob("*.py")]
    files += [p for p in (root / "engine").glob("*.py") if p.name != "__init__.py"]
    offenders = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            offenders += [f"{path.relative_to(root)}: {n}" for n in names
                          if any(n == f"engine.{g}" or n.startswith(f"engine.{g}.")
                                 for g in GAMES)]
    assert offenders == []
