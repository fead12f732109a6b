"""The account page's API tokens and bot account part (client-web/src/apitokens.js): a
token is created and shown once, listed without its text, works as a bearer, and is
revoked; the bot conversion asks for the password behind a warning and marks the
account."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.client.conftest import failed_load
from tests.client.test_accounts import PASSWORD, new_page, sign_up
from tests.conftest import ServerProcess
from tests.server.client import unique


def me_by(web: ServerProcess, token: str) -> httpx.Response:
    return httpx.get(web.url + "/api/me", headers={"Authorization": f"Bearer {token}"})


def test_tokens_are_created_shown_once_listed_and_revoked(browser: Browser,
                                                          web: ServerProcess) -> None:
    page = new_page(browser)
    name = unique("tp")[:20]
    sign_up(page, web, name)
    page.goto(web.url + "/account")
    panel = page.get_by_test_id("api-tokens")
    expect(panel.get_by_test_id("no-tokens")).to_be_visible()
    assert "null" not in panel.inner_text()  # no empty part written out as text
    panel.get_by_test_id("token-name").fill("my engine")
    panel.get_by_test_id("token-scope").select_option("play")
    panel.get_by_test_id("create-token").click()
    text = panel.get_by_test_id("token-text").inner_text()
    assert text.startswith("ctk_")
    expect(panel.get_by_test_id("token-row")).to_have_count(1)
    expect(panel.get_by_test_id("token-row-name")).to_have_text("my engine")
    assert me_by(web, text).json()["account"]["username"] == name
    # Shown once: a reload lists the token, never its text.
    page.reload()
    panel = page.get_by_test_id("api-tokens")
    expect(panel.get_by_test_id("token-row")).to_have_count(1)
    expect(panel.get_by_test_id("token-shown")).to_have_count(0)
    assert text not in page.content()
    # Dates in the page's language, not the browser's (en-US here).
    page.get_by_test_id("lang-de").click()
    created = page.get_by_test_id("api-tokens").get_by_test_id("token-row").locator("td").nth(2)
    expect(created).to_have_text(re.compile(r"^\d{1,2}\.\d{1,2}\.\d{4}, \d{2}:\d{2}:\d{2}$"))
    panel = page.get_by_test_id("api-tokens")
    # Asked first, in the page's own dialog: cancelling keeps the token.
    panel.get_by_test_id("revoke-token").click()
    expect(panel.get_by_test_id("confirm-text")).to_contain_text("my engine")
    panel.get_by_test_id("confirm-cancel").click()
    expect(panel.get_by_test_id("confirm-dialog")).to_have_count(0)
    assert me_by(web, text).status_code == 200
    panel.get_by_test_id("revoke-token").click()
    panel.get_by_test_id("confirm-yes").click()
    expect(panel.get_by_test_id("no-tokens")).to_be_visible()
    assert me_by(web, text).status_code == 401
    page.context.close()


@pytest.mark.page_errors(failed_load(401, "/api/account/bot"))  # the wrong password
def test_the_bot_conversion_warns_asks_the_password_and_marks_the_account(
        browser: Browser, web: ServerProcess) -> None:
    page = new_page(browser)
    name = unique("tb")[:20]
    sign_up(page, web, name)
    page.goto(web.url + "/account")
    panel = page.get_by_test_id("api-tokens")
    panel.get_by_test_id("bot-convert").click()
    expect(panel.get_by_test_id("bot-warning")).to_contain_text("cannot be undone")
    panel.get_by_test_id("bot-cancel").click()
    expect(panel.get_by_test_id("bot-warning")).to_have_count(0)
    panel.get_by_test_id("bot-convert").click()
    panel.get_by_test_id("bot-password").fill("not my password")
    panel.get_by_test_id("bot-confirm").click()
    expect(panel.get_by_test_id("token-error")).to_be_visible()
    profile = httpx.get(f"{web.url}/api/players/{name}").json()
    assert profile["bot"] is False  # a wrong password changed nothing
    panel.get_by_test_id("bot-password").fill(PASSWORD)
    panel.get_by_test_id("bot-confirm").click()
    expect(panel.get_by_test_id("is-bot-account")).to_be_visible()
    assert httpx.get(f"{web.url}/api/players/{name}").json()["bot"] is True
    page.reload()
    expect(page.get_by_test_id("api-tokens").get_by_test_id("is-bot-account")).to_be_visible()
    page.context.close()
