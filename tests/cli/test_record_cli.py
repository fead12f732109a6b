"""``cardtable record play`` and ``cardtable selfplay --records`` (CONTRACT sections 1 and 3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from engine.bots import RandomBot
from engine.einauge import EINAUGE
from engine.selfplay import play_game

make_record = EINAUGE.make_record

ROOT = Path(__file__).resolve().parents[2]


def _record(tmp_path: Path, seed: str = "cli", n: int = 3) -> tuple[Path, dict, dict]:
    g = play_game(EINAUGE, [f"p{i}" for i in range(n)], {}, seed,
                  [RandomBot(f"{seed}/{s}") for s in range(n)])
    record = make_record(g.players, g.options, g.seed, EINAUGE.setup_deck(g.events), g.actions)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return path, record, EINAUGE.public_view(g.state)


def test_record_play_prints_the_public_view(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path, _, view = _record(tmp_path)
    assert main(["record", "play", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n") == 1 and json.loads(out) == view and err == ""


def test_record_play_subprocess(tmp_path: Path) -> None:
    path, record, view = _record(tmp_path, seed="sub")
    run = subprocess.run([sys.executable, "-m", "cli", "record", "play", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == view
    # standard input, an unfinished record
    record["actions"] = record["actions"][:5]
    run = subprocess.run([sys.executable, "-m", "cli", "record", "play", "-"], cwd=ROOT,
                         input=json.dumps(record), capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and json.loads(run.stdout)["phase"] == "turns"


def test_a_reader_that_goes_away_ends_it_quietly(tmp_path: Path) -> None:
    """``record play FILE | head -c 10``: the pipe closes before the view is written; the
    command stops with 141 (128 + SIGPIPE) and no traceback."""
    path, _, _ = _record(tmp_path, seed="pipe")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "record", "play", str(path)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and err == "", err


def test_illegal_action_exits_nonzero_and_names_index(tmp_path: Path) -> None:
    path, record, _ = _record(tmp_path, seed="bad")
    index = next(i for i, a in enumerate(record["actions"]) if i >= 9 and "card" in a)
    record["actions"][index]["card"] = "blue-99"
    path.write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-m", "cli", "record", "play", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert run.stdout == ""
    assert f"action {index}:" in run.stderr and "unknown_card" in run.stderr


@pytest.mark.parametrize("text", ["{not json", json.dumps({"players": ["a"], "seed": "x"})])
def test_unreadable_or_malformed_record(tmp_path: Path, text: str,
                                        capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    assert main(["record", "play", str(path)]) != 0
    out, err = capsys.readouterr()
    assert out == "" and err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["record", "play", str(tmp_path / "nope.json")]) != 0
    out, err = capsys.readouterr()
    assert out == "" and "nope.json" in err


@pytest.mark.parametrize("extra", [[], ["--end-rule", "one_more_turn", "--color-bonus"]])
def test_selfplay_records_replay_with_and_without_deck(
        tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str]) -> None:
    folder = tmp_path / "records"
    assert main(["selfplay", "--players", "3", "--games", "4", "--seed", "rs",
                 "--records", str(folder), *extra]) == 0
    summary = capsys.readouterr().out
    assert "games/s" in summary and "win share" in summary
    files = sorted(folder.glob("*.json"))
    assert len(files) == 4
    options = {"end_rule": "round", "color_bonus": False}
    if extra:
        options = {"end_rule": "one_more_turn", "color_bonus": True}
    for i, f in enumerate(files):
        record = json.loads(f.read_text())
        assert record["options"] == options and record["seed"] == f"rs-{i}"
        seed = record["seed"]
        expected = EINAUGE.public_view(play_game(
            EINAUGE, record["players"], options, seed,
            [RandomBot(f"{seed}/{s}") for s in range(3)]).state)
        assert main(["record", "play", str(f)]) == 0
        assert json.loads(capsys.readouterr().out) == expected
        del record["deck"]
        f.write_text(json.dumps(record))
        assert main(["record", "play", str(f)]) == 0
        view = json.loads(capsys.readouterr().out)
        assert view == expected and view["phase"] == "ended"
