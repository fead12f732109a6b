"""Actions (server/table/actions.py). The attack (a security review's finding): a
person's action racing the change of its seat to a bot.

``Actions.act`` refuses a person's action for a seat a bot plays (``seat_handed_over``),
but it looked at the seat's controller once, before taking the table's lock, on the
table as this process knew it. An action without ``seq`` (the protocol allows it; a
hand-written client sends none) that reached a process not yet told of a resignation,
claim, handover or timeout to a bot found its append stale, synced, and was decided
again on the newer state without that check: stored as the person's move for a seat
the bot now plays (after a resignation: a move of a player who is out). The same held in
one process for an action that waited on the lock while the change was stored. Fixed:
the check runs again on every state the action is decided on.

Here the second process is a ``Tables`` in the test's own process on the same Redis, a
copy of the table loaded before the resignation that the server process stored.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.game import IllegalAction
from server.config import Settings
from server.store.sealing import SeedSeal
from server.store.streams import Store
from server.table.tables import Tables
from tests.conftest import SEED_KEYS, ServerProcess
from tests.server.client import Lobby


@pytest.fixture
def slow_bots(redis_url: str) -> Iterator[ServerProcess]:
    """A server whose bots wait 30 s before a move: the resigned seat stays to move."""
    s = ServerProcess(redis_url, env={"CARDTABLE_BOT_DELAY": "30"}).start()
    yield s
    s.stop()


@pytest.mark.parametrize("game", ["keltis", "loot-island"])
async def test_an_action_decided_after_a_resignation_it_had_not_seen_is_refused(
        slow_bots, redis_url, game) -> None:
    lobby = Lobby(slow_bots.url)
    table = await lobby.create_game(game, 3)
    tid = table["id"]
    tokens = [(await lobby.join(tid, f"P{s}"))["token"] for s in range(3)]
    await lobby.start(tid)
    store = Store.from_url(redis_url, seal=SeedSeal.at(SEED_KEYS))
    tables = Tables(Settings(redis_url=redis_url), store)
    try:
        stale = await tables.get(tid)  # loaded, not followed: it hears of nothing
        assert stale is not None
        (mover,) = stale.game.to_move(stale.state)
        action = stale.legal(mover)[0]
        seq = stale.seq
        r = await lobby.seat_call(tid, "resign", tokens[mover])
        assert r.status_code == 200, r.text
        assert not stale.by_bot(mover) and stale.seq == seq  # it did not hear of it
        with pytest.raises(IllegalAction) as refused:
            await tables.actions.act(stale, mover, "after-resigning", action)
        assert refused.value.code == "seat_handed_over", refused.value
        # Nothing stored for it: the stream ends with the resignation.
        got = (await lobby.http.get(f"/api/tables/{tid}")).json()
        assert got["seq"] == seq + 1, got
        assert stale.by_bot(mover)  # the sync let it hear of the resignation
    finally:
        await store.close()
        await lobby.close()
