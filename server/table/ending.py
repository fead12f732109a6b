"""The end of a game: settled once (ratings and mails through the listener), marked ended
in the meta and the lobby row, archived once nobody watches it, and its record.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from engine import seat_control
from engine.chain import REDACTED
from engine.shuffle import combine_seed
from server import metrics
from server.errors import LobbyError, confirmed
from server.logging import get_logger
from server.store.streams import unpack as unpack_entry
from server.table import archive
from server.table.live import LiveTable
from server.table.meta import DELETED
from server.table.records import make_record

if TYPE_CHECKING:  # the hub that builds this object (no import at run time)
    from server.table.tables import Tables

log = get_logger("tables")


class Ending:
    """Settles, archives and records the ended games of ``tables``."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def archive_later(self, table: LiveTable) -> None:
        """Archive the game after ``archive_after`` seconds unless it is watched again."""
        await asyncio.sleep(self.tables.settings.archive_after)
        if table.id not in self.tables.cache and not self.tables.closing:
            await self.archive(table)

    async def archive(self, table: LiveTable) -> None:
        """Store an ended, unwatched game as its archive (events and action ids go)."""
        try:
            raw = await self.tables.store.load_raw(table.id)
            if len(raw) != table.seq or table.meta.seq != table.seq:
                return  # archived already, or this process is behind
            fields = await self.tables.store.load_meta(table.id)
            # The archive holds the game as played (sealing protects it only until the end).
            entries = self.tables.store.opened(table.id, [unpack_entry(b) for b in raw])
            blob = archive.pack(table.meta, entries)
            if await self.tables.store.archive(table.id, table.seq, blob, fields):
                log.info("game archived", table=table.id, seq=table.seq,
                         bytes_before=sum(map(len, raw)), bytes_after=len(blob))
        except archive.ArchiveError as e:
            log.error("game not archived: its archive would not rebuild it", table=table.id,
                      error=str(e))
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("game not archived", table=table.id, error=str(e))

    def game_ended(self, table: LiveTable) -> None:
        """``TableEvents``: settle the end (``_finish``) unless it is marked already."""
        if table.meta.status != "ended":
            self.tables.spawn(self.finish(table))

    async def finish(self, table: LiveTable) -> None:
        """Settle the end (``settle``), then archive the game later unless this process
        watches it."""
        if await self.settle(table) and self.tables.cache.get(table.id) is not table:
            await self.archive_later(table)  # nobody here watched it to its end

    async def settle(self, table: LiveTable) -> bool:
        """The end of the game settled: ratings and mails (the listener), then the meta
        and lobby row marked ``ended`` (with the winners and totals; ``voided`` for a
        voided game). False when the listener failed (a later load retries). Repeatable."""
        if table.voided is not None:
            await self.mark_voided(table)  # no result: nothing to rate or mail
            return True
        result = table.game.result(table.state)
        winners = result.get("winners") if isinstance(result, dict) else None
        if winners is not None:  # a resigned seat cannot win (docs/rules.md, "Resigning")
            winners = [w for w in winners if not table.control.resigned(w)]
        fields = {"status": "ended", "ended_at": repr(self.tables.now() / 1000)}
        if winners is not None:
            fields["winners"] = json.dumps(winners)
        scores = result.get("scores") if isinstance(result, dict) else None
        totals = [s.get("total") for s in scores] if isinstance(scores, list) else None
        if totals is not None:
            fields["scores"] = json.dumps(totals)
        try:
            await self.tables.listener.game_ended(table)
        except Exception as e:  # ratings not (all) applied: leave it for a retry
            log.warning("end of game not settled", table=table.id, error=repr(e))
            return False
        try:
            version = await self.tables.store.update_meta(table.id, fields)
            if version is not None:
                # The lobby row as the meta now stands: winners and totals included.
                await self.tables.lobby.index(dataclasses.replace(
                    table.meta, status="ended", winners=winners, scores=totals,
                    version=str(version)))
            await self.tables.store.mark_bot_table(table.id, False)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("could not mark ended", table=table.id, error=str(e))
        log.info("game ended", table=table.id, seq=table.seq)
        return True

    async def mark_voided(self, table: LiveTable) -> None:
        """Mark a voided game ended in the meta and the lobby row, with ``voided`` (its
        reason) and no winners; nobody is told to settle it (no ratings, no mails). Safe
        to repeat, from several tasks and processes at once (the process that voids, the
        command's own settling, a process that watches the table): the meta is marked
        by compare-and-set on its version, and only the one that marked it logs ``game
        voided``."""
        reason = table.voided or ""
        fields = {"status": "ended", "ended_at": repr(self.tables.now() / 1000), "voided": reason}
        try:
            for _ in range(5):
                stored = await self.tables.store.load_meta(table.id)
                if not stored or (stored.get("status") == "ended"
                                  and stored.get("voided") == reason):
                    return  # gone, or marked by another task or process
                version = await self.tables.store.update_meta(
                    table.id, fields, expected_version=stored.get("version", ""))
                if version is not None:
                    break
            else:
                return  # changed under us each time: a later load settles it again
            await self.tables.lobby.index(dataclasses.replace(
                table.meta, status="ended", winners=None, scores=None, voided=reason,
                version=str(version)))
            await self.tables.store.mark_bot_table(table.id, False)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("could not mark voided", table=table.id, error=str(e))
            raise
        log.info("game voided", table=table.id, seq=table.seq, reason=reason)

    async def record(self, table: LiveTable) -> dict[str, Any]:
        """The game record (CONTRACT §1 with ``seed`` and ``deck``) plus ``server_seed``,
        ``commitment``, ``contributions``, ``table_id``, the final ``head`` and the
        ``result`` (CONTRACT §3, as the replay must end), the seats' ``name_salts`` and
        ``name_commitments`` (a deleted account's salt ``None``, its name ``REDACTED``;
        docs/fairness.md §5), and a branched table's ``branch`` (where it came from and
        the source's dealt cards: ``verify`` recomputes its deal). Raises
        ``LobbyError`` (409) before the end."""
        if not table.game_over():
            raise LobbyError(409, "not_ended", "the record is published when the game has ended")
        entries = await confirmed(self.tables.entries(table.id, table.meta))
        game = table.game
        events = [table.decode(e) for e in entries]
        actions = [e["a"] for e in entries if "a" in e]
        meta = table.meta
        seed = combine_seed(meta.server_seed, meta.contributions)
        deck = game.setup_deck(events)
        # The players the game was dealt to (its first event), not the seats' occupants
        # now: a seat handed to a bot stays its player's in the replay and the chain.
        players = list(events[0].to_dict().get("players") or meta.players())
        # A deleted account's name goes from the record (docs/protocol.md, "Deleting an
        # account"), with its salt: the record keeps the seat's name commitment, which
        # is what the chain links (docs/fairness.md §5, "Names").
        redacted = [i for i, seat in enumerate(meta.seats) if seat.account == DELETED]
        for i in redacted:
            players[i] = REDACTED
        names: dict[str, Any] = {}
        if meta.name_commitments:
            names = {"name_salts": [None if i in redacted else salt
                                    for i, salt in enumerate(meta.name_salts)],
                     "name_commitments": list(meta.name_commitments)}
        return make_record(meta.game, players, meta.options, seed, deck, actions,
                           server_seed=meta.server_seed, commitment=meta.commitment,
                           contributions=list(meta.contributions), table_id=table.id,
                           head=entries[-1]["h"] if entries else meta.head,
                           result=None if table.control.voided else game.result(table.state),
                           seat_changes=seat_control.record_changes(entries),
                           resigned=[i for i in range(len(players)) if table.control.resigned(i)],
                           **names, **({"redacted_seats": redacted} if redacted else {}),
                           **({"branch": meta.branch} if meta.branch is not None else {}),
                           **({"voided": True} if table.control.voided else {}))
