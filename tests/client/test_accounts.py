"""Accounts in the browser: sign up, create a rated table against two bots, close the
browser, log in from a fresh browser context and continue the same game from "my games",
finish it, and see the rating change on the profile and on the leaderboard; a guest's seat
kept by the account it signs up with; the turn notification of a live game."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import api, failed_load, shot
from tests.client.test_game import ACT, wait_my_turn_or_end
from tests.conftest import ServerProcess
from tests.server.client import unique
from tests.waiting import until_sync

PASSWORD = "correct horse 1"


def new_page(browser: Browser) -> Page:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    return ctx.new_page()


def sign_up(page: Page, web: ServerProcess, name: str) -> None:
    page.goto(web.url + "/account")
    page.get_by_test_id("to-signup").click()
    page.get_by_test_id("username").fill(name)
    page.get_by_test_id("password").fill(PASSWORD)
    page.get_by_test_id("sign-up").click()
    page.wait_for_url("**/my-games")
    expect(page.get_by_test_id("nav-account")).to_have_text(name)


def log_in(page: Page, web: ServerProcess, name: str, password: str = PASSWORD) -> None:
    page.goto(web.url + "/account")
    page.get_by_test_id("username").fill(name)
    page.get_by_test_id("password").fill(password)
    page.get_by_test_id("log-in").click()


def play(page: Page, rng: random.Random, clicks: int | None = None) -> int:
    """Click random legal actions (a ship's row: the first offered) until the game ends
    or ``clicks`` were made; returns the clicks made."""
    done = 0
    while (clicks is None or done < clicks) and wait_my_turn_or_end(page):
        ids = page.locator(ACT).evaluate_all("els => els.map(e => e.dataset.testid)")
        if not ids:
            continue
        ships = [i for i in ids if "-ship-" in i]
        page.get_by_test_id(ships[0] if ships else rng.choice(ids)).click()
        dialog = page.get_by_test_id("row-choice")
        if dialog.is_visible():
            dialog.locator("[data-testid^='row-opt-']").first.click()
        done += 1
        page.wait_for_function("() => !window.__cardtable.conn.pending")
    return done


def test_a_rated_game_continued_on_a_fresh_browser_changes_the_rating(
        browser: Browser, web: ServerProcess) -> None:
    name = unique("web")
    page = new_page(browser)
    sign_up(page, web, name)
    page.goto(web.url + "/")
    page.get_by_test_id("seats-select").select_option("3")
    page.get_by_test_id("time-control-select").select_option("slow")  # a clock: time left
    page.get_by_test_id("rated-table").check()
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    tid = page.url.rstrip("/").rsplit("/", 1)[1]
    expect(page.get_by_test_id("rated-badge")).to_be_visible()
    # An account sits under its own name: no name field to type into and be ignored.
    expect(page.get_by_test_id("sit-as")).to_contain_text(name)
    expect(page.get_by_test_id("name-input")).to_have_count(0)
    page.get_by_test_id("take-seat-0").click()
    expect(page.get_by_test_id("seat-name-0")).to_have_text(name)  # the account's name
    for seat in (1, 2):
        page.get_by_test_id(f"bot-kind-{seat}").select_option("random")
        page.get_by_test_id(f"add-bot-{seat}").click()
        expect(page.get_by_test_id(f"remove-bot-{seat}")).to_be_visible()
    expect(page.get_by_test_id("seat-rating-0")).to_have_text("1500?")
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("board")).to_be_visible()
    rng = random.Random(16)
    assert play(page, rng, clicks=3) == 3
    seq_before = page.evaluate("() => window.__cardtable.seq()")
    page.context.close()  # the browser is closed: its localStorage goes with it

    fresh = new_page(browser)
    log_in(fresh, web, name)
    fresh.wait_for_url("**/my-games")
    row = fresh.get_by_test_id(f"game-{tid}")
    expect(row).to_be_visible()
    expect(fresh.get_by_test_id(f"turn-{tid}")).to_contain_text("left")
    shot(fresh, "my-games")
    fresh.get_by_test_id(f"continue-{tid}").click()
    fresh.wait_for_url(f"**/table/{tid}")
    expect(fresh.get_by_test_id("board")).to_be_visible()
    fresh.wait_for_function("() => window.__cardtable?.seat() === 0")
    assert fresh.evaluate("() => window.__cardtable.seq()") >= seq_before
    play(fresh, rng)
    assert fresh.evaluate("() => window.__cardtable.view().phase") == "ended"

    # The rating changed exactly once; the profile and the leaderboard show it.
    def rated() -> dict | None:  # settled after the end (a minute: generous, a busy machine)
        profile = api(web, "GET", f"/api/players/{name}")
        return profile if profile["ratings"].get("einauge") else None

    profile = until_sync(rated, timeout=60, interval=0.1, what="the rating")
    rating = profile["ratings"]["einauge"]
    assert rating["games"] == 1 and rating["provisional"] is True
    change = profile["recent"][0]["rating_change"]
    assert profile["recent"][0]["id"] == tid and change["after"] == rating["rating"]
    assert change["before"] == 1500 and change["after"] != change["before"]
    fresh.goto(f"{web.url}/players/{name}")
    expect(fresh.get_by_test_id("rating-value-einauge")).to_have_text(f"{rating['rating']}?")
    expect(fresh.get_by_test_id(f"change-{tid}")).to_contain_text(f"1500 → {rating['rating']}")
    expect(fresh.get_by_test_id(f"result-{tid}")).to_contain_text("Winner:")
    shot(fresh, "profile")
    fresh.goto(f"{web.url}/leaderboard")
    expect(fresh.get_by_test_id(f"lb-rating-{name}")).to_contain_text(f"{rating['rating']}?")
    expect(fresh.get_by_test_id("lb-Random")).to_be_visible()  # the bot is on the ladder
    shot(fresh, "leaderboard")
    # The lobby's finished games show the winner and the scores.
    fresh.goto(web.url + "/")
    expect(fresh.get_by_test_id(f"lobby-result-{tid}")).to_contain_text("Winner:")
    fresh.context.close()


def test_a_guest_keeps_its_seat_when_it_signs_up(browser: Browser, web: ServerProcess) -> None:
    page = new_page(browser)
    page.goto(web.url + "/")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    tid = page.url.rstrip("/").rsplit("/", 1)[1]
    page.get_by_test_id("name-input").fill("Guest Gus")
    page.get_by_test_id("take-seat-0").click()
    expect(page.get_by_test_id("leave-seat")).to_be_visible()
    name = unique("gus")
    sign_up(page, web, name)
    expect(page.get_by_test_id(f"game-{tid}")).to_be_visible()
    page.context.close()
    fresh = new_page(browser)
    log_in(fresh, web, name)
    fresh.get_by_test_id(f"continue-{tid}").click()
    expect(fresh.get_by_test_id("leave-seat")).to_be_visible()  # the seat is this browser's
    expect(fresh.get_by_test_id("seat-name-0")).to_have_text("Guest Gus")
    fresh.context.close()


# The wrong password's login is refused (401 bad_login): what the test shows the user.
@pytest.mark.page_errors(failed_load(401, "/api/account/login"))
def test_a_wrong_password_is_told_and_logs_nobody_in(browser: Browser, web: ServerProcess) -> None:
    page = new_page(browser)
    name = unique("pw")
    sign_up(page, web, name)
    page.context.close()
    fresh = new_page(browser)
    log_in(fresh, web, name, "not the password")
    expect(fresh.get_by_test_id("auth-error")).to_have_text("Wrong username or password.")
    expect(fresh.get_by_test_id("nav-account")).to_have_text("Log in")
    fresh.context.close()


def test_the_turn_is_told_by_a_browser_notification(browser: Browser, web: ServerProcess) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    ctx.grant_permissions(["notifications"])
    page = ctx.new_page()
    # Record what the page shows instead of showing it; a hidden page (another tab in
    # front) is where a notification is due.
    page.add_init_script("""
        window.__shown = []; window.__asked = 0; let allowed = "default";
        window.Notification = class {
            constructor(title, o) { window.__shown.push([title, o.body]); }
            static get permission() { return allowed; }
            static requestPermission() { window.__asked++; allowed = "granted";
                                         return Promise.resolve(allowed); } };
        Object.defineProperty(document, "hidden", { get: () => true });
    """)
    name = unique("bell")
    sign_up(page, web, name)
    made = page.evaluate("""async () => {
        const csrf = (await (await fetch('/api/me')).json()).csrf;
        const r = await fetch('/api/tables', {method: 'POST', headers: {'Content-Type':
            'application/json', 'X-CSRF-Token': csrf}, body: JSON.stringify({seats: 2})});
        return r.json(); }""")
    page.evaluate("([id, tok]) => localStorage.setItem(`cardtable.owner.${id}`, "
                  "JSON.stringify(tok))", [made["id"], made["owner_token"]])
    page.goto(f"{web.url}/table/{made['id']}")
    page.get_by_test_id("take-seat-0").click()
    page.get_by_test_id("bot-kind-1").select_option("random")
    page.get_by_test_id("add-bot-1").click()
    page.get_by_test_id("start").click()
    assert wait_my_turn_or_end(page)
    page.wait_for_function("() => window.__shown.length > 0")
    assert page.evaluate("() => window.__asked") == 1  # asked once, at the seat's click
    title, body = page.evaluate("() => window.__shown[0]")
    assert title == "Your turn!" and made["id"] in body
    told = page.evaluate("() => window.__cardtable.turnsTold")
    assert told[0]["done"] == ["notification"]
    ctx.close()


# A wrong current password (401 bad_login) and a login with the old password after the
# change (401 bad_login) are refused on purpose. The other browser's My games page
# refreshes its games and friends every 5 s: one between the change and that page's next
# navigation is answered 401 (its session ended).
@pytest.mark.page_errors(failed_load(401, "/api/me/password"),
                         failed_load(401, "/api/account/login"),
                         failed_load(401, "/api/me/games"), failed_load(401, "/api/me/friends"))
def test_a_password_change_logs_the_other_browser_out(browser: Browser, web: ServerProcess) -> None:
    page = new_page(browser)
    name = unique("chg")
    sign_up(page, web, name)
    other = new_page(browser)
    log_in(other, web, name)
    other.wait_for_url("**/my-games")
    page.goto(web.url + "/account")
    # A wrong current password is told and changes nothing.
    page.get_by_test_id("current-password").fill("not the password")
    page.get_by_test_id("new-password").fill("a brand new pass")
    page.get_by_test_id("change-password").click()
    expect(page.get_by_test_id("password-error")).to_have_text("The current password is wrong.")
    page.get_by_test_id("current-password").fill(PASSWORD)
    page.get_by_test_id("new-password").fill("a brand new pass")
    page.get_by_test_id("change-password").click()
    expect(page.get_by_test_id("password-changed")).to_have_text(
        "Password changed. 1 other session(s) logged out.")
    # This browser stays logged in; the other one is nobody now.
    page.reload()
    expect(page.get_by_test_id("logged-in-as")).to_contain_text(f"Logged in as {name}")
    other.goto(web.url + "/account")
    expect(other.get_by_test_id("login-form")).to_be_visible()
    expect(other.get_by_test_id("nav-account")).to_have_text("Log in")
    # The old password no longer logs in; the new one does.
    log_in(other, web, name)
    expect(other.get_by_test_id("auth-error")).to_have_text("Wrong username or password.")
    log_in(other, web, name, "a brand new pass")
    other.wait_for_url("**/my-games")
    expect(other.get_by_test_id("nav-account")).to_have_text(name)
    page.context.close()
    other.context.close()


def test_my_games_list_a_table_once_the_account_sits_there_as_waiting_to_start(
        browser: Browser, web: ServerProcess) -> None:
    name = unique("wait")
    page = new_page(browser)
    sign_up(page, web, name)
    page.goto(web.url + "/")
    page.get_by_test_id("seats-select").select_option("2")
    page.get_by_test_id("create-table").click()
    page.wait_for_url("**/table/*")
    tid = page.url.rstrip("/").rsplit("/", 1)[1]
    page.get_by_test_id("bot-kind-1").select_option("random")
    page.get_by_test_id("add-bot-1").click()
    expect(page.get_by_test_id("remove-bot-1")).to_be_visible()
    # Created, not sat at: not among the account's games (no "Continue" to a seat it lacks).
    page.get_by_test_id("nav-my-games").click()
    expect(page.get_by_test_id("running-games")).to_contain_text("No games yet.")
    expect(page.get_by_test_id(f"game-{tid}")).to_have_count(0)
    page.go_back()
    page.get_by_test_id("take-seat-0").click()
    expect(page.get_by_test_id("seat-name-0")).to_have_text(name)
    page.get_by_test_id("nav-my-games").click()
    expect(page.get_by_test_id(f"waiting-start-{tid}")).to_have_text("waiting to start")
    expect(page.get_by_test_id(f"turn-{tid}")).to_have_count(0)
    page.context.close()


def test_the_leaderboard_switches_between_the_games(page: Page, web: ServerProcess) -> None:
    games = api(web, "GET", "/api/games")["games"]
    titles = {g["name"]: g["title"] for g in games}
    page.goto(web.url + "/leaderboard?game=keltis")  # an old link still opens its game
    expect(page.get_by_test_id("lb-title")).to_have_text(titles["keltis"])
    expect(page.get_by_test_id("lb-games").locator("button")).to_have_text(
        [titles[g["name"]] for g in games])
    expect(page.get_by_test_id("lb-game-keltis")).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("lb-game-loot-island").click()
    expect(page.get_by_test_id("lb-title")).to_have_text(titles["loot-island"])
    expect(page.get_by_test_id("lb-game-loot-island")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("lb-game-keltis")).to_have_attribute("aria-pressed", "false")
    assert page.url.endswith("/leaderboard?game=loot-island")
    page.reload()  # the address keeps the choice
    expect(page.get_by_test_id("lb-title")).to_have_text(titles["loot-island"])
    page.get_by_test_id("nav-leaderboard").click()  # no ?game=: Einauge, as before
    expect(page.get_by_test_id("lb-title")).to_have_text(titles["einauge"])
