"""The live table's pure core: the fold of a table's stored entries, and what to send.

``TableCore`` holds one table's state as the fold of its stored entries (the game's
events and the seat-control events of engine/seat_control.py), its seq and hash-chain
head, the view each viewer class was last sent (the base of its next patch) and a ring of
recent deltas for reconnects. ``take`` folds the entries of one append and *returns* what
must be sent (an ``Outbox``: the per-viewer delta, the clock message, the prompts, and
whether seats changed hands or the game ended); it never touches a socket, Redis, a lock
or a clock (the time it needs is passed in), in the way python-websockets' ``Protocol``
returns ``data_to_send()`` for its ``Connection`` to write. The asyncio shell
(server/table/live.py) writes the outbox; the replay endpoints and a reconnect's catch-up
(``replay_deltas``) build the very same deltas from the same functions.

Every view the core hands out carries the table's seq in ``seq`` (a seat-control event
moves the table's seq but not the game's: docs/protocol.md, ``welcome``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import get_game, seat_control
from engine.chain import chained_form, genesis, link
from engine.game import Game, Message
from server.fanout.delta import Delta
from server.play import clock as clocks
from server.table.meta import TableMeta
from server.table.patch import diff

HEADS_KEPT = 256
"""Chain heads of the latest seqs a table keeps, to check published entries against."""

View = dict[str, Any]
ViewerKey = int | None


def viewer_keys(game: Game, seats: int) -> list[ViewerKey]:
    """The viewer classes deltas are computed for: only ``None`` when the game declares
    ``uniform_view`` (every viewer sees the same), else ``None`` and every seat."""
    if game.uniform_view:
        return [None]
    return [None, *range(seats)]


def evolve(game: Game, state: Any, event: Message) -> Any:
    """The game's ``evolve``, skipping seat-control events (engine/seat_control.py)."""
    return state if seat_control.is_control(event) else game.evolve(state, event)


def project(game: Game, event: Message, viewer: ViewerKey) -> dict[str, Any] | None:
    """What ``viewer`` sees of a stored event; seat-control events hide nothing (as
    ``engine.chain.public_events`` hashes them)."""
    return event.to_dict() if seat_control.is_control(event) else game.project(event, viewer)


def wire_view(game: Game, state: Any, viewer: ViewerKey, seq: int) -> View:
    """``game.view(state, viewer)`` with the table's ``seq`` (stored events of every kind,
    seat-control ones included) in place of the game's own count of its events."""
    view = game.view(state, viewer)
    if view.get("seq", seq) != seq:
        view = {**view, "seq": seq}
    return view


def synced(game: Game, view: View, state: Any, viewer: ViewerKey, seq: int
           ) -> list[dict[str, Any]] | None:
    """``game.sync_view``: ``view`` (the class's kept view, at the table's seq before) changed
    in place into ``wire_view(game, state, viewer, seq)``, and the patch that does it;
    ``None`` (``view`` untouched) for a game that does not sync its views."""
    old = view.get("seq")
    ops = game.sync_view(view, state, viewer)
    if ops is None:
        return None
    if old is None:
        return ops
    # The view's ``seq`` is the table's (seat-control events count), not the game's.
    view["seq"] = seq
    ops = [op for op in ops if op["path"] != "/seq"]
    if old != seq:
        ops.insert(0, {"op": "replace", "path": "/seq", "value": seq})
    return ops


def bases(game: Game, keys: list[ViewerKey], events: list[Message], state: Any
          ) -> tuple[dict[ViewerKey, View], dict[ViewerKey, int]]:
    """Per viewer class, after ``events`` (which folded to ``state``): the view it was
    last sent (the base of its next patch) and that delta's seq (0: none yet). A class is
    sent a delta for every event whose projection for it is not ``None``; with the games
    of today that is every event, and the view is the current one."""
    last = dict.fromkeys(keys, 0)
    for seq, event in enumerate(events, 1):
        for k in keys:
            if project(game, event, k) is not None:
                last[k] = seq
    behind = {k for k in keys if 0 < last[k] < len(events)}
    views: dict[ViewerKey, View] = {}
    if behind:  # a class was sent nothing lately: its base is its view back then
        earlier = game.initial_state()
        for seq, event in enumerate(events[:max(last[k] for k in behind)], 1):
            earlier = evolve(game, earlier, event)
            for k in behind:
                if last[k] == seq:
                    views[k] = wire_view(game, earlier, k, seq)
    for k in keys:
        if k not in views:
            views[k] = wire_view(game, state, k, len(events))
    return views, last


