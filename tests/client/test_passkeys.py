"""Passkeys in Chromium with a virtual authenticator (CDP ``WebAuthn`` domain): add a
passkey to an account, then log in with it from a fresh browser context whose
authenticator holds the same (synced) credential; a context with no passkey of this
service is refused; a ticket works once."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from server.store.embedded import free_port
from tests.client.test_accounts import sign_up
from tests.conftest import ServerProcess
from tests.server.client import unique


@pytest.fixture(scope="module")
def localhost(redis_url: str, client_dist) -> Iterator[ServerProcess]:
    """A server whose public URL (the passkeys' relying party) is ``http://localhost:<port>``:
    WebAuthn needs a domain (localhost is a secure context), not an IP address."""
    port = free_port()
    s = ServerProcess(redis_url, port=port, env={
        "CARDTABLE_STATIC_DIR": str(client_dist),
        "CARDTABLE_PUBLIC_URL": f"http://localhost:{port}"}).start()
    s.url = f"http://localhost:{port}"
    yield s
    s.stop()


def with_authenticator(browser: Browser) -> tuple[Page, object, str]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True,
        "automaticPresenceSimulation": True}})
    return page, cdp, made["authenticatorId"]


def test_a_passkey_logs_in_from_a_fresh_browser(browser: Browser, localhost: ServerProcess) -> None:
    page, cdp, auth = with_authenticator(browser)
    name = unique("key")
    sign_up(page, localhost, name)
    page.goto(localhost.url + "/account")
    expect(page.get_by_test_id("passkey-count")).to_have_text("Passkeys of this account: 0")
    page.get_by_test_id("add-passkey").click()
    expect(page.get_by_test_id("passkey-added")).to_be_visible()
    expect(page.get_by_test_id("passkey-count")).to_have_text("Passkeys of this account: 1")
    creds = cdp.send("WebAuthn.getCredentials", {"authenticatorId": auth})["credentials"]
    assert len(creds) == 1 and creds[0]["isResidentCredential"]
    page.context.close()

    # A fresh browser with no passkey of this service: refused, nobody logged in.
    stranger, _, _ = with_authenticator(browser)
    stranger.goto(localhost.url + "/account")
    stranger.get_by_test_id("passkey-log-in").click()
    expect(stranger.get_by_test_id("auth-error")).to_be_visible()
    expect(stranger.get_by_test_id("nav-account")).to_have_text("Log in")
    stranger.context.close()

    # A fresh browser whose authenticator has the passkey (synced): logged in, no password.
    fresh, cdp2, auth2 = with_authenticator(browser)
    cdp2.send("WebAuthn.addCredential", {"authenticatorId": auth2, "credential": creds[0]})
    fresh.goto(localhost.url + "/account")
    fresh.get_by_test_id("passkey-log-in").click()
    fresh.wait_for_url("**/my-games")
    expect(fresh.get_by_test_id("nav-account")).to_have_text(name)
    fresh.context.close()


def test_a_passkey_ticket_works_once_and_a_forged_answer_is_refused(
        localhost: ServerProcess) -> None:
    http = httpx.Client(base_url=localhost.url)
    begun = http.post("/api/account/passkey/begin").json()
    assert begun["options"]["rpId"] == "localhost" and begun["ticket"]
    forged = {"id": "AAAA", "rawId": "AAAA", "type": "public-key",
              "response": {"clientDataJSON": "e30", "authenticatorData": "AAAA",
                           "signature": "AAAA"}}
    r = http.post("/api/account/passkey/login", json={"ticket": begun["ticket"],
                                                      "credential": forged})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_passkey")
    r = http.post("/api/account/passkey/login", json={"ticket": begun["ticket"],
                                                      "credential": forged})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "bad_ticket")
    assert "set-cookie" not in r.headers
    http.close()
