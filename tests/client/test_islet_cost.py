"""The islet cost shown follows the event in force: Event A06 makes it any 2 map cards, not
2 of one color (RULES-loot-island "Events"). The engine states the cost per event in the
game's catalogue (``islet_cost``, as ``check_islet`` applies it); the page looks it up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from engine import get_game
from engine.bots import RandomBot
from tests.conftest import ServerProcess


def record_with_event(path: Path, first: str) -> Path:
    """A 2-seat Loot Island game with events whose A event in force in round 1 is
    ``first``, its first 6 decisions made by seeded random bots, as a record file."""
    game, names, seed = get_game("loot-island"), ["Anna", "Ben"], "islet-cost"
    orders: dict[str, Any] = game.setup_deck(game.start(names, {"events": True}, seed))
    orders["events_a"] = [first, *(e for e in orders["events_a"] if e != first)]
    state = game.replay(game.start(names, {"events": True}, seed, orders))
    bots = [RandomBot(f"{seed}/{s}") for s in (0, 1)]
    actions = []
    for _ in range(6):
        seat = game.to_move(state)[0]
        action = bots[seat].choose(game, state, seat)
        actions.append(action)
        game.play(state, action)
    record = game.make_record(names, {"events": True}, seed, orders, actions)
    path.write_text(json.dumps(record))
    return path


def test_the_catalogue_states_the_cost_per_event() -> None:
    costs = get_game("loot-island").catalogue()["islet_cost"]
    assert costs["none"] == {"cards": 2, "one_colour": True}
    assert costs["event-a06"] == {"cards": 2, "one_colour": False}
    assert costs["event-b07"] is None  # no islet may be used
    assert costs["event-a01"] == costs["none"]


@pytest.mark.parametrize(("event", "en", "de"), [
    ("event-a06", "costs any 2 map cards (event)", "kostet 2 beliebige Schatzkarten (Ereignis)"),
    ("event-a01", "costs 2 map cards of one color", "kostet 2 Schatzkarten einer Farbe")])
def test_the_islet_cost_shown_follows_the_event(page: Page, web: ServerProcess, tmp_path: Path,
                                                event: str, en: str, de: str) -> None:
    page.goto(f"{web.url}/replay")
    page.get_by_test_id("replay-file").set_input_files(
        str(record_with_event(tmp_path / "li.json", event)))
    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("board")).to_be_visible()
    assert page.evaluate("() => window.__cardtable.view().event") == event
    heading = page.get_by_test_id("islets").locator("h2")
    expect(heading).to_have_text(f"Islets · {en}")
    page.get_by_test_id("lang-de").click()
    expect(heading).to_have_text(f"Eilande · {de}")