def build_delta(game: Game, keys: list[ViewerKey], views: dict[ViewerKey, View],
                last: dict[ViewerKey, int], state: Any,
                events: list[tuple[int, str, Message]],
                public: list[dict[str, Any] | None] | None = None) -> Delta:
    """The delta of consecutive stored events (``(seq, head, event)``: one append, which
    folded to ``state``) for every viewer class in ``keys``: the events as it sees them
    (``project``) with their seqs and chain heads, and one RFC 6902 patch
    (server/table/patch.py) from the view that class was last sent (``views``, at seq
    ``last``) to its view now; ``keys``, ``views`` and ``last`` are updated in place.
    Events projected as ``None`` are left out; a class that sees none of them gets nothing
    (its message is ``None``) and keeps its last view, so its next patch covers both.
    ``prev`` is the seq of the class's previous delta: the view its patch applies to. A
    seat whose message equals the spectators' shares their frame.

    ``public``: ``project(game, event, None)`` of each event when the caller has them
    (this process's own append: ``TableCore.chain`` projected them for the hash chain).

    A seat resigned by these events leaves the viewer classes: its message is the events
    as a spectator sees them and a patch replacing the whole document with the
    spectators' view, and from the next delta on it gets the spectators' frames (a seat
    without an entry does), so its former player's open sockets read no card the bot
    draws from then on."""
    dicts: dict[ViewerKey, dict[str, Any] | None] = {}
    seq = events[-1][0]
    gone = {seat_control.resigned_seat(event) for _, _, event in events}
    for k in keys:
        viewer = None if k in gone else k
        if viewer is None and public is not None:
            shown = [{"seq": n, "event": projected, "head": head}
                     for (n, head, _), projected in zip(events, public, strict=True)
                     if projected is not None]
        else:
            shown = [{"seq": n, "event": projected, "head": head} for n, head, event in events
                     if (projected := project(game, event, viewer)) is not None]
        if not shown:
            dicts[k] = None
            continue
        before = last.get(k, 0)
        base = views.get(k) if before and viewer == k else None
        patch = None if base is None else synced(game, base, state, viewer, seq)
        if patch is None:
            view = wire_view(game, state, viewer, seq)
            # A class's first delta patches the whole document: folding patches 1…k from
            # any document gives the view at k (the replay viewer relies on it). The kept
            # view is another object: a game that syncs it changes it in place later.
            patch = diff(base, view)
            views[k] = view if base is not None else wire_view(game, state, viewer, seq)
        last[k] = seq
        msg = {"t": "deltas", "seq": seq, "prev": before, "events": shown, "patch": patch}
        if k is not None and None in dicts and msg == dicts[None]:
            continue  # same as the spectators': share their frame
        dicts[k] = msg
    for k in gone & set(keys) - {None}:
        keys.remove(k)
        views.pop(k, None)
        last.pop(k, None)
    return Delta(events[0][0], seq, dicts)


def replay_deltas(game: Game, keys: list[ViewerKey], events: list[Message],
                  heads: list[str], after: int = 0, ends: Container[int] | None = None
                  ) -> list[Delta]:
    """The deltas of ``events`` after seq ``after``, computed exactly as live (``heads``:
    the chain head after each event, or '' each when unknown): one per event, or with
    ``ends`` one per run of events ending at a seq in ``ends`` or at the last event (the
    appends as live: the seqs acks named; ``()``: one delta for all of them, a
    reconnect's catch-up)."""
    gone = {seat_control.resigned_seat(e) for e in events[:after]}
    live_keys = [k for k in keys if k is None or k not in gone]
    state = game.initial_state()
    for event in events[:after]:
        state = evolve(game, state, event)
    views, last = bases(game, keys, events[:after], state)
    seq = after
    out = []
    done: list[tuple[int, str, Message]] = []
    for event, head in zip(events[after:], heads[after:], strict=True):
        state = evolve(game, state, event)
        seq += 1
        done.append((seq, head, event))
        if ends is None or seq in ends:
            out.append(build_delta(game, live_keys, views, last, state, done))
            done = []
    if done:
        out.append(build_delta(game, live_keys, views, last, state, done))
    return out


