"""The generic game interface every game of the service implements.

The shape follows the decide/evolve style of event sourcing (and the habits of OpenSpiel
and boardgame.io): a game turns a player's *action* into *events* (``decide``), and the
state is the fold of ``evolve`` over those events. The server stores and ships events; it
never looks inside a state and never implements a rule.

Hidden information is handled by *viewers*: ``None`` is a spectator, an ``int`` is a seat.
``view`` and ``project`` return only what that viewer may know, so a game with hidden hands
(Keltis, Loot Island) needs no server change: the server asks the game what each viewer
sees and sends exactly that.

Everything here is pure: no I/O, no clock, no global random state. A game implements
the protocol by subclassing ``engine.base.GameBase``, which supplies the members every
game writes the same way (records through ``engine.records``).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypedDict, TypeVar

if TYPE_CHECKING:
    from engine.shuffle import RandomStream

Viewer = int | None
"""A seat number, or ``None`` for a spectator (who sees only public information)."""


class SeatScore(TypedDict):
    """One seat's entry of ``GameResult.scores``: what the server reads of it. A game
    adds its own breakdown (jewels, rows, crowns, …) as further keys."""

    seat: int
    total: int | None
    """The seat's final score; ``None`` for a seat out of the ranking (Loot Island's
    eliminated by curses): such a game is then not rated."""


class GameResult(TypedDict):
    """What ``Game.result`` returns once the game has ended (CONTRACT §3 ``result``), and
    what ``view(state, None)["result"]`` holds from then on. The server reads exactly
    this: ``winners`` (the table's winners, less resigned seats:
    ``server/table/ending.py``), ``scores[i]["total"]`` (the lobby's totals, and the
    places of a rated game, equal totals sharing one: ``server/accounts/ratings.py``)."""

    scores: list[SeatScore]
    """One entry per seat, in seat order (``scores[i]["seat"] == i``)."""
    winners: list[int]
    """The winning seats, ascending (several: a shared win; none: nobody won)."""


class IllegalAction(Exception):
    """An action the rules do not allow right now, or one that is malformed.

    ``code`` is a stable snake_case identifier for programs (``not_your_turn``,
    ``wrong_step``, ``cannot_afford``, …); ``message`` is a sentence for people. Raising it
    never changes any state.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """``{"code": …, "message": …}``, the wire form of the error."""
        return {"code": self.code, "message": self.message}


class RecordError(ValueError):
    """A game record that does not replay: ``index`` is the failing action's index
    (``None`` when the record itself is malformed), ``reason`` says why in a sentence.
    Shared by every game, so a caller catches one class whatever the record's game."""

    def __init__(self, index: int | None, reason: str) -> None:
        where = "record" if index is None else f"action {index}"
        super().__init__(f"{where}: {reason}")
        self.index = index
        self.reason = reason


_FIELDS: dict[type, tuple[str, ...]] = {}
_OPTIONAL: dict[type, frozenset[str]] = {}
_WIRE: dict[type, tuple[tuple[str, bool], ...]] = {}
"""Per message class: each field's name and whether it is left out while ``None``."""


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        fields = dataclasses.fields(cls)
        names = _FIELDS[cls] = tuple(f.name for f in fields)
        _OPTIONAL[cls] = frozenset(f.name for f in fields if f.default is None)
    return names


class Message:
    """Base of events and actions: a frozen dataclass with a stable wire name in ``type``.

    The wire form is a plain dict ``{"type": <wire name>, <field>: <value>, …}`` holding
    only str, int, bool, None, lists and dicts, so it encodes unchanged as msgpack or JSON.
    A field whose default is ``None`` is left out while it is ``None``.
    """

    type: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        """The wire form: ``{"type": …, **fields}``."""
        cls = type(self)
        spec = _WIRE.get(cls)
        if spec is None:
            _field_names(cls)
            spec = _WIRE[cls] = tuple((n, n in _OPTIONAL[cls]) for n in _FIELDS[cls])
        d: dict[str, Any] = {"type": self.type}
        for name, optional in spec:
            value = getattr(self, name)
            if value is not None or not optional:
                d[name] = value
        return d


