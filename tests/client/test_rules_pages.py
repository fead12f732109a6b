"""Each game's rules page (/rules/<game>; /rules stays Einauge's) in the browser: a table,
its replay, the top bar and the lobby's game choice link the rules of the game in context;
the page shows that game's rules in English and German, Loot Island's designed numbers as
the engine's data file has them; and Loot Island's replay steps by decision (its views have
no `turn`, CONTRACT-loot-island §3): one step per action of the record."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from engine import GAMES as REGISTRY
from tests.client.conftest import api, failed_load
from tests.conftest import ServerProcess
from tests.waiting import until_sync

GAMES = sorted(REGISTRY)
"""Every registered game (engine.GAMES; the client registers the same names in
client-web/src/games/index.js): each has a rules page linked from its table and replay."""
# A heading of the pages these tests know word for word, English and German
# (RULES-<game>.md's standard terms); any other registered game's page must have a heading
# in each language.
TITLES = {
    "einauge": ("How to play Einauge sei wachsam!", "So spielt man Einauge sei wachsam!"),
    "keltis": ("How to play Keltis: Das Kartenspiel", "So spielt man Keltis: Das Kartenspiel"),
    "loot-island": ("How to play Loot Island", "So spielt man Loot Island"),
}


def bot_table(web: ServerProcess, game: str) -> str:
    """A started 2-seat table of ``game`` with two random bots (they play it to its end)."""
    table: Any = api(web, "POST", "/api/tables", json={"game": game, "seats": 2})
    owner = {"Authorization": f"Bearer {table['owner_token']}"}
    for s in (0, 1):
        api(web, "POST", f"/api/tables/{table['id']}/seats/{s}/bot", json={"kind": "random"},
            headers=owner)
    api(web, "POST", f"/api/tables/{table['id']}/start", headers=owner)
    return table["id"]


def wait_ended(web: ServerProcess, tid: str, timeout: float = 180.0) -> None:
    until_sync(lambda: api(web, "GET", f"/api/tables/{tid}")["status"] == "ended",  # type: ignore[index]
               timeout=timeout, interval=0.5, what=f"table {tid} ended")


def assert_rules_page(page: Page, game: str) -> None:
    """``page`` shows ``game``'s rules page in English, then (switched) in German."""
    en, de = TITLES.get(game, (re.compile(r"\S"), re.compile(r"\S")))
    rules = page.get_by_test_id("rules-page")
    expect(rules).to_have_attribute("data-game", game)
    expect(rules.locator("h1")).to_have_text(en)
    expect(rules).to_have_attribute("lang", "en")
    page.get_by_test_id("lang-de").click()
    expect(rules.locator("h1")).to_have_text(de)
    expect(rules).to_have_attribute("lang", "de")
    page.get_by_test_id("lang-en").click()
    expect(rules.locator("h1")).to_have_text(en)


@pytest.mark.parametrize("game", GAMES)
def test_a_table_and_its_replay_link_their_games_rules_page(
        browser: Browser, web: ServerProcess, game: str) -> None:
    tid = bot_table(web, game)
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    page = ctx.new_page()
    page.goto(f"{web.url}/table/{tid}")
    expect(page.get_by_test_id("table-rules")).to_have_attribute("href", f"/rules/{game}")
    expect(page.get_by_test_id("nav-rules")).to_have_attribute("href", f"/rules/{game}")
    with page.expect_popup() as info:
        page.get_by_test_id("table-rules").click()
    assert_rules_page(info.value, game)
    info.value.close()
    # The replay of the same table, and the top bar's link on it.
    page.goto(f"{web.url}/replay/{tid}")
    expect(page.get_by_test_id("replay-rules")).to_have_attribute("href", f"/rules/{game}")
    expect(page.get_by_test_id("nav-rules")).to_have_attribute("href", f"/rules/{game}")
    with page.expect_popup() as info:
        page.get_by_test_id("replay-rules").click()
    assert_rules_page(info.value, game)
    info.value.close()
    # Off the table the top bar names no game: /rules, the server's default game's page.
    page.goto(f"{web.url}/leaderboard")
    expect(page.get_by_test_id("nav-rules")).to_have_attribute("href", "/rules")
    ctx.close()


