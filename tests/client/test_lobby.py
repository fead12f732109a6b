"""The lobby and the table's seating in the browser: creating a table with options (by
keyboard), the table list, seats and bots, language switching, and a phone-sized screen."""

from __future__ import annotations

import json
import re

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import api, as_host, seed_storage, shot
from tests.conftest import ServerProcess


def test_create_a_table_with_options_by_keyboard(page: Page, web: ServerProcess) -> None:
    page.goto(web.url + "/")
    page.get_by_test_id("table-name").focus()
    page.keyboard.type("Keyboard table")
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowUp")  # 4 -> 3 seats
    page.keyboard.press("Tab")
    page.get_by_test_id("end-rule-select").select_option("one_more_turn")
    page.get_by_test_id("color-bonus").focus()
    page.keyboard.press("Space")
    page.get_by_test_id("create-table").focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/table/*")
    table_id = page.url.rsplit("/", 1)[1]
    summary = api(web, "GET", f"/api/tables/{table_id}")
    assert summary["name"] == "Keyboard table"
    assert len(summary["seats"]) == 3
    assert summary["options"] == {"end_rule": "one_more_turn", "color_bonus": True}
    expect(page.get_by_test_id("share-link")).to_have_value(f"{web.url}/table/{table_id}")
    expect(page.get_by_test_id("commitment")).to_have_text(summary["commitment"])


def test_no_clock_is_offered_for_a_private_table_only(page: Page, web: ServerProcess) -> None:
    """Only a private table may go without a clock (docs/protocol.md §5): the form's
    default was "No clock" and a public table silently got the normal clock."""
    page.goto(web.url + "/")
    clock = page.get_by_test_id("time-control-select")
    expect(clock).to_have_value("normal")
    none = clock.locator('option[value="none"]')
    expect(none).to_be_disabled()
    # Where the choice is, the form says why (the clock's description), in both languages.
    hint = page.get_by_test_id("clock-hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("“No clock” needs “Private”")
    expect(clock).to_have_accessible_description(re.compile("No clock.*Private"))
    page.get_by_test_id("lang-de").click()
    expect(hint).to_contain_text("„Ohne Uhr“ geht nur mit „Privat“")
    page.get_by_test_id("lang-en").click()
    page.get_by_test_id("private-table").check()
    expect(none).to_be_enabled()
    expect(clock).to_have_value("none")  # a private table's default, until one is chosen
    clock.select_option("none")
    page.get_by_test_id("private-table").uncheck()
    expect(clock).to_have_value("normal")  # a public table cannot keep "No clock"
    page.get_by_test_id("private-table").check()
    clock.select_option("none")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    tid, key = page.url.rsplit("/", 1)[1].split("#k=")
    summary = api(web, "GET", f"/api/tables/{tid}", headers={"X-Table-Key": key})
    assert summary["private"] is True and summary["time_control"]["kind"] == "none"
    page.goto(web.url + "/")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    summary = api(web, "GET", f"/api/tables/{page.url.rsplit('/', 1)[1]}")
    assert summary["private"] is False
    assert summary["time_control"]["kind"] == "live"
    assert summary["time_control"]["preset"] == "normal"


def test_lobby_lists_tables_and_seats_change_live(browser: Browser, web: ServerProcess) -> None:
    made = api(web, "POST", "/api/tables", json={
        "game": "einauge", "seats": 3, "options": {"end_rule": "round", "color_bonus": False},
        "name": "Harbour"})
    host = {"Authorization": f"Bearer {made['owner_token']}"}  # the creator, not this browser
    api(web, "POST", f"/api/tables/{made['id']}/seats/1/bot", json={"kind": "mcts", "level": 3},
        headers=host)
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    try:
        page = ctx.new_page()
        page.goto(web.url + "/")
        row = page.get_by_test_id(f"table-row-{made['id']}")
        expect(row).to_contain_text("Harbour")
        expect(row).to_contain_text("1/3")
        expect(row).to_contain_text("MCTS bot 2 (level 3)")
        shot(page, "lobby", full_page=False)
        page.get_by_test_id(f"join-{made['id']}").click()
        expect(page.get_by_test_id("seat-name-1")).to_have_text("MCTS bot 2 (level 3)")
        expect(page.get_by_test_id("bot-badge-1")).to_have_text("bot: MCTS (strong) · level 3")
        expect(page.get_by_test_id("waiting-text")).to_have_text(
            "Waiting for the host: take a seat, then the host starts.")
        # Another client takes seat 2: the page shows it without a reload.
        api(web, "POST", f"/api/tables/{made['id']}/join", json={"name": "Ben", "seat": 2})
        expect(page.get_by_test_id("seat-2")).to_contain_text("Ben")
        page.get_by_test_id("name-input").fill("Cem")
        page.get_by_test_id("take-seat-0").click()
        expect(page.get_by_test_id("seat-0")).to_contain_text("Cem")
        # Every seat is filled: the banner says so, and that the host (not this seated
        # player) starts; this browser is offered no host control at all.
        expect(page.get_by_test_id("waiting-text")).to_have_text(
            "All seats are filled: the table's host can start the game.")
        for testid in ("start", "remove-bot-1", "kick-2", "options-form"):
            expect(page.get_by_test_id(testid)).to_have_count(0)
        # The seat survives a reload (token in localStorage) and sent a seed.
        page.reload()
        expect(page.get_by_test_id("leave-seat")).to_be_visible()
        summary = api(web, "GET", f"/api/tables/{made['id']}")
        assert summary["seats"][0]["name"] == "Cem"
        assert len(summary["contributions"][0]) == 64
        # The host removes the bot: the seat is empty here, with no bot button to offer.
        r = httpx.delete(f"{web.url}/api/tables/{made['id']}/seats/1/bot", headers=host)
        assert r.status_code == 200, r.text
        expect(page.get_by_test_id("seat-1")).to_contain_text("empty")
        expect(page.get_by_test_id("add-bot-1")).to_have_count(0)
        expect(page.get_by_test_id("waiting-text")).to_contain_text("Waiting for the host")
        page.get_by_test_id("leave-seat").click()
        expect(page.get_by_test_id("take-seat-0")).to_be_visible()
        assert api(web, "GET", f"/api/tables/{made['id']}")["seats"][0]["kind"] is None
        # Filled by others while this browser neither sits nor created the table: it is
        # told who may start.
        api(web, "POST", f"/api/tables/{made['id']}/seats/0/bot", json={"kind": "random"},
            headers=host)
        api(web, "POST", f"/api/tables/{made['id']}/seats/1/bot", json={"kind": "mcts", "level": 2},
            headers=host)
        expect(page.get_by_test_id("waiting-text")).to_have_text(
            "All seats are filled: the table's host can start the game.")
        expect(page.get_by_test_id("start")).to_have_count(0)
        expect(page.get_by_test_id("start-hint")).to_contain_text("table's host")
        # The same in German, bot names included.
        page.get_by_test_id("lang-de").click()
        expect(page.get_by_test_id("seat-name-0")).to_have_text("Zufalls-Bot 1")
        expect(page.get_by_test_id("seat-name-1")).to_have_text("MCTS-Bot 2 (Stufe 2)")
        expect(page.get_by_test_id("bot-badge-1")).to_have_text("Bot: MCTS (stark) · Stufe 2")
        expect(page.get_by_test_id("waiting-text")).to_contain_text("Alle Plätze sind besetzt")
    finally:
        ctx.close()


def test_language_switch_is_remembered(page: Page, web: ServerProcess) -> None:
    page.goto(web.url + "/")
    expect(page.get_by_test_id("create-table")).to_have_text("Create")
    page.get_by_test_id("lang-de").click()
    expect(page.get_by_test_id("create-table")).to_have_text("Erstellen")
    page.reload()
    expect(page.get_by_test_id("create-table")).to_have_text("Erstellen")
    assert page.evaluate("document.documentElement.lang") == "de"
    page.get_by_test_id("lang-en").click()
    expect(page.get_by_test_id("create-table")).to_have_text("Create")


def test_a_phone_sized_screen_needs_no_sideways_scrolling(browser: Browser,
                                                          web: ServerProcess) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US",
                              is_mobile=True, has_touch=True)
    try:
        page = ctx.new_page()
        page.goto(web.url + "/")
        expect(page.get_by_test_id("create-table")).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390
        page.get_by_test_id("create-table").tap()
        page.wait_for_url("**/table/*")
        expect(page.get_by_test_id("seat-0")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        ctx.close()


def test_seat_cards_keep_their_buttons_at_common_widths(page: Page, web: ServerProcess) -> None:
    """No seat's button spills into the next card (it was covered at 1280 px)."""
    made = api(web, "POST", "/api/tables", json={
        "game": "einauge", "seats": 5, "options": {"end_rule": "round", "color_bonus": False}})
    as_host(page, web, made)  # the bot buttons are the host's
    page.goto(f"{web.url}/table/{made['id']}")
    expect(page.get_by_test_id("add-bot-4")).to_be_visible()
    # Each button lies inside its own card and is what a click at its centre hits.
    check = """() => [...document.querySelectorAll(
            '[data-testid^=add-bot-], [data-testid^=take-seat-]')]
        .filter(b => {
            const li = b.closest('li').getBoundingClientRect(), r = b.getBoundingClientRect();
            b.scrollIntoView({block: 'center'});
            const r2 = b.getBoundingClientRect();
            const hit = document.elementFromPoint(r2.x + r2.width / 2, r2.y + r2.height / 2);
            return r.left < li.left || r.right > li.right || !(hit === b || b.contains(hit)); })
        .map(b => b.dataset.testid)"""
    for lang in ("en", "de"):
        page.get_by_test_id(f"lang-{lang}").click()
        for width in (1024, 1280, 1366, 390):
            page.set_viewport_size({"width": width, "height": 900})
            assert page.evaluate(check) == [], (lang, width)
            assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.get_by_test_id("lang-en").click()
    page.set_viewport_size({"width": 1280, "height": 900})
    page.get_by_test_id("add-bot-2").click()  # Playwright refuses a covered button
    expect(page.get_by_test_id("remove-bot-2")).to_be_visible()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "table-seating", full_page=False)


FOCUSED = "() => document.activeElement && document.activeElement.dataset.testid"


def test_a_bot_choice_survives_a_table_update_before_the_click(page: Page,
                                                               web: ServerProcess) -> None:
    """The seating is redrawn on every table update; a host who picks "greedy" for a seat
    and clicks "add bot" after someone else sat down gets the greedy bot, not the first
    kind of a freshly drawn list (CI saw "Random bot 2" on a loaded machine); a name typed
    before an update is still there after it, its field still focused."""
    page.goto(web.url + "/")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    tid = page.url.rstrip("/").rsplit("/", 1)[1]
    page.get_by_test_id("name-input").fill("Host")  # typed, not yet used
    api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Cem", "seat": 3})
    expect(page.get_by_test_id("seat-name-3")).to_have_text("Cem")  # the seating was redrawn
    expect(page.get_by_test_id("name-input")).to_have_value("Host")
    assert page.evaluate(FOCUSED) == "name-input"
    page.get_by_test_id("take-seat-0").click()
    expect(page.get_by_test_id("leave-seat")).to_be_visible()
    expect(page.get_by_test_id("seat-name-0")).to_have_text("Host")
    page.get_by_test_id("bot-kind-1").select_option("greedy")
    api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Bea", "seat": 2})
    expect(page.get_by_test_id("seat-name-2")).to_have_text("Bea")  # redrawn again
    expect(page.get_by_test_id("bot-kind-1")).to_have_value("greedy")
    page.get_by_test_id("add-bot-1").click()
    expect(page.get_by_test_id("seat-name-1")).to_have_text("Greedy bot 2")


def test_the_hosts_half_typed_option_survives_a_join(page: Page, web: ServerProcess) -> None:
    """The host's options form is kept while the options stay: a number being typed into
    Loot Island's "minimum cards" keeps its text, focus and caret when someone joins (the
    seating is redrawn); a change of the options from elsewhere (the host's other tab)
    still shows."""
    page.goto(web.url + "/")
    page.get_by_test_id("game-select").select_option("loot-island")
    page.get_by_test_id("seats-select").select_option("3")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    tid = page.url.rstrip("/").rsplit("/", 1)[1]
    field = page.get_by_test_id("opt-min-cards")
    expect(field).to_have_value("")  # the game's default
    field.click()
    page.keyboard.type("11")
    page.keyboard.press("ArrowLeft")  # the caret between the two digits
    api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Cem", "seat": 2})
    expect(page.get_by_test_id("seat-name-2")).to_have_text("Cem")  # the seating was redrawn
    expect(field).to_have_value("11")
    assert page.evaluate(FOCUSED) == "opt-min-cards"
    page.keyboard.press("Backspace")  # at the caret: the first 1 goes
    page.keyboard.type("0")
    expect(field).to_have_value("01")
    # Nothing was sent while typing; the value goes when the field is left.
    assert api(web, "GET", f"/api/tables/{tid}")["options"]["min_cards"] is None
    page.keyboard.press("Control+a")
    page.keyboard.type("7")
    page.keyboard.press("Tab")
    page.wait_for_function(f"async () => (await (await fetch('/api/tables/{tid}')).json())"
                           ".options.min_cards === 7")
    expect(field).to_have_value("7")
    # The host's other tab changes the options: this form shows it.
    owner = page.evaluate(f"() => JSON.parse(localStorage.getItem('cardtable.owner.{tid}'))")
    httpx.patch(f"{web.url}/api/tables/{tid}/options", json={"min_cards": 4},
                headers={"Authorization": f"Bearer {owner}"}, timeout=60).raise_for_status()
    expect(field).to_have_value("4")
    expect(page.get_by_test_id("opt-events")).to_be_checked()


def test_a_resigned_seat_offers_no_way_back(browser: Browser, web: ServerProcess) -> None:
    """The lobby offers "Back to my seat" for a table where this browser holds a seat;
    after resigning, the seat is the bot's for good: the row offers to watch."""
    table = api(web, "POST", "/api/tables", json={"seats": 2, "name": "Resigned row"})
    tid = table["id"]
    owner = {"Authorization": f"Bearer {table['owner_token']}"}
    anna = api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Anna"})
    api(web, "POST", f"/api/tables/{tid}/join", json={"name": "Bert"})
    api(web, "POST", f"/api/tables/{tid}/start", headers=owner)
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    try:
        seed_storage(ctx, {f"cardtable.seat.{tid}": json.dumps({**anna, "name": "Anna"})})
        page = ctx.new_page()
        page.goto(web.url + "/")
        expect(page.get_by_test_id(f"return-{tid}")).to_be_visible()
        api(web, "POST", f"/api/tables/{tid}/resign",
            headers={"Authorization": f"Bearer {anna['token']}"})
        # Bert never moves: the game runs on (his normal clock) while the lobby is read.
        page.reload()
        expect(page.get_by_test_id(f"watch-{tid}")).to_be_visible()
        expect(page.get_by_test_id(f"return-{tid}")).to_have_count(0)
        assert api(web, "GET", f"/api/tables/{tid}")["status"] == "running"
    finally:
        ctx.close()
