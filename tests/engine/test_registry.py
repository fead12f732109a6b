"""The game registry and the Game protocol: every registered game offers every member the
server, the CLI and the bots call, and the generic callers work for each game."""

from __future__ import annotations

import json
import random

import pytest

from engine import GAMES, UNNAMED_RECORD_GAME, RecordError, get_game, record_game
from engine.bots import SEARCH_KINDS, RandomBot, kinds, make_bot
from engine.game import Game
from engine.selfplay import play_game

DECK_GAMES = ("einauge", "keltis")
"""Games dealt from one shuffled deck (``Game.shuffled_deck``); Loot Island deals eight
lists."""

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
    assert record_game({"game": "keltis"}) is get_game("keltis")
    for bad in ({"game": "chess"}, {"game": ["keltis"]}, [], "keltis"):
        with pytest.raises(RecordError) as e:
            record_game(bad)
        assert e.value.index is None


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
def test_generic_record_round_trip(name: str) -> None:
    """selfplay → make_record → replay_record / record_view / shuffled_deck, by name only."""
    game = get_game(name)
    n = game.min_players + 1
    players = [f"p{i}" for i in range(n)]
    options = game.check_options({}, n)
    played = play_game(game, players, options, "reg", [RandomBot(f"r{s}") for s in range(n)])
    deck = game.setup_deck(played.events)
    if name in DECK_GAMES:
        assert deck == game.shuffled_deck(n, options, "reg")
    else:  # named setup lists (Loot Island's eight); the reshuffles are not among them
        want = game.shuffled_deck(n, options, "reg")
        assert isinstance(want, dict) and want == {k: v for k, v in deck.items()
                                                   if k != "map_reshuffles"}
    assert game.deck_field in ("deck", "orders")
    record = json.loads(json.dumps(game.make_record(players, options, "reg", deck,
                                                    played.actions)))
    assert record["game"] == name and record_game(record) is game
    state, events = game.replay_record(record)
    # Loot Island's game_started also lists the reshuffles a record gives (its orders).
    first = 0 if name in DECK_GAMES else 1
    assert [e.to_dict() for e in events[first:]] == [e.to_dict() for e in played.events[first:]]
    assert game.result(state) == game.result(played.state) is not None
    assert game.record_view(record) == game.public_view(played.state)
    assert game.record_view(record, 1) == game.public_view(played.state, 1)
    with pytest.raises(RecordError):
        game.record_view(record, n)


@pytest.mark.parametrize("name", list(GAMES))
def test_observation_and_sample(name: str) -> None:
    game = get_game(name)
    state = game.replay(game.start(["a", "b", "c"], {}, "obs"))
    rng = random.Random(1)
    for _ in range(10):
        seat = game.to_move(state)[0]
        obs = game.observation(state, seat)
        assert obs.seat == seat
        if SEARCH_KINDS & set(game.bots()):  # its search bots read the legal actions
            assert list(obs.legal) == game.legal_actions(state, seat)
        sampled = game.sample(obs, rng)
        assert game.observation(sampled, seat) == obs  # consistent with what the seat knows
        game.play(state, rng.choice(game.legal_actions(state, seat)))


@pytest.mark.parametrize("name", list(GAMES))
def test_bots_by_game(name: str) -> None:
    game = get_game(name)
    assert set(kinds(name)) == set(game.bots())
    for kind in kinds(game):
        bot = make_bot(kind, "s", game=name, **({"iterations": 5} if kind == "mcts" else {}))
        state = game.replay(game.start(["a", "b"], {}, "b"))
        seat = game.to_move(state)[0]
        assert bot.choose(game, state, seat) in game.legal_actions(state, seat)
    with pytest.raises(ValueError):
        make_bot("psychic", game=name)


@pytest.mark.parametrize("name", list(GAMES))
def test_catalogue_lists_every_deck_card(name: str) -> None:
    game = get_game(name)
    json.dumps(game.catalogue())
    if name not in DECK_GAMES:
        return
    cards = game.catalogue()["cards"]
    deck = game.shuffled_deck(game.max_players, game.check_options({}, game.max_players), "c")
    assert set(deck) <= set(cards)


def test_no_caller_imports_a_game_by_name() -> None:
    """server/, cli/, engine/bots/ and the generic engine modules reach games only through
    the registry (``engine.GAMES``): no import of a game's package."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [p for d in ("server", "cli", "engine/bots") for p in (root / d).rglob("*.py")]
    files += [root / "engine" / f for f in ("verify.py", "selfplay.py", "chain.py",
                                             "shuffle.py", "game.py")]
    offenders = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            offenders += [f"{path.relative_to(root)}: {n}" for n in names
                          if any(n == f"engine.{g}" or n.startswith(f"engine.{g}.")
                                 for g in GAMES)]
    assert offenders == []
