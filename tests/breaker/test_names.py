"""Finding 9: player and table names take any characters: NUL and other control
characters, bidirectional overrides (U+202E flips what follows in every log and seat
list), whitespace only, and the service's own bot names (a person called "Random bot 2"
passes for a bot in the seat list and the game log)."""

from __future__ import annotations

import pytest

from tests.server.client import Lobby

BAD_NAMES = ["\u202etsoh eht", "nul\x00byte", "\x1b[31mred", "   ", "\n", "Random bot 2"]


@pytest.mark.parametrize("name", BAD_NAMES)
async def test_a_deceptive_player_name_is_refused(server, name):
    lobby = Lobby(server.url)
    table = await lobby.create(3)
    r = await lobby.http.post(f"/api/tables/{table['id']}/join", json={"name": name})
    seats = (await lobby.get(f"/api/tables/{table['id']}")).json()["seats"]
    await lobby.close()
    assert (r.status_code, r.json().get("error", {}).get("code")) == (400, "bad_message"), r.text
    assert all(s["name"] is None for s in seats)  # and nothing changed


@pytest.mark.parametrize("name", BAD_NAMES[:3])
async def test_a_deceptive_table_name_is_refused(server, name):
    lobby = Lobby(server.url)
    r = await lobby.http.post("/api/tables", json={"seats": 2, "name": name})
    await lobby.close()
    assert (r.status_code, r.json().get("error", {}).get("code")) == (400, "bad_message"), r.text
