"""An account's entries across tournaments, for a ban, a deletion or a rename
(``server.accounts.leaving.TournamentEntries``): each tournament changed by its own
compare-and-set (``TournamentStore.change``), found through the account's index
(``tourns:{tourns}:of:<uid>``), so a change made by another process meanwhile is
retried, never overwritten."""

from __future__ import annotations

from collections.abc import Callable

from redis.exceptions import RedisError

from server import metrics
from server.errors import LobbyError, Unavailable
from server.tournaments.model import OPEN, Tournament
from server.tournaments.store import Stale, TournamentStore

MAX_ENTRIES = 10_000
"""More tournaments than one account can have joined (``MAX_PLAYERS`` per tournament,
``tournaments_per_account`` open at once as creator)."""


def withdrawn(uid: str) -> Callable[[Tournament], bool]:
    """The change that withdraws ``uid`` (``Tournament.withdraw``) if it still plays."""
    def change(t: Tournament) -> bool:
        e = t.entry(uid)
        if t.status not in OPEN or e is None or e.withdrawn:
            return False
        t.withdraw(uid)
        return True
    return change


def renamed(uid: str, name: str) -> Callable[[Tournament], bool]:
    """The change that shows ``uid`` as ``name`` (``Tournament.rename``)."""
    return lambda t: t.rename(uid, name)


class Entries:
    """``TournamentEntries`` on a ``TournamentStore``."""

    def __init__(self, store: TournamentStore) -> None:
        self.store = store

    async def _each(self, uid: str, change: Callable[[Tournament], bool]) -> int:
        try:
            done = 0
            for tid in await self.store.of_account(uid, MAX_ENTRIES):
                try:
                    got = await self.store.change(tid, change)
                except LobbyError:
                    continue  # over meanwhile: nothing to withdraw from
                done += bool(got is not None and got[1])
            return done
        except (RedisError, Stale) as e:
            metrics.REDIS_ERRORS.inc()
            raise Unavailable(str(e)) from None

    async def withdraw_everywhere(self, uid: str) -> int:
        return await self._each(uid, withdrawn(uid))

    async def rename_everywhere(self, uid: str, name: str) -> int:
        return await self._each(uid, renamed(uid, name))
