"""Unnamed tables get a readable name (client-web/src/tablename.js): in the lobby list and
on the table page, "Anna's table" after its host (German "Tisch von Anna"), and a table
nobody sits at its game's title and its whole id (not cut: "hoq-" named two tables, and
read as a broken word); the table page's heading names the game once."""

from __future__ import annotations

from typing import Any, cast

from playwright.sync_api import Page, expect

from tests.client.conftest import api
from tests.conftest import ServerProcess


def call(web: ServerProcess, method: str, path: str, **kw: Any) -> dict[str, Any]:
    return cast(dict[str, Any], api(web, method, path, **kw))


def test_unnamed_tables_get_a_readable_name(page: Page, web: ServerProcess) -> None:
    games = call(web, "GET", "/api/games")
    title = {g["name"]: g["title"] for g in games["games"]}
    hosted = call(web, "POST", "/api/tables", json={"seats": 3})
    call(web, "POST", f"/api/tables/{hosted['id']}/join", json={"name": "Anna"},
         headers={"Authorization": f"Bearer {hosted['owner_token']}"})
    empty = call(web, "POST", "/api/tables", json={"seats": 3})
    named = call(web, "POST", "/api/tables", json={"seats": 3, "name": "Friday cards"})
    page.goto(web.url + "/")
    names = {t["id"]: page.get_by_test_id(f"table-row-{t['id']}").locator(".tinfo b").first
             for t in (hosted, empty, named)}
    short = f"{title[empty['game']]} · table {empty['id']}"
    expect(names[hosted["id"]]).to_have_text("Anna's table")
    expect(names[empty["id"]]).to_have_text(short)
    expect(names[named["id"]]).to_have_text("Friday cards")
    page.get_by_test_id("lang-de").click()
    expect(names[hosted["id"]]).to_have_text("Tisch von Anna")
    expect(names[empty["id"]]).to_have_text(short.replace("table", "Tisch"))
    page.get_by_test_id("lang-en").click()
    page.goto(f"{web.url}/table/{hosted['id']}")
    expect(page.get_by_test_id("table-title")).to_have_text("Anna's table")
    # A table nobody sits at: its page's heading names the game once, then the table.
    page.goto(f"{web.url}/table/{empty['id']}")
    expect(page.get_by_test_id("table-title")).to_have_text(f"table {empty['id']}")
    expect(page.locator(".topbar h1")).to_have_text(short)
    page.get_by_test_id("lang-de").click()
    expect(page.locator(".topbar h1")).to_have_text(short.replace("table", "Tisch"))
