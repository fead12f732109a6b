"""The replay's counter names the start position (the setup as dealt) "Start": it is not
turn 1, whose end is the next step; both were "Turn 1 of N" before."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from engine import get_game
from engine.bots import RandomBot
from engine.selfplay import play_game
from tests.conftest import ServerProcess


def keltis_record(path: Path) -> Path:
    """A finished 2-seat Keltis game of random bots (seeded), as a record file."""
    game, names, seed = get_game("keltis"), ["Anna", "Ben"], "replay-counter"
    played = play_game(game, names, {}, seed, [RandomBot(f"{seed}/{s}") for s in (0, 1)])
    record = game.make_record(names, {}, seed, game.setup_deck(played.events), played.actions)
    path.write_text(json.dumps(record))
    return path


def test_the_counter_names_the_start(page: Page, web: ServerProcess, tmp_path: Path) -> None:
    page.goto(f"{web.url}/replay")
    page.get_by_test_id("replay-file").set_input_files(str(keltis_record(tmp_path / "k.json")))
    # The server replays the whole record first (a busy CI machine took over 15 s).
    page.wait_for_function("() => window.__cardtable?.total && window.__cardtable.total() > 1",
                           timeout=60_000)
    n = page.evaluate("() => window.__cardtable.total()")
    first_turn = page.evaluate("() => window.__cardtable.turns()[0]")
    assert first_turn[1] > 1  # Keltis deals in events of their own before the first move
    step = page.get_by_test_id("replay-step")
    expect(step).to_have_attribute("data-seq", "1")
    expect(step).to_have_text(f"Start ({n} turns)")
    slider = page.get_by_test_id("replay-slider")
    expect(slider).to_have_attribute("aria-label", f"Start ({n} turns)")
    page.get_by_test_id("replay-next").click()
    expect(step).to_have_attribute("data-seq", str(first_turn[1]))
    expect(step).to_have_text(f"Turn 1 of {n}")
    page.get_by_test_id("replay-next").click()
    expect(step).to_have_text(f"Turn 2 of {n}")
    page.get_by_test_id("replay-first").click()
    expect(step).to_have_text(f"Start ({n} turns)")
    page.get_by_test_id("lang-de").click()
    expect(step).to_have_text(f"Start ({n} Züge)")
    page.get_by_test_id("replay-last").click()
    expect(step).to_have_text(re.compile(rf"^Zug {n} von {n}$"))
