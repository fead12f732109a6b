"""A lobby row names its game once (client-web/src/lobby.js): with several games offered
the details line names the row's game, but not when the table's name, made from the game
and the id (nobody sits at it), names it already."""

from __future__ import annotations

from typing import Any, cast

from playwright.sync_api import Page, expect

from tests.client.conftest import api
from tests.conftest import ServerProcess


def call(web: ServerProcess, method: str, path: str, **kw: Any) -> dict[str, Any]:
    return cast(dict[str, Any], api(web, method, path, **kw))


def test_a_lobby_row_names_its_game_once(page: Page, web: ServerProcess) -> None:
    games = call(web, "GET", "/api/games")["games"]
    assert len(games) > 1  # the details line names the game only then
    rows = []
    for g in games:  # a nameless table of each game with a bot and no person at it
        made = call(web, "POST", "/api/tables", json={"game": g["name"], "seats": 3})
        call(web, "POST", f"/api/tables/{made['id']}/seats/0/bot", json={"kind": "random"},
             headers={"Authorization": f"Bearer {made['owner_token']}"})
        rows.append((g["title"], made["id"], False))
    named = call(web, "POST", "/api/tables", json={"game": games[1]["name"], "seats": 3,
                                                   "name": "Friday cards"})
    rows.append((games[1]["title"], named["id"], True))
    page.goto(web.url + "/")
    for title, tid, by_name in rows:
        row = page.get_by_test_id(f"table-row-{tid}")
        details = page.get_by_test_id(f"details-{tid}")
        expect(details).to_contain_text("seats taken")
        if by_name:  # the name does not say the game: the details line does
            expect(details).to_contain_text(f" · {title} · ")
        else:  # the name says it: "<title> · table <id>"
            expect(row.locator(".tinfo b").first).to_have_text(f"{title} · table {tid}")
            expect(details).not_to_contain_text(title)
        assert row.inner_text().count(title) == 1, row.inner_text()
