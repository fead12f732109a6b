"""``cardtable analyse RECORD --json`` against its contract, on records of every game.

Each record is a game the engine's bots played (greedy, two seats, to keep it short), with
one deliberately bad move: at the first decision where the worst legal action leaves the
mover at least the game's mistake threshold behind the best one (Keltis, whose moves are
closer: its inaccuracy threshold), by the game's own estimate averaged over a few samples
of the seat's observation (not the analysis' search), the worst action is played. The record
is written as the service writes one (``server.table.records.make_record``, with a seed)
and analysed by the command in a subprocess with a small budget, twice.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import get_game
from engine.analysis import GAMES, marks
from engine.bots.registry import make_bot
from server.table.records import make_record

ROOT = Path(__file__).resolve().parents[2]
BUDGET = "4"
"""ms per decision: the smallest work (a few search iterations, two samples)."""
BAD_BEFORE = 60
JUDGE_SAMPLES = 16
"""The bad move is sought among the first actions only."""


def _estimate(game_name: str, game: Any, state: Any, seat: int, action: Any) -> float:
    """The mover's expected points after ``action``: the game's estimate after the move,
    averaged over ``JUDGE_SAMPLES`` samples of what the seat knows."""
    obs = game.observation(state, seat)
    total = 0.0
    for k in range(JUDGE_SAMPLES):
        s = game.sample(obs, random.Random(f"judge:{k}"))
        game.play(s, action)
        total += GAMES[game_name].points(s)[seat]
    return total / JUDGE_SAMPLES


def play_record(game_name: str, seed: str, bad_move: bool = True
                ) -> tuple[dict[str, Any], int]:
    """A finished two-seat game of greedy bots with one bad move (unless ``bad_move`` is
    false), as the service writes its record; and the index of the bad move (-1: none)."""
    game = get_game(game_name)
    players = ["Ann", "Bob"]
    options = game.check_options({}, 2)
    events = list(game.start(players, options, seed))
    state = game.replay(events)
    bots = [make_bot("greedy", f"{seed}:{i}", game=game) for i in range(2)]
    actions = []
    bad = -1
    threshold = marks(game_name)[1] if game_name != "keltis" else marks(game_name)[0]
    while game.to_move(state):
        seat = game.to_move(state)[0]
        action = bots[seat].choose(game, state, seat)
        if bad_move and bad < 0 and len(actions) < BAD_BEFORE:
            legal = game.legal_actions(state, seat)
            if 1 < len(legal) <= 20:
                scored = [(_estimate(game_name, game, state, seat, a), i)
                          for i, a in enumerate(legal)]
                if max(scored)[0] - min(scored)[0] >= threshold:
                    action = legal[min(scored)[1]]
                    bad = len(actions)
        actions.append(action.to_dict())
        events.extend(game.play(state, action))
    record = make_record(game_name, players, options, seed, game.setup_deck(events), actions,
                         result=game.result(state))
    return record, bad


def analyse(path: Path) -> tuple[dict[str, Any], str]:
    out = subprocess.run([sys.executable, "-m", "cli", "analyse", str(path), "--json",
                          "--budget-ms", BUDGET], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # no progress bar when stderr is not a terminal
    return json.loads(out.stdout), out.stdout


@pytest.mark.parametrize("game_name", ["einauge", "keltis", "loot-island"])
def test_analyse_meets_its_contract(game_name: str, tmp_path: Path) -> None:
    record, bad = play_record(game_name, f"analyse-{game_name}")
    assert bad >= 0, "no decision with a clearly bad move in the first actions"
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    result, text = analyse(path)
    assert set(result) == {"decisions", "luck"}
    decisions = result["decisions"]
    assert [d["index"] for d in decisions] == list(range(len(record["actions"])))
    game = get_game(game_name)
    state = game.replay(game.start(record["players"], record["options"], record["seed"],
                                   record[game.deck_field]))
    for d, action in zip(decisions, record["actions"], strict=True):
        assert set(d) == {"index", "seat", "action", "best", "loss"}
        assert d["action"] == action
        assert d["seat"] == action["seat"]
        assert d["loss"] >= 0
        if d["loss"] == 0:
            assert d["best"] == d["action"]
        else:
            assert d["best"] != d["action"]
            # best is a legal action of that seat then, in the record's format
            legal = [a.to_dict() for a in game.legal_actions(state, d["seat"])]
            assert d["best"] in legal
        if len(game.legal_actions(state, d["seat"])) == 1:
            assert d["loss"] == 0  # forced
        game.play(state, game.actions.decode(action))
    assert decisions[bad]["loss"] > 0, decisions[bad]
    assert len(result["luck"]) == len(record["players"])
    assert all(isinstance(x, int | float) for x in result["luck"])
    _, again = analyse(path)
    assert again == text  # deterministic for a record and a budget


def test_analyse_refuses_bad_input(tmp_path: Path) -> None:
    record, _ = play_record("keltis", "analyse-bad", bad_move=False)
    record["actions"][3] = {"type": "lay", "seat": 0, "card": "nope", "row": "green"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    out = subprocess.run([sys.executable, "-m", "cli", "analyse", str(path), "--json"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "action 3" in out.stderr and out.stdout == ""
    out = subprocess.run([sys.executable, "-m", "cli", "analyse", str(tmp_path / "none.json")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "cannot read" in out.stderr
    out = subprocess.run([sys.executable, "-m", "cli", "analyse", str(path),
                          "--budget-ms", "0"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and "budget" in out.stderr


def test_table_without_json(tmp_path: Path) -> None:
    record, _ = play_record("einauge", "analyse-table", bad_move=False)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = subprocess.run([sys.executable, "-m", "cli", "analyse", str(path), "--budget-ms",
                          BUDGET], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(str(path))
    assert sum(1 for line in lines if line.split()[:1] == ["0"]) == 1
    assert lines[-1].startswith("Bob") and lines[-2].startswith("Ann")
