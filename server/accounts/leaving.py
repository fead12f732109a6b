"""What an account leaves behind outside its tables when it is banned, suspended, deleted
or renamed
(docs/protocol.md §8, "Accounts that leave"): its entries in tournaments and its waiting
seeks of quick pairing. The tables it sat at are ``server.accounts.erase``'s and the
administration's (server/admin/ops.py).

``Leaving`` is built by ``server.app.Service`` with the two holders, each named here by
the calls it answers (``TournamentEntries``: server/tournaments/entries.py;
``OpenSeeks``: server/pairing/pool.py), so this module imports neither.
"""

from __future__ import annotations

from typing import Protocol

from server.accounts.accounts import DELETED_NAME


class TournamentEntries(Protocol):
    """The tournaments an account joined."""

    async def withdraw_everywhere(self, uid: str) -> int:
        """Withdraw ``uid`` from every scheduled or running tournament it plays in;
        returns how many. Raises ``Unavailable``."""
        ...

    async def rename_everywhere(self, uid: str, name: str) -> int:
        """Show ``uid`` as ``name`` in every tournament it joined or created (finished
        ones too); returns how many changed. Raises ``Unavailable``."""
        ...


class OpenSeeks(Protocol):
    """The quick-pairing pool."""

    async def cancel_all(self, uid: str) -> int:
        """Cancel every waiting seek of ``uid`` (one per game at most); returns how
        many. Raises ``Unavailable``."""
        ...


class Leaving:
    """The steps of a ban, a suspension, a deletion and a rename beyond the account's
    tables."""

    def __init__(self, tournaments: TournamentEntries, seeks: OpenSeeks) -> None:
        self.tournaments = tournaments
        self.seeks = seeks

    async def banned(self, uid: str) -> dict[str, int]:
        """A banned account plays no more: withdrawn from its open tournaments (its game
        in progress plays on, as after any withdrawal), its waiting seeks cancelled.
        Returns the counts (``tournaments_withdrawn``, ``seeks_cancelled``)."""
        return {"tournaments_withdrawn": await self.tournaments.withdraw_everywhere(uid),
                "seeks_cancelled": await self.seeks.cancel_all(uid)}

    async def suspended(self, uid: str) -> dict[str, int]:
        """A suspended account plays no more until its suspension ends: withdrawn and its
        seeks cancelled as by ``banned`` (it joins and seeks again once the suspension has
        ended; meanwhile its session's changes are refused, server/http/csrf.py)."""
        return await self.banned(uid)

    async def deleted(self, uid: str) -> dict[str, int]:
        """As ``banned``, and its name replaced by ``DELETED_NAME`` in every tournament
        (standings and boards show the name, which is personal data)."""
        out = await self.banned(uid)
        await self.tournaments.rename_everywhere(uid, DELETED_NAME)
        return out

    async def renamed(self, uid: str, name: str) -> int:
        """The account is called ``name`` now: so in every tournament's standings."""
        return await self.tournaments.rename_everywhere(uid, name)
