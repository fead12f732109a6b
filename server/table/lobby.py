"""Lobby operations on a table's meta: create, change while open (optimistic version
check), rename seats in the stored game, start (the first events in one append), and the
lobby's read model.
"""

from __future__ import annotations

import contextlib
import copy
import json
import secrets
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from engine import get_game
from engine.branch import Step
from engine.chain import genesis, name_commitment
from engine.shuffle import combine_seed, commitment
from server import metrics
from server.accounts.ratings import bot_uid
from server.errors import LobbyError, Unavailable, confirmed
from server.logging import get_logger
from server.play import clock as clocks
from server.play import roles
from server.table import archive
from server.table.core import TableCore
from server.table.meta import DELETED, Seat, TableMeta, token_hash

if TYPE_CHECKING:  # the hub that builds this object (no import at run time)
    from server.table.tables import Tables

log = get_logger("tables")


class TableLobby:
    """Creates, changes and starts the tables of ``tables``."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def create(self, game_name: str, seats: int, options: dict[str, Any], name: str,
                     private: bool = False, time_control: dict[str, Any] | None = None,
                     rated: bool = False, creator: str = "",
                     ) -> tuple[TableMeta, str, str | None]:
        """A new open table with its server seed drawn and committed; returns its meta,
        the creator's token (the host's, ``server.play.roles``) and, for a ``private`` table
        (never listed), its invite secret (stored only as a hash). ``time_control``: as
        ``server.play.clock.parse`` takes it (``None``: none); a public table gets a clock
        even so (``clock.for_table``). Raises 400 ``bad_message`` for a bad one and for a
        private rated table (a rated result shows on the ladder). ``creator``: the uid of
        the creating account ('' : a guest), kept on the meta."""
        game = get_game(game_name)
        if private and rated:
            # A rated result is public (the ladder, the profile's ratings): a private
            # table's game must not show there.
            raise LobbyError(400, "bad_message", "a rated table is public: a private table "
                                                 "is not rated")
        if not game.min_players <= seats <= game.max_players:
            raise LobbyError(400, "bad_message",
                             f"{game_name} takes {game.min_players}-{game.max_players} seats")
        try:
            time_control = clocks.for_table(time_control, private)
        except ValueError as e:
            raise LobbyError(400, "bad_message", str(e)) from None
        server_seed = secrets.token_bytes(32).hex()
        owner = secrets.token_urlsafe(16)
        invite = secrets.token_urlsafe(16) if private else None
        meta = TableMeta(
            id=secrets.token_urlsafe(9), game=game_name, status="open", name=name,
            options=options, seats=[Seat() for _ in range(seats)],
            contributions=[""] * seats, commitment=commitment(server_seed),
            server_seed=server_seed, created_at=time.time(), tokens=[""] * seats,
            name_salts=new_name_salts(seats),
            owner=token_hash(owner), invite=token_hash(invite) if invite else "",
            time_control=dict(time_control or {}), rated=rated, creator=creator)
        meta.head = genesis(meta.id, meta.commitment).hex()
        await confirmed(self.tables.store.create(meta.id, meta.to_fields(),
                                                 self.open_expiry(meta)))
        await self.index(meta)
        log.info("table created", table=meta.id, seats=seats, private=private)
        return meta, owner, invite

    async def index(self, meta: TableMeta) -> None:
        """Copy the table's summary into the lobby lists (server/store/lobby_index.py). Best
        effort: the meta is the authority, and a row that missed a change is rewritten
        at the table's next lobby change. A private table is never listed."""
        try:
            await self.list_row(meta)
        except RedisError as e:
            metrics.REDIS_ERRORS.inc()
            log.warning("lobby list not updated", table=meta.id, error=str(e))

    async def list_row(self, meta: TableMeta) -> None:
        """``index`` for a caller that must know it was written (a tournament's board):
        idempotent (the index keeps the newest meta version it was given), nothing for a
        private table. Raises ``redis.RedisError``."""
        if meta.private:
            return
        expires = (self.tables.now() / 1000 + self.open_expiry(meta)
                   if meta.status == "open" else 0.0)
        await self.tables.store.lobby.put(meta.summary(), int(meta.version), expires)

    def open_expiry(self, meta: TableMeta) -> int:
        """Seconds an open table lives from its latest lobby change (its meta's expiry and
        its lobby row's): ``empty_table_expiry`` while no person sits at it (created and
        never joined, or left by everyone; bots alone do not keep it: an abandoned table
        leaves the lobby within minutes), else ``idle_expiry``."""
        if any(s.kind == "human" for s in meta.seats):
            return self.tables.settings.idle_expiry
        return self.tables.settings.empty_table_expiry

    async def fresh_meta(self, table_id: str) -> TableMeta:
        fields = await confirmed(self.tables.store.load_meta(table_id))
        if not fields:
            raise LobbyError(404, "no_table", f"no table {table_id!r}")
        return TableMeta.from_fields(table_id, fields)

    async def change(self, table_id: str,
                           change: Callable[[TableMeta], dict[str, str] | Any],
                           statuses: tuple[str, ...] = ("open",),
                           admit: Callable[[TableMeta], None] | None = None) -> TableMeta:
        """Apply ``change(meta)`` (which validates, edits ``meta`` and returns the fields
        to store) to the current meta with an optimistic version check; retried on a
        concurrent change. ``admit(meta)`` runs first (a private table: 404 without its
        secret, before anything else is told). Only while the table's status is one of
        ``statuses`` (else 409 ``started``; ``ended`` when running ones are allowed); only
        an open table's expiry is refreshed."""
        for _ in range(8):
            meta = await self.fresh_meta(table_id)
            if admit is not None:
                admit(meta)
            if meta.status not in statuses:
                if meta.status == "ended" and "running" in statuses:
                    raise LobbyError(409, "ended", "the game has ended")
                raise LobbyError(409, "started", "the game has already started")
            fields = change(meta)
            ttl = self.open_expiry(meta) if meta.status == "open" else 0
            version = await confirmed(self.tables.store.update_meta(
                table_id, fields, expected_version=meta.version, ttl=ttl))
            if version is not None:
                meta.version = str(version)
                await self.index(meta)
                return meta
        raise LobbyError(409, "stale", "the table changed meanwhile; try again")

    async def rename_seats(self, table_id: str, names: dict[int, str],
                           chat_channels: tuple[str, ...]) -> None:
        """Rename seats (seat → name) in what the table stored of the game: the players
        of its first event (or archive) and the ``from`` of their chat messages. The chain
        links names as commitments, so every stored head stays valid (fairness.md §5,
        "Names"). Cached copies rebuild once the meta says so (``_set_meta``). Raises
        ``Unavailable``."""
        def chat(_: int, msg: Any) -> Any:
            sender = msg.get("from") if isinstance(msg, dict) else None
            if isinstance(sender, dict) and sender.get("role") == "player" \
                    and sender.get("seat") in names \
                    and sender.get("name") != names[sender["seat"]]:
                return {**msg, "from": {**sender, "name": names[sender["seat"]]}}
            return None

        await confirmed(self.tables.store.rewrite_first_entry(
            table_id, lambda entry: archive.rename_start(entry, names),
            lambda blob: archive.renamed(blob, names)))
        for key in self.tables.store.chat_keys(table_id, chat_channels):
            await confirmed(self.tables.store.rewrite_list(key, chat))

    async def start_game(self, table_id: str, token: str | None, key: str | None = None,
                         deck: Any = None, steps: Sequence[Step] | None = None
                         ) -> TableMeta:
        """Start (the host only, ``server.play.roles``): every seat filled; seed =
        combine_seed(server_seed, contributions); store the game's first events in one
        append. Returns the meta (once the table is cached here, the cached table's own:
        read it only). ``key``: a private table's invite secret.

        ``deck``: what is dealt instead of the seed's shuffle (as the game's record
        ``deck_field`` holds it), for tests that need a chosen deal (then the deal does not
        follow from the commitment). No route passes it: the HTTP start takes none.

        ``steps``: a branched table's first steps (``engine.branch.deal`` of the meta's
        ``branch`` for its players and seed: the start, then the source's actions, each
        stored with its action), appended instead of the game's start.

        Raises ``LobbyError``: 401/403 not the host, 404 ``no_table``, 409 ``started``,
        ``seats_empty``, ``account_needed`` or ``stale``, 400 ``bad_options``; and
        ``Unavailable``."""
        # The first try decides on the cached table's meta when there is one (its
        # sockets keep it in step): the append stores only if the stored version is still
        # that meta's, so what it lets through is what Redis holds. What it refuses is
        # asked again of Redis (a join or a host change may be on its way here).
        meta = self.cached_meta(table_id)
        for _ in range(4):
            if meta is not None:
                try:
                    ready = self._prepared_start(meta, token, key, deck, steps)
                except LobbyError:
                    meta = None
            if meta is None:
                meta = await self.fresh_meta(table_id)
                ready = self._prepared_start(meta, token, key, deck, steps)
            started, entries, head, prev, clocked = ready
            if clocked is not None:
                await confirmed(self.tables.store.deadlines.lower(table_id, clocked))
            result = await confirmed(self.tables.store.append(
                table_id, 0, entries, head, expected_version=meta.version,
                meta_fields=started, meta_changed=True, prev=prev))
            if result.status == "ok":
                if any(s.kind == "bot" for s in meta.seats):
                    await self.tables.bots.note(table_id)
                meta.status, meta.seq, meta.head = "running", result.seq, head
                meta.version = str(int(meta.version) + 1)  # the script bumped it
                await self.index(meta)
                table = self.tables.cache.get(table_id)
                if table is not None:
                    table.apply(entries, 1)
                    # ``meta`` is what the script left stored: no read needed. A meta the
                    # table holds already at that version or later came from a read
                    # after the start (its sync), and stays.
                    if int(table.meta.version) < int(meta.version):
                        self.tables.streams.set_meta(table, meta)
                    self.tables.actions.clock_moved(table)
                elif any(s.kind == "bot" for s in meta.seats) or clocked is not None:
                    with contextlib.suppress(Unavailable):
                        # Load it here: its bots play, its clock runs.
                        await self.tables.get(table_id)
                if self.tables.listener.wants_turns:
                    self.tables.spawn(self.first_turn(table_id))
                log.info("game started", table=table_id, seq=result.seq)
                return meta
            if result.status == "missing":
                raise LobbyError(404, "no_table", f"no table {table_id!r}")
            meta = None  # changed meanwhile: decide again on a read
        raise LobbyError(409, "stale", "the table changed meanwhile; try again")

    def cached_meta(self, table_id: str) -> TableMeta | None:
        """A copy of the cached table's meta (``None``: not cached) that a start may
        change: its fields are replaced, never changed in place, so a shallow copy."""
        table = self.tables.cache.get(table_id)
        return None if table is None else copy.copy(table.meta)

    def _prepared_start(self, meta: TableMeta, token: str | None, key: str | None,
                        deck: Any, steps: Sequence[Step] | None
                        ) -> tuple[dict[str, str], list[dict[str, Any]], str, str, int | None]:
        """The start of ``meta`` as ``start_game`` stores it: the meta fields, the
        entries, the new head and the head they follow (hex), and the first move's
        deadline (ms since the epoch; ``None``: no clock). Sets the started fields on
        ``meta``. Raises ``LobbyError`` as ``start_game`` does."""
        roles.admit(meta, token, key)
        if meta.status != "open":
            raise LobbyError(409, "started", "the game has already started")
        roles.require_starter(meta, token)
        empty = [i for i, s in enumerate(meta.seats) if s.kind is None or meta.waiting(i)]
        if empty:
            raise LobbyError(409, "seats_empty", f"seat(s) {empty} hold nobody yet")
        meta.started_at = self.tables.now() / 1000
        started = {"status": "running", "started_at": repr(meta.started_at)}
        # Names are chained as salted commitments, so a deleted account's name can
        # leave the record while the chain still verifies (fairness.md §5, "Names").
        if len(meta.name_salts) != len(meta.seats):  # a table created before salts
            meta.name_salts = new_name_salts(len(meta.seats))
        meta.name_commitments = [name_commitment(salt, name) for salt, name
                                 in zip(meta.name_salts, meta.players(), strict=True)]
        started["name_salts"] = json.dumps(meta.name_salts)
        started["name_commitments"] = json.dumps(meta.name_commitments)
        if meta.rated:
            meta.accounts = rated_accounts(meta)
            started["accounts"] = json.dumps(meta.accounts)
        game = get_game(meta.game)
        seed = combine_seed(meta.server_seed, meta.contributions)
        if steps is None:  # dealt from this meta's seed and players, at every try
            try:
                steps = [(None, list(game.start(meta.players(), meta.options, seed, deck)))]
            except ValueError as e:
                raise LobbyError(400, "bad_options", str(e)) from None
        shadow = TableCore(meta, 1)
        prev = shadow.head.hex()
        entries = []
        for action, events in steps:  # each action's events chained with it
            part, head = shadow.chain(events, action)
            entries += part
            shadow.head, shadow.seq = bytes.fromhex(head), shadow.seq + len(part)
        clocked = None
        if shadow.tc.clocked:
            now = self.tables.now()
            entries[-1]["c"] = clocks.start(shadow.tc, len(meta.seats), now).to_dict()
            clocked = now + shadow.tc.per_move
        return started, entries, head, prev, clocked

    async def first_turn(self, table_id: str) -> None:
        table = await self.tables.get(table_id)
        if table is not None and not table.game_over():
            await self.tables.listener.turn_changed(table, table.to_move())

    async def listing(self, statuses: list[str], limit: int = 100) -> list[dict[str, Any]]:
        """Summaries of the listed (not private) tables with those statuses, newest first,
        from the lobby's read model (one round trip, at most ``limit`` rows per status;
        expired open tables are dropped from it)."""
        rows = await confirmed(self.tables.store.lobby.listing(statuses, limit,
                                                               self.tables.now() / 1000))
        rows.sort(key=lambda s: s["created_at"], reverse=True)
        return rows[:limit]


def new_name_salts(seats: int) -> list[str | None]:
    """One secret name salt per seat (32 random bytes, hex), drawn with the server seed
    when a table is created (a copy of the meta is the same table: the leak tests' twin
    tables); the chain links each name salted (docs/fairness.md §5, "Names")."""
    return [secrets.token_hex(32) for _ in range(seats)]


def rated_accounts(meta: TableMeta) -> list[str]:
    """The rated account of each seat of a rated table at its start: a person's own, a
    bot's per kind and level (``server.accounts.ratings.bot_uid``). Raises 409 ``account_needed``
    for a seat held by a guest."""
    out = []
    for i, s in enumerate(meta.seats):
        if s.kind == "bot":
            out.append(bot_uid(s.bot or "random", s.level))
        elif s.account and s.account != DELETED:
            out.append(s.account)
        else:
            raise LobbyError(409, "account_needed",
                             f"seat {i} holds a guest; a rated table seats accounts and bots")
    return out