M = TypeVar("M", bound=Message)


class Codec:
    """Maps wire names to message classes and back, for one family (events or actions).

    ``decode`` raises ``IllegalAction("bad_message", …)`` for an unknown ``type``, a missing
    field or an unexpected field. Field types are the game's check, in ``decide``: a wrong
    one is ``IllegalAction("bad_action", …)`` (docs/rules.md, docs/rules-keltis.md), so
    for any decoded action ``decide`` returns events or raises ``IllegalAction``, and any
    other exception is an engine bug (the server reports it as one, never as bad input).
    """

    def __init__(self, classes: Sequence[type[Message]]) -> None:
        self.classes: dict[str, type[Message]] = {c.type: c for c in classes}
        # Per wire name: the keys a message may carry and the ones it must carry, so a
        # well-formed dict (the replay hot path) costs two set comparisons.
        self._allowed = {k: frozenset((*_field_names(c), "type")) for k, c in self.classes.items()}
        self._required = {k: frozenset(_field_names(c)) - _OPTIONAL[c]
                          for k, c in self.classes.items()}

    def decode(self, data: Mapping[str, Any]) -> Message:
        """Build the message for a wire dict; raises ``IllegalAction`` (``bad_message``)."""
        if not isinstance(data, Mapping):
            raise IllegalAction("bad_message", "expected an object with a 'type' field")
        wire = data.get("type")
        cls = self.classes.get(wire) if isinstance(wire, str) else None
        if cls is None:
            known = ", ".join(sorted(self.classes))
            raise IllegalAction("bad_message", f"unknown type {wire!r}; expected one of: {known}")
        kind = cls.type  # the key it was found under
        keys = data.keys()
        extra = keys - self._allowed[kind]
        if extra:
            raise IllegalAction("bad_message",
                                f"{kind}: unexpected field(s) {sorted(map(str, extra))}")
        missing = self._required[kind] - keys
        if missing:
            order = [n for n in _field_names(cls) if n in missing]
            raise IllegalAction("bad_message", f"{kind}: missing field(s) {order}")
        return cls(**{k: v for k, v in data.items() if k != "type"})


