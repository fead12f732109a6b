"""Roles in the browser: the host's controls (bots, kick, options, start) only for the host,
private tables joined by their invite link, and the page of an unknown table."""

from __future__ import annotations

import secrets

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.client.conftest import TABLE_ID, api, failed_load, shot
from tests.conftest import ServerProcess


# The table does not exist: its summary and its deltas are 404, which the page tells.
@pytest.mark.page_errors(failed_load(404, rf"/api/tables/{TABLE_ID}"),
                         failed_load(404, rf"/api/tables/{TABLE_ID}/deltas\?from=0"))
def test_an_unknown_table_says_so_in_english_and_german(page: Page, web: ServerProcess) -> None:
    page.goto(f"{web.url}/table/{secrets.token_urlsafe(9)}")
    box = page.get_by_test_id("not-found")
    expect(box.locator("h1")).to_have_text("Table not found")
    expect(box).to_contain_text("It may have expired")
    expect(page.get_by_text("Loading…")).to_have_count(0)
    shot(page, "table-not-found", full_page=False)
    page.get_by_test_id("lang-de").click()
    expect(box.locator("h1")).to_have_text("Tisch nicht gefunden")
    expect(box).to_contain_text("Vielleicht ist er abgelaufen")
    expect(page.get_by_test_id("not-found-lobby")).to_have_text("Zurück zur Lobby")
    page.get_by_test_id("not-found-lobby").click()
    expect(page.get_by_test_id("create-table")).to_have_text("Erstellen")
    page.get_by_test_id("lang-en").click()
    page.goto(f"{web.url}/replay/{secrets.token_urlsafe(9)}")  # the replay of none, too
    expect(page.get_by_test_id("not-found").locator("h1")).to_have_text("Table not found")


def test_only_the_host_sees_the_hosts_controls(browser: Browser, web: ServerProcess) -> None:
    host = browser.new_context(locale="en-US").new_page()
    guest = browser.new_context(locale="en-US").new_page()
    try:
        host.goto(web.url + "/")
        host.get_by_test_id("seats-select").select_option("3")
        host.get_by_test_id("create-table").click()
        host.wait_for_url("**/table/*")
        table_id = host.url.rsplit("/", 1)[1]
        host.get_by_test_id("name-input").fill("Hosta")
        host.get_by_test_id("take-seat-0").click()
        expect(host.get_by_test_id("host-badge-0")).to_be_visible()
        assert api(web, "GET", f"/api/tables/{table_id}")["host"] == 0

        guest.goto(host.url)
        guest.get_by_test_id("name-input").fill("Gast")
        guest.get_by_test_id("take-seat-1").click()
        expect(guest.get_by_test_id("leave-seat")).to_be_visible()
        expect(guest.get_by_test_id("host-badge-0")).to_be_visible()
        for testid in ("add-bot-2", "bot-kind-2", "kick-0", "options-form", "start"):
            expect(guest.get_by_test_id(testid)).to_have_count(0)
        expect(guest.get_by_test_id("options-text")).to_contain_text("Finish the round")
        expect(guest.get_by_test_id("start-hint")).to_have_text(
            "Only the table's host can start the game.")

        # The host sets the options; the guest sees them change.
        expect(host.get_by_test_id("kick-1")).to_be_visible()
        host.get_by_test_id("opt-end-rule").select_option("one_more_turn")
        expect(guest.get_by_test_id("options-text")).to_contain_text("One more turn each")
        host.get_by_test_id("opt-color-bonus").check()
        expect(guest.get_by_test_id("options-text")).to_contain_text("Color bonus variant: ✓")
        assert api(web, "GET", f"/api/tables/{table_id}")["options"] == {
            "end_rule": "one_more_turn", "color_bonus": True}
        shot(host, "table-host-controls", full_page=False)

        # The host removes the guest, who watches on.
        host.get_by_test_id("kick-1").click()
        host.get_by_test_id("confirm-yes").click()  # the page's own dialog
        expect(guest.get_by_test_id("take-seat-1")).to_be_visible()
        expect(guest.get_by_test_id("spectator-badge")).to_be_visible()
        assert api(web, "GET", f"/api/tables/{table_id}")["seats"][1]["kind"] is None

        host.get_by_test_id("add-bot-1").click()
        host.get_by_test_id("add-bot-2").click()
        expect(host.get_by_test_id("start")).to_be_enabled()
        host.get_by_test_id("start").click()
        expect(guest.get_by_test_id("board")).to_be_visible()
    finally:
        host.context.close()
        guest.context.close()


def test_a_private_table_is_joined_by_its_invite_link(browser: Browser, web: ServerProcess) -> None:
    host = browser.new_context(locale="en-US").new_page()
    friend = browser.new_context(locale="en-US").new_page()
    stranger = browser.new_context(locale="en-US").new_page()
    try:
        host.goto(web.url + "/")
        host.get_by_test_id("table-name").fill("Secret harbour")
        host.get_by_test_id("seats-select").select_option("2")
        host.get_by_test_id("private-table").check()
        host.get_by_test_id("create-table").click()
        host.wait_for_url("**/table/**")
        expect(host.get_by_test_id("private-badge")).to_be_visible()
        link = host.get_by_test_id("share-link").input_value()
        table_id = host.url.split("/table/", 1)[1].split("#", 1)[0]
        assert link.startswith(f"{web.url}/table/{table_id}#k=") and len(link.split("#k=")[1]) > 16
        assert table_id not in {t["id"] for t in api(web, "GET", "/api/tables")["tables"]}

        # The id alone leads nowhere.
        stranger.goto(f"{web.url}/table/{table_id}")
        expect(stranger.get_by_test_id("not-found")).to_be_visible()

        friend.goto(link)
        expect(friend.get_by_test_id("table-status")).to_have_text("open")
        friend.get_by_test_id("name-input").fill("Freundin")
        friend.get_by_test_id("take-seat-1").click()
        expect(friend.get_by_test_id("leave-seat")).to_be_visible()
        expect(host.get_by_test_id("seat-1")).to_contain_text("Freundin")
        # A reload without the secret in the address still works: the browser kept it.
        friend.goto(f"{web.url}/table/{table_id}")
        expect(friend.get_by_test_id("leave-seat")).to_be_visible()

        host.get_by_test_id("add-bot-0").click()
        host.get_by_test_id("start").click()
        expect(friend.get_by_test_id("board")).to_be_visible()
    finally:
        for p in (host, friend, stranger):
            p.context.close()
