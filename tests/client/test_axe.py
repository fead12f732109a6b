"""Every page passes axe-core (the accessibility engine, npm ``axe-core``, injected into
the page by the test) with no serious or critical violation: the lobby, each game's table
in play (on the seated player's turn, its controls offered), the replay, the rules pages,
the account page, the tournament pages, the leaderboard, "My games" and a profile with its
statistics (the tutorial's table: tests/client/test_tutorial.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import CLIENT, bot_table, seated_page
from tests.client.test_replay_counter import keltis_record
from tests.conftest import ServerProcess
from tests.server.client import unique

AXE = CLIENT / "node_modules" / "axe-core" / "axe.min.js"
# Run on the whole document with axe's default rules; kept are the serious and critical
# violations, and a page without its ``main`` landmark (axe rates that "moderate", but a
# screen reader's "skip to main" needs it).
RUN = """async () => {
  const r = await axe.run(document, { resultTypes: ['violations'] });
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'
                                    || v.id === 'landmark-one-main')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                   nodes: v.nodes.map((n) => n.target.join(' ') + ' :: ' + n.failureSummary) }));
}"""


def violations(page: Page) -> list[dict]:
    """The serious and critical axe violations of what ``page`` shows now."""
    assert AXE.is_file(), "npm ci in client-web installs axe-core (a devDependency)"
    # Cards gliding to their place (flip.js) are checked where they come to rest: colors
    # mid-animation are blends. Endless animations (a pulse) are no reason to wait.
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running'"
                           " || a.effect.getComputedTiming().iterations === Infinity)")
    page.add_script_tag(path=str(AXE))
    found: list[dict] = page.evaluate(RUN)
    return found


@pytest.mark.parametrize(("path", "ready"), [
    ("/", "create-table"), ("/rules/einauge", "rules-page"), ("/rules/keltis", "rules-page"),
    ("/rules/loot-island", "rules-page"), ("/account", "to-signup"),
    ("/tournaments", "tournaments-open"), ("/leaderboard", "leaderboard")])
def test_pages_pass_axe(page: Page, web: ServerProcess, path: str, ready: str) -> None:
    page.goto(web.url + path)
    expect(page.get_by_test_id(ready).first).to_be_visible()
    found = violations(page)
    assert found == [], json.dumps(found, indent=1)


@pytest.mark.parametrize("game", ["einauge", "keltis", "loot-island"])
def test_each_games_table_in_play_passes_axe(browser: Browser, web: ServerProcess,
                                             game: str) -> None:
    tid, seat = bot_table(web, game)
    ctx, page = seated_page(browser, web, tid, seat)
    # The seat's turn (the bots move until it comes): its controls are offered and the
    # page waits for the player, so nothing changes under the check.
    expect(page.get_by_test_id("turn-banner")).to_have_attribute("data-my-turn", "1")
    found = violations(page)
    ctx.close()
    assert found == [], json.dumps(found, indent=1)


def test_the_replay_passes_axe(page: Page, web: ServerProcess, tmp_path: Path) -> None:
    page.goto(f"{web.url}/replay")
    page.get_by_test_id("replay-file").set_input_files(str(keltis_record(tmp_path / "k.json")))
    # The server replays the whole record first (a busy CI machine took over 15 s).
    expect(page.get_by_test_id("replay-slider")).to_be_visible(timeout=60_000)
    page.get_by_test_id("replay-next").click()
    expect(page.get_by_test_id("board")).to_be_visible()
    found = violations(page)
    assert found == [], json.dumps(found, indent=1)


def test_a_tournament_page_a_profile_and_my_games_pass_axe(browser: Browser,
                                                          web: ServerProcess) -> None:
    """As an account: its tournament's page (scheduled, "Join" offered), its profile (the
    statistics) and "My games"."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 900}, locale="en-US")
    try:
        name = unique("ax")
        r = ctx.request.post(f"{web.url}/api/account/signup",
                             data={"username": name, "password": "correct horse 1"})
        assert r.status == 201, r.text()
        made = ctx.request.post(f"{web.url}/api/tournaments",
                                headers={"X-CSRF-Token": r.json()["csrf"]},
                                data={"name": "Axe cup", "game": "keltis", "kind": "swiss",
                                      "seats": 2, "rounds": 2,
                                      "time_control": {"kind": "live", "preset": "fast"},
                                      "starts_at": time.time() + 3600})
        assert made.status == 201, made.text()
        page = ctx.new_page()
        page.goto(f"{web.url}/tournament/{made.json()['id']}")
        expect(page.get_by_test_id("t-join")).to_be_visible()
        found = violations(page)
        assert found == [], json.dumps(found, indent=1)
        for path, ready in ((f"/players/{name}", "profile"), ("/my-games", "finished-games")):
            page.goto(web.url + path)
            expect(page.get_by_test_id(ready)).to_be_attached()
            found = violations(page)
            assert found == [], (path, json.dumps(found, indent=1))
    finally:
        ctx.close()


def test_a_waiting_table_with_its_invite_fields_passes_axe_on_a_phone(
        browser: Browser, web: ServerProcess) -> None:
    """At 390×844: the table's host, an account, has the invite link and the "invite by
    name" field before the game starts; each keeps its label (the invite link's shows)."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US",
                              is_mobile=True, has_touch=True)
    page = ctx.new_page()
    try:
        page.goto(web.url + "/account")
        page.get_by_test_id("to-signup").click()
        page.get_by_test_id("username").fill(unique("axe"))
        page.get_by_test_id("password").fill("correct horse 1")
        page.get_by_test_id("sign-up").click()
        page.wait_for_url("**/my-games")
        made = page.evaluate("""async () => {
            const me = await (await fetch("/api/me")).json();
            const r = await fetch("/api/tables", { method: "POST", headers: {
                "Content-Type": "application/json", "X-CSRF-Token": me.csrf },
                body: JSON.stringify({ seats: 3 }) });
            return await r.json(); }""")
        page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                      [f"cardtable.owner.{made['id']}", json.dumps(made["owner_token"])])
        page.goto(f"{web.url}/table/{made['id']}")
        page.get_by_test_id("take-seat-0").click()
        expect(page.get_by_test_id("invite-name")).to_be_visible()
        expect(page.get_by_test_id("share-link")).to_be_visible()
        # The invite link's label shows on the phone too, and names the field.
        expect(page.get_by_test_id("share-label")).to_be_visible()
        expect(page.get_by_label("Invite link", exact=True)).to_have_attribute(
            "data-testid", "share-link")
        box = page.evaluate("() => document.querySelector('[data-testid=share-link]')"
                            ".getBoundingClientRect().toJSON()")
        assert box["width"] >= 100 and box["right"] <= 390, box
        found = violations(page)
        assert found == [], json.dumps(found, indent=1)
    finally:
        ctx.close()