def test_the_lobbys_game_choice_picks_its_how_to_and_rules(page: Page, web: ServerProcess) -> None:
    page.goto(web.url + "/")
    expect(page.get_by_test_id("howto-steps")).to_have_attribute("data-game", "einauge")
    expect(page.get_by_test_id("howto-steps")).to_contain_text("pirate table")
    for game, words in (("keltis", "wish stone"), ("loot-island", "landing")):
        page.get_by_test_id("game-select").select_option(game)
        steps = page.get_by_test_id("howto-steps")
        expect(steps).to_have_attribute("data-game", game)
        expect(steps).to_contain_text(words)
        expect(steps).not_to_contain_text("pirate table")
        expect(page.get_by_test_id("lobby-rules")).to_have_attribute("href", f"/rules/{game}")
        expect(page.get_by_test_id("nav-rules")).to_have_attribute("href", f"/rules/{game}")
    seats = api(web, "GET", "/api/games")["games"]  # type: ignore[index]
    li = next(g for g in seats if g["name"] == "loot-island")
    expect(page.get_by_test_id("howto-steps")).to_contain_text(
        f"({li['min_players']}–{li['max_players']} seats)")
    page.get_by_test_id("lobby-rules").click()
    page.wait_for_url("**/rules/loot-island")
    assert_rules_page(page, "loot-island")


# An unknown game's rules page is served with 404 (no soft 404), which the test asserts.
@pytest.mark.page_errors(failed_load(404, "/rules/no-such-game"))
def test_rules_keeps_einauges_page_and_an_unknown_game_has_none(page: Page, web: ServerProcess
                                                                ) -> None:
    page.goto(web.url + "/rules")
    assert_rules_page(page, "einauge")
    expect(page.get_by_test_id("rules-chests")).to_contain_text("7")
    # The other games' pages are one click away.
    page.get_by_test_id("rules-game-keltis").click()
    page.wait_for_url("**/rules/keltis")
    assert_rules_page(page, "keltis")
    page.goto(web.url + "/rules/einauge")
    assert_rules_page(page, "einauge")
    loaded = page.goto(web.url + "/rules/no-such-game")
    assert loaded is not None and loaded.status == 404  # the page, but no soft 404
    expect(page.get_by_test_id("not-found")).to_be_visible()


def test_keltis_rules_in_english_and_german(page: Page, web: ServerProcess) -> None:
    page.goto(web.url + "/rules/keltis")
    rows = page.get_by_test_id("rules-row-points").locator("tbody tr")
    # RULES-keltis "Final scoring": 0 … 8 cards, then 9 or more.
    expect(rows).to_have_count(10)
    expect(rows.nth(1)).to_have_text("1−4")
    expect(rows.nth(9)).to_have_text("9 or more10")
    expect(page.get_by_test_id("rules-stone-points").locator("tbody tr").nth(0)).to_have_text("0−4")
    expect(page.get_by_test_id("rules-sec-end")).to_contain_text("up to 2 more cards")
    expect(page.get_by_test_id("rules-sec-setup")).to_contain_text("30 cards are removed")
    page.get_by_test_id("lang-de").click()
    expect(rows.nth(9)).to_have_text("9 oder mehr10")
    expect(page.get_by_test_id("rules-sec-turn")).to_contain_text("Wunschstein nehmen")
    expect(page.get_by_test_id("rules-sec-end")).to_contain_text("bis zu 2 Karten")


