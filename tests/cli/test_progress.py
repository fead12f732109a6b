"""The long commands' progress bars (cli/progress.py): on a terminal, stderr shows the
count, the rate and the time left; piped, nothing but the summary is printed."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

COMMANDS = {
    "selfplay": ["selfplay", "--players", "3", "--games", "4", "--seed", "p"],
    "tournament": ["tournament", "--bots", "random,greedy", "--players", "2", "--games", "3",
                   "--seed", "p"],
}


def on_terminal(args: list[str]) -> tuple[str, str]:
    """Run ``cardtable args`` with stderr on a pseudo-terminal; (stdout, terminal text)."""
    master, slave = pty.openpty()
    # 24 rows of 100 columns, as a terminal window has (a new pty has none: 0 columns).
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:  # until the child closes the terminal (it exited)
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: no writer left
            break
        if not chunk:
            break
        seen += chunk
    out = proc.stdout.read().decode() if proc.stdout else ""
    assert proc.wait(timeout=300) == 0, seen
    os.close(master)
    return out, seen.decode(errors="replace")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_bar_on_a_terminal_quiet_when_piped(name: str) -> None:
    args = COMMANDS[name]
    total = args[args.index("--games") + 1]
    out, terminal = on_terminal(args)
    assert f"{total}/{total}" in terminal  # the count
    assert "game/s" in terminal or "s/game" in terminal  # the rate
    assert "<" in terminal  # elapsed<left
    assert "games:" in out or "game:" in out  # the summary, on stdout
    piped = subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, capture_output=True,
                           text=True, timeout=300)
    assert piped.returncode == 0
    assert piped.stderr == ""
    # The same summary (its timings aside: the first line names the run).
    assert piped.stdout.splitlines()[0] == out.splitlines()[0]
    assert len(piped.stdout.splitlines()) == len(out.splitlines())


def test_analyse_of_many_records_counts_records(tmp_path: Path) -> None:
    """Two short records (the first actions of a self-play game: a record need not be
    finished to be analysed): one JSON line each, and a bar of records on a terminal."""
    subprocess.run([sys.executable, "-m", "cli", "selfplay", "--game", "keltis", "--players",
                    "2", "--games", "1", "--seed", "p", "--records", str(tmp_path)],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    record = json.loads((tmp_path / "game-00000.json").read_text())
    files = []
    for n in (3, 5):
        path = tmp_path / f"short-{n}.json"
        path.write_text(json.dumps({**record, "actions": record["actions"][:n]}))
        files.append(str(path))
    args = ["analyse", *files, "--json", "--budget-ms", "4"]
    out, terminal = on_terminal(args)
    lines = [json.loads(line) for line in out.splitlines()]
    assert [len(x["decisions"]) for x in lines] == [3, 5]
    assert "2/2" in terminal and "record" in terminal
