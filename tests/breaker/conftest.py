"""Fixtures of the adversarial tests: a server of their own on the session's Redis, and
a finished bot game (a long stored stream) on it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ServerProcess
from tests.server.client import Lobby


@pytest.fixture
def fresh_server(redis_url: str) -> Iterator[ServerProcess]:
    """A server process of this test alone (its event-loop metrics start at zero)."""
    s = ServerProcess(redis_url).start()
    yield s
    s.stop()


async def finished_bot_game(url: str, seats: int = 5, private: bool = False
                            ) -> dict[str, Any]:
    """Create a table of random bots, start it and wait for its end; returns the create
    answer (``id``, ``owner_token``, ``invite_key`` for a private table) plus the final
    ``seq``."""
    lobby = Lobby(url)
    try:
        table = await lobby.create(seats, private=private)
        for seat in range(seats):
            await lobby.bot(table["id"], seat)
        await lobby.start(table["id"])
        headers = {"X-Table-Key": table["invite_key"]} if private else {}
        for _ in range(1200):
            r = await lobby.http.get(f"/api/tables/{table['id']}", headers=headers)
            if r.json()["status"] == "ended":
                return {**table, "seq": r.json()["seq"]}
            await asyncio.sleep(0.05)
        raise AssertionError("the bot game did not end")
    finally:
        await lobby.close()