class Game(Protocol):
    """What the server, the CLI, the bots and the tools need from a game: nothing outside
    a game's package calls anything else of it.

    ``S`` is the game's state type, opaque to everyone but the game. ``evolve`` may update
    the state it is given in place and returns the state to use next (``replay`` is
    ``functools.reduce(game.evolve, events, game.initial_state())``); ``decide`` and
    every other method never change the state they are given, except ``play``.
    """

    name: str
    """The registry key, also the ``game`` field of records and tables."""
    title: str
    """The game's name for people (lobby, page titles)."""
    min_players: int
    max_players: int
    max_game_length: int
    """An upper bound on the events of one game, start to end, at any seat count and
    options (seat-control events not counted): OpenSpiel's ``max_game_length``. The
    conformance suite (tests/engine/test_conformance.py) plays every game to its end
    within it."""
    rated_min_decisions: int
    """The decisions (actions) every person at a rated table must make themselves for
    the result to change ratings (server/accounts/fairplay.py): fewer, and the game is
    aborted and counts for nobody; a few turns' worth, so that one account making one
    move and resigning farms nothing."""
    @property
    def events(self) -> Codec:
        """The codec of the game's events."""
        ...

    @property
    def actions(self) -> Codec:
        """The codec of the game's actions (a game may subclass ``Codec``)."""
        ...

    replay_only_codes: Mapping[str, str]
    """``IllegalAction`` codes the rules raise that no player of a live table can cause
    (only a record's replay can), each with the reason: the client needs no words for
    them (the replay viewer shows them as a bad record)."""
    uniform_view: bool
    """True when ``view`` and ``project`` are the same for every viewer (no hidden hands)."""
    options_schema: Mapping[str, Any]
    """JSON Schema (draft 2020-12) of the table options, with defaults: what the lobby's
    form is generated from. ``check_options`` is the check; this only describes it."""
    deck_only_options: frozenset[str]
    """Options that only shape the shuffle: a record with a ``deck`` has had them applied
    already, so its replay leaves them out (Einauge's ``removed_colors``)."""
    deck_field: str
    """The record field that holds what the shuffle dealt (``setup_deck``): ``"deck"``, a
    list of card ids (Einauge, Keltis), or ``"orders"``, an object of named lists (Loot
    Island's eight setup lists and its ``map_reshuffles``)."""

    def check_options(self, options: Mapping[str, Any] | None, players: int) -> dict[str, Any]:
        """The options as the game uses them (defaults filled in), for ``players`` seats.
        Raises ``ValueError`` naming the bad option (unknown key, wrong type or value)."""
        ...

    def start(self, players: Sequence[str], options: Mapping[str, Any] | None, seed: str,
              deck: Any = None, /) -> list[Message]:
        """The events that set a new game up (the first is ``game_started``).

        ``players`` are display names in seat order; ``seed`` decides all chance (``deck``:
        what was dealt instead, as a record's ``deck_field`` holds it). Raises
        ``ValueError`` for bad players, options or deck.
        """
        ...

    def initial_state(self) -> Any:
        """The empty state that ``game_started`` is applied to."""
        ...

    def evolve(self, state: Any, event: Message) -> Any:
        """Apply one event; returns the new state (possibly the same object, updated)."""
        ...

    def replay(self, events: Sequence[Message]) -> Any:
        """The state after ``events``, folded from ``initial_state()``."""
        ...

    def decide(self, state: Any, action: Message) -> list[Message]:
        """The events an action causes, up to the next decision a player must make.

        Raises ``IllegalAction`` with a stable code; never changes ``state``. Any other
        exception is a bug of the engine (the action was well-typed: ``Codec.decode``).
        """
        ...

    def play(self, state: Any, action: Message) -> list[Message]:
        """``decide``, and the events applied to ``state`` (self-play, search, records)."""
        ...

    def to_move(self, state: Any) -> tuple[int, ...]:
        """Seats that may act now, ascending (empty once the game has ended). Several
        seats: simultaneous decisions (docs/games.md): each is prompted, each acts in any
        order, and the seats still listed after an action are still to decide."""
        ...

    def legal_actions(self, state: Any, seat: int) -> list[Message]:
        """Exactly the actions ``decide`` accepts from ``seat`` now."""
        ...

    def action_details(self, state: Any, seat: int, legal: Sequence[Message] | None = None
                       ) -> list[dict[str, Any]] | None:
        """What each of ``legal_actions(state, seat)`` would do now, in the same order (a
        game that describes its actions, e.g. Einauge's costs and payouts: the prompt's
        ``details``, docs/protocol.md §2), or ``None``: the game describes none.
        ``legal``: those legal actions when the caller has them already (the prompt's
        list), so they are not listed twice."""
        ...

    def legal_form(self, state: Any, seat: int) -> dict[str, Any] | None:
        """``seat``'s legal actions in the game's compact form (a game whose lists grow
        combinatorially, Loot Island's discard subsets and plays: docs/games.md "Compact
        prompts"), sent in the prompt instead of ``legal_actions``; ``None``: the prompt
        lists them. Whatever a client builds from it, ``decide`` still checks."""
        ...

    def expand_form(self, form: Mapping[str, Any]) -> list[Message]:
        """Every action ``form`` (from ``legal_form``) describes: exactly
        ``legal_actions`` of that state and seat, in its order. For callers that need the
        list (test clients, load generators); raises ``ValueError`` for a game without a
        form."""
        ...

    def is_over(self, state: Any) -> bool:
        """True once the game has ended."""
        ...

    def result(self, state: Any) -> GameResult | None:
        """The final result of CONTRACT §3 (``GameResult``: ``scores`` with ``total``,
        ``winners``, and the game's own keys), ``None`` before the end."""
        ...

    def view(self, state: Any, viewer: Viewer) -> dict[str, Any]:
        """What ``viewer`` may see of the state, as a plain dict (for clients); also of
        ``initial_state()``, before ``game_started`` (a new table's views)."""
        ...

    def public_view(self, state: Any, viewer: Viewer = None) -> dict[str, Any]:
        """Exactly CONTRACT §3's view of ``viewer`` (what ``record play`` prints)."""
        ...

    def sync_view(self, view: dict[str, Any], state: Any, viewer: Viewer
                  ) -> list[dict[str, Any]] | None:
        """Change ``view`` (an earlier ``view(…, viewer)`` the caller owns) in place into
        ``view(state, viewer)`` and return the RFC 6902 ops that do the same to a copy of
        it, their values fresh objects; ``None`` when the game does not (the caller then
        builds the view and diffs)."""
        ...

    def project(self, event: Message, viewer: Viewer) -> dict[str, Any] | None:
        """The wire form of ``event`` as ``viewer`` may see it (``None``: nothing at all;
        the server then sends that viewer nothing for the event).

        For ``viewer=None`` (a spectator) it is also what the hash chain links
        (``engine.chain``, docs/fairness.md §5): heads are sent to everyone, so it must
        hold nothing hidden, and everything hidden must follow from the seed."""
        ...

    def observation(self, state: Any, seat: int) -> Any:
        """What ``seat`` knows now, and nothing more: the input of a bot. It has at least
        ``seat``, and ``legal`` (the seat's legal actions) when the game has bots that
        search (``engine.bots.SEARCH_KINDS``); picklable; equal for two states that
        differ only in what ``seat`` cannot see. Raises ``ValueError`` for a seat not at
        the table or a game not started."""
        ...

    def sample(self, observation: Any, rng: random.Random) -> Any:
        """A full state consistent with ``observation`` (OpenSpiel's
        ``resample_from_infostate``), the hidden part drawn uniformly with ``rng``; the
        rules play on it as on any state."""
        ...

    def redeal(self, dealt: Any, state: Any, seat: int, stream: RandomStream) -> Any:
        """A branch's deal (``engine.branch``): a copy of ``dealt`` (what the shuffle
        dealt, as the record's ``deck_field`` holds it) in which the cards ``seat`` has not
        seen by ``state`` (a game dealt from ``dealt``, some actions on) change places
        among themselves in an order drawn from ``stream`` (``shuffle_slots``), every
        other card staying where it lies; lists drawn after ``state`` (Loot Island's
        later reshuffles) are left out. The same actions replayed from it reach a state
        ``seat`` cannot tell from ``state``, the hidden part dealt anew."""
        ...

    def setup_deck(self, events: Sequence[Message]) -> Any:
        """What the shuffle dealt in a game's ``events``, as the record's ``deck_field``:
        the deck (top first), or the object of named lists."""
        ...

    def shuffled_deck(self, players: int, options: Mapping[str, Any], seed: str
                      ) -> list[str] | dict[str, list[str]]:
        """What the setup shuffle of CONTRACT §2 gives for ``seed`` (what ``verify``
        checks a record's ``deck_field`` against): the deck, or the named setup lists
        (lists drawn during play, Loot Island's reshuffles, are not among them: ``verify``
        checks those by replaying from the seed alone). Raises ``ValueError`` when no
        shuffle is defined for ``players`` or the options are bad."""
        ...

    def make_record(self, players: Sequence[str], options: Mapping[str, Any], seed: str | None,
                    deck: Sequence[str], actions: Sequence[Message | Mapping[str, Any]],
                    **extra: Any) -> dict[str, Any]:
        """A game record in the layout of CONTRACT §1 (``extra`` fields appended)."""
        ...

    def replay_record(self, record: Mapping[str, Any]) -> tuple[Any, list[Message]]:
        """The final state and every event of ``record``; raises ``RecordError``."""
        ...

    def record_view(self, record: Mapping[str, Any], seat: int | None = None
                    ) -> dict[str, Any]:
        """What ``record play FILE [--seat N]`` prints (CONTRACT §3). Raises
        ``RecordError``, also for a seat not at the table."""
        ...

    def bots(self) -> Mapping[str, Callable[..., Any]]:
        """Bot classes by kind (``random`` first), for ``engine.bots.make_bot``."""
        ...

    def catalogue(self) -> dict[str, Any]:
        """The card catalogue for clients (``GET /api/games/{name}/cards``): what each
        card id shows, so no client derives a rule from an id."""
        ...