def test_loot_island_rules_show_the_engines_numbers_in_english_and_german(
        page: Page, web: ServerProcess) -> None:
    cat: Any = api(web, "GET", "/api/games/loot-island/cards")
    n = cat["numbers"]
    page.goto(web.url + "/rules/loot-island")
    setup = page.get_by_test_id("rules-setup").locator("tbody tr")
    # The data file's minimum (5 players: 5, where RULES' table says 6).
    expect(setup.nth(0)).to_have_text("Minimum (cards at a landing)"
                                      + "".join(str(n["minimum"][k]) for k in "2345"))
    expect(setup.nth(1)).to_have_text("Hand size" + str(n["hand_size"]) * 4)
    healers = page.get_by_test_id("rules-healers").locator("tbody tr")
    expect(healers).to_have_count(len(cat["healers"]))
    h8 = cat["healers"]["healer-08"]
    expect(healers.nth(7)).to_have_text(f"healer-08{h8['multiplier']} × cubes + {h8['fixed']}")
    events = page.get_by_test_id("rules-events").locator("tbody tr")
    expect(events).to_have_count(len(cat["events"]))
    expect(events.filter(has_text="event-b11")).to_contain_text(
        f"{cat['events']['event-b11']['refill']} cards")
    islets = page.get_by_test_id("rules-islets")
    expect(islets.locator("tbody tr")).to_have_count(len(cat["islets"]))
    expect(islets).to_contain_text(
        f"draw {cat['islet_numbers']['lookout_draw']} map cards")
    scoring = page.get_by_test_id("rules-scoring")
    expect(scoring).to_contain_text(", ".join(f"{i + 1} → {x}" for i, x in enumerate(n["crowns"])))
    expect(scoring).to_contain_text(f"per 3 jewels {n['jewels_triple']}, plus {n['jewels_pair']}")
    expect(page.get_by_test_id("rules-sec-end")).to_contain_text(
        f"{n['elimination_cubes']} or more cubes")
    actions = page.get_by_test_id("rules-map-actions").locator("tbody tr")
    expect(actions.nth(0)).to_contain_text("chest")
    page.get_by_test_id("lang-de").click()
    expect(setup.nth(0)).to_have_text("Mindestzahl (Karten an einer Anlegestelle)"
                                      + "".join(str(n["minimum"][k]) for k in "2345"))
    expect(healers.nth(7)).to_have_text(f"healer-08{h8['multiplier']} × Würfel + {h8['fixed']}")
    expect(page.get_by_test_id("rules-sec-end")).to_contain_text(
        f"{n['elimination_cubes']} oder mehr Fluchwürfel")
    expect(page.get_by_test_id("rules-sec-value-1")).to_contain_text("Allein unter eine Reihe")


# The engine's events that are the result of an action (engine/loot_island/events.py): a
# forced pass, the automatic last healer and islet-wreck's card are not.
def is_action_result(e: dict) -> bool:
    return (e["type"] in {"map_cards_discarded", "map_cards_played", "islet_used", "passed",
                          "loot_taken", "loot_discarded", "healer_chosen"}
            and not e.get("forced") and not e.get("automatic") and not e.get("wreck"))


def test_loot_island_replay_steps_once_per_decision(page: Page, web: ServerProcess) -> None:
    tid = bot_table(web, "loot-island")
    wait_ended(web, tid)
    events: Any = api(web, "GET", f"/api/tables/{tid}/events")
    record: Any = api(web, "GET", f"/api/tables/{tid}/record")
    seqs = [i + 1 for i, e in enumerate(events["events"]) if is_action_result(e)]
    # Each action of the record made exactly one such event.
    assert len(seqs) == len(record["actions"])
    assert len(seqs) < len(events["events"])  # by event there would be more steps
    page.goto(f"{web.url}/replay/{tid}")
    page.wait_for_function("() => window.__cardtable?.total && window.__cardtable?.total() > 0")
    assert page.evaluate("() => window.__cardtable.total()") == len(record["actions"])
    spans = page.evaluate("() => window.__cardtable.turns()")
    # Each step begins at its decision (the first joins the setup events before it), the
    # steps cover every event once, in order.
    assert [first for first, _ in spans[1:]] == seqs[1:]
    assert spans[0][0] == 1 and spans[0][0] <= seqs[0] <= spans[0][1]
    assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(spans))
    assert spans[-1][1] == len(events["events"])
    # Forward from the start: the end of the first step, then the whole second one.
    step = page.get_by_test_id("replay-step")
    if page.get_by_test_id("replay-first").is_enabled():  # the viewer may open at the start
        page.get_by_test_id("replay-first").click()
    expect(step).to_have_attribute("data-seq", "1")
    page.get_by_test_id("replay-next").click()
    expect(step).to_have_attribute("data-seq", str(spans[0][1]))
    expect(step).to_have_attribute("data-step", "1")
    page.get_by_test_id("replay-next").click()
    expect(step).to_have_attribute("data-seq", str(spans[1][1]))
    expect(step).to_have_attribute("data-step", "2")