@dataclass
class Outbox:
    """What one append means for the table's sockets, in the order it goes out: the
    ``delta`` (``None``: nothing new was applied), the ``clock`` message (a clocked table
    whose append carried the clock), then ``prompts`` (``(seat, seq, prompt message)`` for
    each seat to move that has sockets and is played by its person). ``to_move``: the
    seats to move now; ``control_changed``: a seat changed hands; ``over``: the game has
    ended."""

    delta: Delta | None = None
    clock: dict[str, Any] | None = None
    prompts: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    to_move: tuple[int, ...] = ()
    control_changed: bool = False
    over: bool = False


class TableCore:
    """One table's fold and its per-viewer views (see the module docstring); pure."""

    def __init__(self, meta: TableMeta, ring_size: int) -> None:
        self.id = meta.id
        self.meta = meta
        self.game: Game = get_game(meta.game)
        self.keys = viewer_keys(self.game, len(meta.seats))
        self.state: Any = self.game.initial_state()
        self.moves = 0
        """Game events folded into ``state`` since it was made (seat-control events leave
        the game's state as it is): what the kept prompts are keyed by."""
        self.prompts: dict[int, tuple[int, dict[str, Any]]] = {}
        self.chained: tuple[list[dict[str, Any]], list[Message],
                            list[dict[str, Any] | None]] | None = None
        """The entries list the last ``chain`` returned, its events and their public
        projections, so that ``take`` of that very list (this process's own append)
        neither decodes nor projects them again."""
        """Per seat, its last prompt's legal actions (``prompt``'s keys after ``seq``) and
        the ``moves`` they were listed at."""
        self.controls = 0
        """Seat-control events folded (``take`` tells whether an append had one)."""
        self.seq = 0
        self.head = genesis(meta.id, meta.commitment)
        self.heads: deque[str] = deque([self.head.hex()], maxlen=HEADS_KEPT)
        self.views: dict[ViewerKey, View] = {}
        self.last: dict[ViewerKey, int] = {}
        self.ring: deque[Delta] = deque(maxlen=max(ring_size, 1))
        self.tc = clocks.parse(meta.time_control)
        self.clock: clocks.Clock | None = None
        """The move clock as of the last stored entry that carried one (``c``)."""
        self.control = seat_control.Control()
        self.resigned_at: dict[int, int] = {}
        """Per resigned seat, the seq of its resignation: from there on its sockets and
        token are a spectator's (``viewer_class``)."""
        self._reset_views()

    def _reset_views(self) -> None:
        self.views = {k: wire_view(self.game, self.state, k, self.seq) for k in self.keys}
        self.last = dict.fromkeys(self.keys, 0)

    def head_at(self, seq: int) -> str | None:
        """The chain head (hex) after seq ``seq``, if still kept (``HEADS_KEPT``)."""
        back = self.seq - seq
        if back < 0 or back >= len(self.heads):
            return None
        return self.heads[-1 - back]

    def reset(self, meta: TableMeta, entries: list[dict[str, Any]]) -> None:
        """Forget everything folded and fold the stored ``entries`` (all of them, from
        seq 1) again: the stored stream is not the one this table had applied."""
        self.meta = meta
        self.state = self.game.initial_state()
        self.moves = 0
        self.prompts = {}
        self.chained = None
        self.seq = 0
        self.head = genesis(meta.id, meta.commitment)
        self.heads = deque([self.head.hex()], maxlen=HEADS_KEPT)
        self.clock = None
        self.control = seat_control.Control()
        self.resigned_at = {}
        self.keys = viewer_keys(self.game, len(meta.seats))
        self.ring.clear()
        self.replay(entries)
        meta.seq, meta.head = self.seq, self.head.hex()

    # ---- folding stored entries ----------------------------------------------------------

    def decode(self, entry: dict[str, Any]) -> Message:
        """A stored entry's event (the game's, or a seat-control event)."""
        return seat_control.decode(self.game.events, entry["e"])

    def _fold(self, entry: dict[str, Any], event: Message | None = None) -> Message:
        # ``event``: the entry's, when the caller has it (``chain`` made the entry).
        if event is None:
            event = self.decode(entry)
        if seat_control.is_control(event):
            self.controls += 1
            self.control.apply(event)
            seat = seat_control.resigned_seat(event)
            if seat is not None:
                self.resigned_at.setdefault(seat, self.seq + 1)
        else:
            self.state = self.game.evolve(self.state, event)
            self.moves += 1
        if "c" in entry:
            self.clock = clocks.Clock.from_dict(entry["c"])
        self.seq += 1
        self.head = bytes.fromhex(entry["h"])
        self.heads.append(entry["h"])
        return event

    def replay(self, entries: list[dict[str, Any]]) -> None:
        """Fold all stored entries (from seq 1) without building deltas (a rebuild)."""
        events = [self._fold(entry) for entry in entries]
        self.keys = [k for k in self.keys if k is None or k not in self.resigned_at]
        self.views, self.last = bases(self.game, self.keys, events, self.state)

    def take(self, entries: list[dict[str, Any]], first_seq: int,
             seated: Container[int] = (), now: int = 0) -> Outbox | None:
        """Fold the entries of one append whose first has seq ``first_seq`` (already
        folded ones are skipped) and return what to send: one delta for the append (one
        frame per viewer), kept in the ring too; the clock message (``now``: the
        service's clock, ms) when the append carried the clock; a prompt for each seat to
        move among ``seated`` (the seats with sockets). ``None`` (and nothing folded)
        when entries are missing before them."""
        if first_seq > self.seq + 1:
            return None
        fresh = entries[self.seq + 1 - first_seq:]
        if not fresh:
            return Outbox()
        folded = []
        controls = self.controls
        chained, self.chained = self.chained, None
        public: list[dict[str, Any] | None] | None = None
        if chained is not None and chained[0] is entries and len(chained[1]) == len(entries):
            # This process's own append, as chained (its first ``skip`` folded already).
            skip = len(entries) - len(fresh)
            public = chained[2][skip:]
            for entry, own in zip(fresh, chained[1][skip:], strict=True):
                event = self._fold(entry, own)
                folded.append((self.seq, entry["h"], event))
        else:
            for entry in fresh:
                event = self._fold(entry)
                folded.append((self.seq, entry["h"], event))
        delta = build_delta(self.game, self.keys, self.views, self.last, self.state, folded,
                            public)
        self.ring.append(delta)
        out = Outbox(delta=delta)
        self.meta.seq, self.meta.head = self.seq, self.head.hex()
        if self.tc.clocked and any("c" in e for e in fresh):
            out.clock = self.clock_message(now)
        out.control_changed = self.controls != controls
        out.to_move = self.to_move()
        # A seat handed to a bot keeps its former player's sockets (as watchers): no
        # prompt for them.
        out.prompts = [(seat, self.seq, self.prompt(seat)) for seat in out.to_move
                       if seat in seated and not self.by_bot(seat)]
        out.over = self.game_over()
        return out

    # ---- who plays each seat, and the clock ----------------------------------------------

    def game_over(self) -> bool:
        """True once the table's game has started and ended (or was voided)."""
        return self.seq > 0 and (self.control.voided is not None
                                 or self.game.is_over(self.state))

    @property
    def voided(self) -> str | None:
        """The reason of the table's ``game_voided`` event, or ``None``."""
        return self.control.voided

    def to_move(self) -> tuple[int, ...]:
        """The seats to move now (none once the game is voided)."""
        return () if self.control.voided is not None else self.game.to_move(self.state)

    def by_bot(self, seat: int) -> bool:
        """True while a bot plays ``seat`` (a bot seat, or one handed to a bot)."""
        return self.control.by(seat, self.meta.seats[seat].kind) == "bot"

    def bot_of(self, seat: int) -> tuple[str, int | None]:
        """The kind and level of the bot playing ``seat``."""
        s = self.control.seats.get(seat)
        if s is not None and s.by == "bot" and s.bot:
            return s.bot, s.level
        m = self.meta.seats[seat]
        return m.bot or "random", m.level

    def deadline(self) -> tuple[int, int] | None:
        """``(deadline ms, seat)`` of the earliest running move time of a seat its player
        plays, or ``None`` (no clock, game over, only bots to move)."""
        if self.seq == 0 or self.game_over():
            return None
        people = [s for s in self.to_move() if not self.by_bot(s)]
        return clocks.next_deadline(self.tc, self.clock, people)

    def clock_state(self) -> dict[str, Any] | None:
        """The public clock (docs/protocol.md ``clock``): ``turn_at``, ``deadline`` and
        ``seat`` of the running move time (``null`` when none runs), ``per_move``,
        ``reserve`` and ``timeouts`` per seat; ``None`` for a table without a clock or not
        started."""
        if not self.tc.clocked or self.clock is None:
            return None
        due = self.deadline()
        return {"turn_at": self.clock.turn_at, "per_move": self.tc.per_move,
                "reserve": list(self.clock.reserve), "timeouts": list(self.clock.timeouts),
                "deadline": due[0] if due else None, "seat": due[1] if due else None}

    def clock_message(self, now: int) -> dict[str, Any]:
        """The ``clock`` message (``now``: the server's clock, ms, to correct offsets)."""
        return {"t": "clock", "now": now, "clock": self.clock_state()}

    # ---- what a viewer is shown ----------------------------------------------------------

    def legal(self, seat: int) -> list[dict[str, Any]]:
        """The wire form of ``seat``'s legal actions now."""
        return [a.to_dict() for a in self.game.legal_actions(self.state, seat)]

    def prompt(self, seat: int) -> dict[str, Any]:
        """The ``prompt`` message for ``seat`` now (docs/protocol.md §2): the game's compact
        form of its legal actions (``legal_form``) when the game gives one, else the list
        and, when the game describes them (``action_details``), what each would cost and
        pay out, in the same order. Either way ``decide`` checks the action that comes
        back. The legal actions are kept per seat until the game's state changes (a
        seat-control event, a second socket's hello or a reconnect reuse them); the
        messages share them, so nobody may change a prompt's contents."""
        kept = self.prompts.get(seat)
        if kept is not None and kept[0] == self.moves:
            return {"t": "prompt", "seq": self.seq, **kept[1]}
        body: dict[str, Any] = {}
        form = self.game.legal_form(self.state, seat)
        if form is not None:
            body["legal_form"] = form
        else:
            legal = self.game.legal_actions(self.state, seat)
            body["legal_actions"] = [a.to_dict() for a in legal]
            details = self.game.action_details(self.state, seat, legal)
            if details is not None:
                body["details"] = details
        self.prompts[seat] = (self.moves, body)
        return {"t": "prompt", "seq": self.seq, **body}

    def view(self, viewer: ViewerKey) -> View:
        """The current view for ``viewer`` (a seat of a game whose viewers all see the
        same has no class of its own: the spectators' view). An empty view is a view. The
        table's own object, which the next append changes in place for a game that syncs
        its views (``Game.sync_view``): encode it before the table changes."""
        return self.views[viewer] if viewer in self.views else self.views[None]

    def viewer(self, token: str | None) -> ViewerKey:
        """The seat whose views ``token`` may read (``None``: a spectator's). A wrong or
        stale token, and the token of a resigned seat (``TableMeta.viewer_of``), reads
        what a spectator reads: history endpoints refuse nothing, they only never show
        more than the token may see."""
        return self.viewer_class(self.meta.viewer_of(token) if token else None)

    def viewer_class(self, seat: int | None) -> ViewerKey:
        """The viewer class of a socket or token of ``seat``: the seat, or ``None`` (the
        spectators') once it resigned."""
        return None if seat is None or seat in self.resigned_at else seat

    def recent(self, after: int) -> list[Delta] | None:
        """The deltas after seq ``after`` from the ring, or ``None`` if it lacks some or
        ``after`` falls inside one (a client only ever holds the seq a delta ends at)."""
        if after >= self.seq:
            return []
        found = [d for d in self.ring if d.seq > after]
        if not found or found[0].first != after + 1:
            return None
        return found

    # ---- entries to store ----------------------------------------------------------------

    def chain(self, events: Iterable[Message], action: Message | None, first: int = 0
              ) -> tuple[list[dict[str, Any]], str]:
        """Stored entries for ``events`` (each with its chain head; the one at index
        ``first``, the action's first event, also with the action) and the new head."""
        head = self.head
        entries: list[dict[str, Any]] = []
        publics: list[dict[str, Any] | None] = []
        for i, e in enumerate(events):
            public = project(self.game, e, None)  # fairness.md §5
            linked: Mapping[str, Any] | None = public
            if self.seq == 0 and i == 0:  # the first event: names as commitments
                linked = chained_form(public, self.meta.name_commitments or None)
            head = link(head, linked)
            entries.append({"e": e.to_dict(), "h": head.hex()})
            publics.append(public)
        self.chained = (entries, list(events), publics)
        if action is not None and len(entries) > first:
            entries[first]["a"] = action.to_dict()
        return entries, head.hex()
