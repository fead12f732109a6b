"""The administration page (client-web/src/admin.js) in the browser: an account made admin
with ``cardtable admin grant`` finds another account, bans it (its login is refused) and
unbans it, each action in the page's audit log; an account without a role gets no link
and a refusal."""

from __future__ import annotations

import json
import subprocess
import sys

import httpx
from playwright.sync_api import Browser, expect

from tests.client.test_accounts import PASSWORD, new_page, sign_up
from tests.conftest import ServerProcess
from tests.server.client import unique


def cardtable_admin(redis_url: str, *argv: str) -> object:
    """``cardtable admin`` as its own process; its printed result."""
    done = subprocess.run([sys.executable, "-m", "cli", "admin", "--redis-url", redis_url,
                           *argv], capture_output=True, check=True, timeout=120)
    return json.loads(done.stdout)


# The page's first two reads (the accounts, the audit log) each draw it again when they
# answer: an input being filled during such a redraw loses its text (it went to
# "tables//void" once in about ten runs). Both are drawn once the audit table and the
# accounts' table (or their "none") are.
FIRST_READS_DRAWN = """() => { const a = document.querySelector('[data-testid=admin]');
  return !!a && !!a.querySelector('[data-testid=audit]')
    && !!a.querySelector('table.games:not([data-testid=audit]), p.empty'); }"""


def test_an_admin_bans_and_unbans_an_account_on_the_page(browser: Browser, web: ServerProcess,
                                                         redis_url: str) -> None:
    boss = unique("boss")
    page = new_page(browser)
    sign_up(page, web, boss)
    expect(page.get_by_test_id("nav-admin")).to_have_count(0)
    victim = unique("vic")
    r = httpx.post(web.url + "/api/account/signup",
                   json={"username": victim, "password": PASSWORD})
    assert r.status_code == 201
    cardtable_admin(redis_url, "grant", boss, "admin")

    page.goto(web.url + "/")  # the session's account is read again: now with its role
    page.get_by_test_id("nav-admin").click()
    page.wait_for_url("**/admin")
    page.wait_for_function(FIRST_READS_DRAWN)
    page.get_by_test_id("admin-query").fill(victim)
    page.get_by_test_id("admin-search").click()
    expect(page.get_by_test_id(f"admin-row-{victim}")).to_be_visible()
    page.get_by_test_id(f"ban-{victim}").click()
    expect(page.get_by_test_id(f"admin-banned-{victim}")).to_have_text("banned: banned")
    expect(page.get_by_test_id("admin-done")).to_contain_text("ban")
    expect(page.get_by_test_id("audit").locator(".audit-action").first).to_have_text("ban")
    shown = cardtable_admin(redis_url, "show", victim)
    assert isinstance(shown, dict) and shown["banned"] == "banned"
    r = httpx.post(web.url + "/api/account/login",
                   json={"username": victim, "password": PASSWORD})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "banned")

    page.get_by_test_id(f"unban-{victim}").click()
    expect(page.get_by_test_id(f"admin-banned-{victim}")).to_have_text("")
    expect(page.get_by_test_id("audit").locator(".audit-action").first).to_have_text("unban")
    r = httpx.post(web.url + "/api/account/login",
                   json={"username": victim, "password": PASSWORD})
    assert r.status_code == 200
    page.context.close()


def test_an_account_without_a_role_is_refused(browser: Browser, web: ServerProcess) -> None:
    page = new_page(browser)
    sign_up(page, web, unique("nobody"))
    expect(page.get_by_test_id("nav-admin")).to_have_count(0)
    page.goto(web.url + "/admin")
    expect(page.get_by_test_id("admin-denied")).to_be_visible()
    page.context.close()


def test_a_game_voided_on_the_page_is_told_to_its_spectators(
        browser: Browser, web: ServerProcess, redis_url: str) -> None:
    with httpx.Client(base_url=web.url) as api:
        table = api.post("/api/tables", json={"seats": 2}).json()
        tid, owner = table["id"], {"Authorization": f"Bearer {table['owner_token']}"}
        assert api.post(f"/api/tables/{tid}/join", json={"name": "Ann"},
                        headers=owner).status_code == 200
        assert api.post(f"/api/tables/{tid}/seats/1/bot", json={"kind": "random"},
                        headers=owner).status_code == 200
        assert api.post(f"/api/tables/{tid}/start", headers=owner).status_code == 200
    watcher = new_page(browser)
    watcher.goto(f"{web.url}/table/{tid}")
    expect(watcher.get_by_test_id("turn-text")).to_be_visible()

    boss = unique("vboss")
    page = new_page(browser)
    sign_up(page, web, boss)
    cardtable_admin(redis_url, "grant", boss, "admin")
    page.goto(web.url + "/admin")
    # Filled after the first reads are drawn (FIRST_READS_DRAWN): "no request for 0.5 s"
    # (networkidle) is no such barrier, the page draws after its answers are read.
    page.wait_for_function(FIRST_READS_DRAWN)
    page.get_by_test_id("abort-table").fill(tid)
    expect(page.get_by_test_id("abort-table")).to_have_value(tid)
    page.get_by_test_id("void").click()
    expect(page.get_by_test_id("admin-done")).to_have_text(f"Done: void · table:{tid}")
    expect(watcher.get_by_test_id("turn-banner").locator("span.hint")).to_have_text(
        "The game was voided by the administration: nobody wins, no rating changes.")
    expect(watcher.locator(".log")).to_contain_text("voided by the administration")
    watcher.context.close()
    page.context.close()
