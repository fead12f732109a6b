"""Offline verification of an exported game record (issue 7, docs/fairness.md).

A record exported by the service (CONTRACT section 1 plus ``server_seed``, ``commitment``,
``contributions``, ``table_id``, ``head`` and ``result``) is checked by named checks:

- ``fields``: the record is a record of a registered game (its ``game`` field, default
  Einauge: ``engine.record_game``) whose fields have the right types; a service record
  (one carrying any of the trust fields) must carry all of them.
- ``commitment``: ``SHA-256(server_seed)`` equals ``commitment`` (CONTRACT section 2).
- ``seed``: ``server_seed`` joined with the contributions rebuilds ``seed``.
- ``deck``: the game's shuffle of ``seed`` (``Game.shuffled_deck``) gives exactly the
  recorded deck (the game's ``deck_field``: Einauge's and Keltis's ``deck``, Loot
  Island's ``orders``; a branched table's record, with ``branch``: the source's cards
  re-dealt by ``seed``, ``engine.branch.deal``). Named lists that the play draws (Loot
  Island's ``map_reshuffles``) are checked by replaying the record from its seed alone:
  it must give the same events.
- ``replay``: the actions replay legally (``Game.replay_record``); in a
  service record the options and actions are also written exactly as the service writes
  them (defaults filled in, actions in wire form).
- ``result``: the replayed result equals the recorded ``result``, and the record's
  ``resigned`` (absent: ``[]``) lists exactly the seats its ``seat_changes`` resign (a
  resigned seat never wins, so the winners are the result's minus those seats).
- ``names``: each seat's name with its revealed salt (``name_salts``) gives its
  ``name_commitments`` entry; a seat without a salt (its account was deleted, named
  ``engine.chain.REDACTED``, or renamed by the administration) is committed only: its
  name is not checked, and the check's detail lists it. Not run for a record without
  those fields (a table started before names were committed: its chain links the names
  themselves).
- ``chain``: the hash chain over the replayed events' spectator projections ends at
  ``head`` (docs/fairness.md §5), the first event's names replaced by
  ``name_commitments`` when the record has them; the record's ``seat_changes``
  (engine/seat_control.py) are placed among the events first.

A check whose fields are absent is *not run* (a plain CONTRACT record with ``seed`` or
``deck`` and ``actions`` can still be replay-checked); a check that needs a failed one
(the chain needs the replay) is not run either. The record verifies when no check failed.
Pure: no I/O; the CLI (``cli/verify.py``) reads the file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import GAMES, UNNAMED_RECORD_GAME, record_game, seat_control
from engine.branch import BranchError, BranchPoint, deal
from engine.chain import REDACTED, heads, name_commitment, public_events
from engine.game import Game, RecordError
from engine.seat_control import SeatControllerChanged
from engine.shuffle import combine_seed

PASS, FAIL, NOT_RUN = "pass", "fail", "not run"

CHECKS = ("fields", "commitment", "seed", "deck", "replay", "result", "names", "chain")
"""Every check, in the order they run and are reported."""

TRUST_FIELDS = ("server_seed", "commitment", "contributions", "table_id", "head")
"""Fields only a service record carries; one of them present means all are required."""

NAME_FIELDS = ("name_salts", "name_commitments")
"""The seats' name salts (``null``: redacted) and commitments (docs/fairness.md §5): both
or neither."""

SERVICE_FIELDS = ("game", "players", "options", "seed", "deck", "actions", *TRUST_FIELDS,
                  "result")
"""The fields of a record exported by the service after the end (docs/protocol.md §1);
``deck`` stands for the game's ``deck_field``."""


@dataclass(frozen=True)
class Check:
    """The outcome of one named check: ``status`` is ``pass``, ``fail`` or ``not run``;
    ``detail`` says what was compared, what differed, or why it could not run."""

    name: str
    status: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        """``{"name", "status", "detail"}`` for JSON output."""
        return {"name": self.name, "status": self.status, "detail": self.detail}


@dataclass
class Report:
    """Every check of one record, in ``CHECKS`` order. ``ok`` is true when none failed
    and at least the replay ran (a record nothing could be checked of does not verify)."""

    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no check failed and the replay passed."""
        return (all(c.status != FAIL for c in self.checks)
                and any(c.name == "replay" and c.status == PASS for c in self.checks))

    def failed(self) -> list[Check]:
        """The checks that failed."""
        return [c for c in self.checks if c.status == FAIL]

    def to_dict(self) -> dict[str, Any]:
        """``{"ok": bool, "checks": [...]}`` for JSON output."""
        return {"ok": self.ok, "checks": [c.to_dict() for c in self.checks]}


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_hex64(value: Any) -> bool:
    return (isinstance(value, str) and len(value) == 64
            and all(ch in "0123456789abcdef" for ch in value))


def _first_difference(got: list[Any], want: list[Any]) -> str:
    for i, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            return f"card {i} (top = 0) is {_short(a)} in the record, {_short(b)} by the shuffle"
    return f"the record lists {len(got)} cards, the shuffle gives {len(want)}"


def _dict_difference(got: Any, want: Any, path: str = "result") -> str:
    """The first path where two JSON values differ, e.g. ``result.scores[1].total``."""
    if isinstance(got, Mapping) and isinstance(want, Mapping):
        for key in sorted(set(got) | set(want), key=str):
            if key not in got:
                return f"{path}.{key} is missing from the record (replay: {_short(want[key])})"
            if key not in want:
                return f"{path}.{key} is in the record but not in the replay"
            if _json_key(got[key]) != _json_key(want[key]):
                return _dict_difference(got[key], want[key], f"{path}.{key}")
    if isinstance(got, list) and isinstance(want, list):
        if len(got) != len(want):
            return f"{path} has {len(got)} entries in the record, {len(want)} in the replay"
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            if _json_key(a) != _json_key(b):
                return _dict_difference(a, b, f"{path}[{i}]")
    return f"{path} is {_short(got)} in the record, {_short(want)} in the replay"


def _article(title: str) -> str:
    """``an Einauge`` / ``a Keltis`` / ``a Loot Island``: a title's short name (its
    first word when the title has a subtitle or an exclamation, else the whole title)."""
    word = title.split()[0].rstrip(":!") if any(ch in title for ch in ":!") else title
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def _json_key(value: Any) -> str:
    """A type-exact comparison key: Python's ``==`` says ``1 == 1.0 == True``, JSON does not."""
    return json.dumps(value, sort_keys=True)


def _deck_field(game: Game | None) -> str:
    return game.deck_field if game is not None else "deck"


def _fields(record: Mapping[str, Any], game: Game | None) -> list[str]:
    """Problems with the record's fields, as sentences (empty: fine)."""
    problems = []
    deck_field = _deck_field(game)
    if not isinstance(name := record.get("game", UNNAMED_RECORD_GAME), str) or name not in GAMES:
        problems.append(f"game is {_short(record.get('game'))}, not one of "
                        f"{', '.join(map(repr, GAMES))}")
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        problems.append("players must be a list of names")
    if "options" in record and not isinstance(record["options"], Mapping):
        problems.append("options must be an object")
    if "seed" not in record and deck_field not in record:
        problems.append(f"the record has neither seed nor {deck_field}")
    if record.get("seed") is not None and not isinstance(record["seed"], str):
        problems.append("seed must be a string")
    if deck_field == "deck" and "deck" in record and not isinstance(record["deck"], list):
        problems.append("deck must be a list of card ids")
    if (deck_field != "deck" and deck_field in record
            and not isinstance(record[deck_field], Mapping)):
        problems.append(f"{deck_field} must be an object of card lists")
    if not isinstance(record.get("actions", []), list):
        problems.append("actions must be a list")
    present = [f for f in TRUST_FIELDS if f in record]
    if present:
        # A service record is all or nothing: dropping or renaming one field must not turn
        # it into a plain record that silently skips the checks that field enables.
        missing = [deck_field if f == "deck" else f for f in SERVICE_FIELDS
                   if (deck_field if f == "deck" else f) not in record]
        if missing:
            problems.append(f"a service record (it has {', '.join(present)}) lacks "
                            f"{', '.join(missing)}")
        # seed may be null in a plain record (deck only), never in a service record.
        for name in ("server_seed", "table_id", "seed"):
            if name in record and not isinstance(record[name], str):
                problems.append(f"{name} must be a string")
        for name in ("commitment", "head"):
            if name in record and not _is_hex64(record[name]):
                problems.append(f"{name} must be 64 lowercase hex characters")
        contributions = record.get("contributions")
        if "contributions" in record:
            if (not isinstance(contributions, list)
                    or not all(isinstance(c, str) for c in contributions)):
                problems.append("contributions must be a list of strings")
            elif isinstance(players, list) and len(contributions) != len(players):
                problems.append(f"contributions has {len(contributions)} entries for "
                                f"{len(players)} seats (one per seat, '' for none)")
    problems.extend(_name_field_problems(record, players))
    return problems


def _name_field_problems(record: Mapping[str, Any], players: Any) -> list[str]:
    present = [f for f in NAME_FIELDS if f in record]
    if not present:
        return []
    if len(present) == 1:
        return [f"{present[0]} needs {next(f for f in NAME_FIELDS if f not in record)}"]
    salts, commitments = record["name_salts"], record["name_commitments"]
    problems = []
    if not isinstance(salts, list) or not all(s is None or _is_hex64(s) for s in salts):
        problems.append("name_salts must list 64 lowercase hex characters or null per seat")
    if not isinstance(commitments, list) or not all(_is_hex64(c) for c in commitments):
        problems.append("name_commitments must list 64 lowercase hex characters per seat")
    if isinstance(players, list) and any(isinstance(v, list) and len(v) != len(players)
                                         for v in (salts, commitments)):
        problems.append(f"name_salts and name_commitments need one entry per seat "
                        f"({len(players)})")
    return problems


def _check_names(record: Mapping[str, Any], fields_ok: bool) -> Check:
    if not all(f in record for f in NAME_FIELDS):
        return Check("names", NOT_RUN, "needs name_salts and name_commitments (a record "
                                       "whose chain links the names themselves)")
    if not fields_ok:
        return Check("names", NOT_RUN, "needs well-typed fields")
    players = record["players"]
    redacted = []
    for i, (name, salt, want) in enumerate(zip(players, record["name_salts"],
                                               record["name_commitments"], strict=True)):
        if salt is None:  # deleted (``REDACTED``) or renamed: the name is not checked
            redacted.append(i)
        elif name_commitment(salt, name) != want:
            return Check("names", FAIL, f"seat {i}: SHA-256(salt:name) is "
                                        f"{name_commitment(salt, name)}, the record's "
                                        f"commitment is {want}")
    detail = f"{len(players) - len(redacted)} name(s) match their commitments"
    if redacted:
        renamed = [i for i in redacted if players[i] != REDACTED]
        detail += f"; seat(s) {redacted} redacted (account deleted or renamed), committed only"
        if renamed:
            detail += (f"; seat(s) {renamed} show a name given since, which the record "
                       "does not prove")
    return Check("names", PASS, detail)


def _check_commitment(record: Mapping[str, Any]) -> Check:
    server_seed, commitment = record.get("server_seed"), record.get("commitment")
    if server_seed is None or commitment is None:
        return Check("commitment", NOT_RUN, "needs server_seed and commitment")
    if not isinstance(server_seed, str) or not isinstance(commitment, str):
        return Check("commitment", NOT_RUN, "server_seed and commitment must be strings")
    got = hashlib.sha256(server_seed.encode("utf-8")).hexdigest()
    if got != commitment:
        return Check("commitment", FAIL,
                     f"SHA-256(server_seed) is {got}, the record's commitment is "
                     f"{_short(commitment)}")
    return Check("commitment", PASS, f"SHA-256(server_seed) = {commitment}")


def _check_seed(record: Mapping[str, Any]) -> Check:
    server_seed, contributions = record.get("server_seed"), record.get("contributions")
    seed = record.get("seed")
    if server_seed is None or contributions is None or seed is None:
        return Check("seed", NOT_RUN, "needs server_seed, contributions and seed")
    if (not isinstance(server_seed, str) or not isinstance(seed, str)
            or not isinstance(contributions, list)
            or not all(isinstance(c, str) for c in contributions)):
        return Check("seed", NOT_RUN, "server_seed, seed and contributions have wrong types")
    got = combine_seed(server_seed, contributions)
    if got != seed:
        return Check("seed", FAIL, f"server_seed and contributions give {_short(got)}, "
                                   f"the record's seed is {_short(seed)}")
    return Check("seed", PASS, f"server_seed + {len(contributions)} contribution(s) = seed")


def _check_branch_deck(game: Game, record: Mapping[str, Any], seed: str,
                       players: list[Any], replayed: list[Any] | None) -> Check:
    """The deck check of a branched table's record (``branch``: engine/branch.py): its
    dealt cards are the source's re-dealt by ``seed`` (``engine.branch.deal``), not the
    shuffle of ``seed``. Lists the play drew after the branch (Loot Island's later
    reshuffles) are checked by replaying from that deal and the seed alone."""
    key = game.deck_field
    deck = record[key]
    branch = record["branch"]
    try:
        if not isinstance(branch, Mapping):
            raise BranchError("bad_record", "branch must be an object")
        point = BranchPoint.from_dict(branch, list(record.get("actions") or []))
        want = deal(point, players, seed).dealt
    except BranchError as e:
        return Check("deck", FAIL, f"branch: {e.message}")
    where = (f"the source's cards re-dealt by seed for seat {point.seat} after "
             f"{point.index} actions of table {branch.get('table')!r}")
    if isinstance(want, list):
        if deck != want:
            return Check("deck", FAIL, _first_difference(deck, want))
        return Check("deck", PASS, f"{where} give the recorded {len(deck)} cards")
    if not isinstance(deck, Mapping):
        return Check("deck", FAIL, f"{key} must be an object of card lists")
    for name, cards in want.items():
        got = deck.get(name)
        if name in deck and isinstance(got, list) and got[:len(cards)] != cards:
            return Check("deck", FAIL, f"{key}.{name}: {_first_difference(got, cards)}")
        if name not in deck or not isinstance(got, list):
            return Check("deck", FAIL, f"{key}.{name} is missing")
    if replayed is None:
        return Check("deck", NOT_RUN, "needs a successful replay")
    try:
        _, by_seed = game.replay_record({**record, key: want})
    except RecordError as e:
        return Check("deck", FAIL, f"replayed from the branch's deal and the seed, {e}")
    mine = [_json_key(e.to_dict()) for e in replayed[1:]]
    if mine != [_json_key(e.to_dict()) for e in by_seed[1:]]:
        return Check("deck", FAIL, "the events differ from those of the branch's deal "
                                   "and the seed")
    return Check("deck", PASS, f"{where} give the recorded {key}")


def _check_deck(game: Game | None, record: Mapping[str, Any],
                replayed: list[Any] | None) -> Check:
    """The deck check; ``replayed`` are the events of the record's own replay (``None``:
    it failed)."""
    key = _deck_field(game)
    seed, deck, players = record.get("seed"), record.get(key), record.get("players")
    if seed is None or deck is None:
        return Check("deck", NOT_RUN, f"needs seed and {key}")
    if (not isinstance(seed, str) or not isinstance(deck, list | Mapping)
            or not isinstance(players, list)):
        return Check("deck", NOT_RUN, f"seed, {key} and players have wrong types")
    if game is None:
        return Check("deck", NOT_RUN, "the record names no known game")
    if not game.min_players <= len(players) <= game.max_players:
        return Check("deck", NOT_RUN, f"{len(players)} players: no shuffle is defined")
    if "branch" in record:
        return _check_branch_deck(game, record, seed, players, replayed)
    options = record.get("options") or {}
    try:
        want = game.shuffled_deck(len(players), options if isinstance(options, Mapping)
                                  else {}, seed)
    except ValueError as e:
        return Check("deck", FAIL, str(e))
    if isinstance(want, list):
        if deck != want:
            return Check("deck", FAIL, _first_difference(deck, want))  # type: ignore[arg-type]
        return Check("deck", PASS, f"the shuffle of seed gives the recorded {len(deck)} cards")
    if not isinstance(deck, Mapping):
        return Check("deck", FAIL, f"{key} must be an object of card lists")
    for name, cards in want.items():
        if name in deck and deck[name] != cards:
            got = deck[name] if isinstance(deck[name], list) else []
            return Check("deck", FAIL, f"{key}.{name}: {_first_difference(got, cards)}")
    given = [name for name in want if name in deck]
    drawn = [name for name in deck if name not in want]
    detail = (f"the shuffle of seed gives the recorded {', '.join(given)}" if given else
              f"{key} records no setup list: the seed gives them all")
    if not drawn:
        return Check("deck", PASS, detail)
    # Lists drawn during play (reshuffles) depend on the play: the record replayed from
    # its seed alone must give exactly the events its own lists give. The first event
    # (the setup) echoes the lists it was given, so it differs by construction; what it
    # deals was compared with the shuffle above, and every later event in full.
    if replayed is None:
        return Check("deck", NOT_RUN, f"{', '.join(drawn)}: needs a successful replay")
    try:
        _, by_seed = game.replay_record({**record, key: {n: deck[n] for n in given}})
    except RecordError as e:
        return Check("deck", FAIL, f"{', '.join(drawn)}: replayed from the seed alone, {e}")
    for i, (a, b) in enumerate(zip(replayed, by_seed, strict=False)):
        if i == 0:
            continue
        if _json_key(a.to_dict()) != _json_key(b.to_dict()):
            return Check("deck", FAIL, f"{', '.join(drawn)}: event {i} is "
                         f"{_short(a.to_dict())} with the record's lists, "
                         f"{_short(b.to_dict())} from the seed alone")
    if len(replayed) != len(by_seed):
        return Check("deck", FAIL, f"{', '.join(drawn)}: {len(replayed)} events with the "
                     f"record's lists, {len(by_seed)} from the seed alone")
    return Check("deck", PASS, f"{detail}; {', '.join(drawn)} as the seed gives them "
                 f"({len(replayed)} events replayed from the seed alone)")


def _replayable(game: Game, record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The record as ``replay_record`` takes it: with a deck, the game's deck-only options
    (Einauge's ``removed_colors``) have done their work in the deck check (CONTRACT §1:
    the deck decides the colors in play)."""
    options = record.get("options")
    drop = game.deck_only_options
    if game.deck_field in record and isinstance(options, Mapping) and drop & options.keys():
        options = {k: v for k, v in options.items() if k not in drop}
        return {**record, "options": options}
    return record


def _is_service(record: Mapping[str, Any]) -> bool:
    return any(f in record for f in TRUST_FIELDS)


def _not_as_written(game: Game, record: Mapping[str, Any], events: list[Any]) -> str | None:
    """Why a service record's options or actions differ from the form the service writes,
    or ``None``. The service writes the options as the game used them (defaults filled
    in) and each action in its wire form (``ACTIONS.decode(a).to_dict()``); other
    spellings of the same game (``{}`` for the default options, ``"row": null``) would
    replay to the same chain, so in a service record they count as tampering."""
    options = record.get("options") or {}
    written = {k: v for k, v in options.items() if k not in game.deck_only_options}
    used = events[0].to_dict().get("options")
    if _json_key(written) != _json_key(used):
        return f"options are {_short(written)}, the game used {_short(used)}"
    for i, action in enumerate(record.get("actions", [])):
        wire = game.actions.decode(action).to_dict()
        if _json_key(action) != _json_key(wire):
            return f"action {i}: {_short(action)} is not in wire form {_short(wire)}"
    return None


def _resigned_seats(events: list[Any]) -> list[int]:
    """The seats that resigned: those with a ``resigned`` seat change (engine/seat_control.py),
    in seat order."""
    return sorted({e.seat for e in events if isinstance(e, SeatControllerChanged)
                   and e.reason == "resigned"})


def _resigned_differs(record: Mapping[str, Any], events: list[Any]) -> str | None:
    """Why the record's ``resigned`` (absent: none) is not the seats its ``seat_changes``
    resign, or ``None``. It decides who won (a resigned seat never wins, docs/rules.md
    "Resigning"), so erasing or adding a seat there is tampering with the result."""
    want = _resigned_seats(events)
    got = record.get("resigned", [])
    if _json_key(got) != _json_key(want):
        return (f"resigned is {_short(got)} in the record, the seat_changes resign "
                f"{_short(want)}")
    return None


def _result_detail(result: Any, resigned: list[int]) -> str:
    if result is None:
        return "no result, and the game has not ended"
    winners = result.get("winners") if isinstance(result, Mapping) else None
    if not resigned or not isinstance(winners, list):
        return "the replay ends with the recorded result"
    # The engine's winners know nothing of resignations; the table's do (server/table/ending.py).
    kept = [w for w in winners if w not in resigned]
    return (f"the replay ends with the recorded result; seats {resigned} resigned, so the "
            f"winners are {kept}")


def verify_record(record: Any) -> Report:
    """Run every check on a parsed record (any JSON value); never raises for bad input.

    Returns a ``Report`` with one ``Check`` per name of ``CHECKS``.
    """
    report = Report()
    add = report.checks.append
    if not isinstance(record, Mapping):
        add(Check("fields", FAIL, f"a record is a JSON object, not {type(record).__name__}"))
        for name in CHECKS[1:]:
            add(Check(name, NOT_RUN, "no record"))
        return report
    try:
        game: Game | None = record_game(record)
    except RecordError:
        game = None
    problems = _fields(record, game)
    add(Check("fields", FAIL, "; ".join(problems)) if problems else
        Check("fields", PASS, f"{_article(game.title)} record with well-typed fields"))
    add(_check_commitment(record))
    add(_check_seed(record))

    events = None
    try:
        if game is None:
            raise RecordError(None, f"no game {record.get('game')!r}")
        state, events = game.replay_record(_replayable(game, record))
    except RecordError as e:
        replay = Check("replay", FAIL, str(e))
    except Exception as e:  # an engine bug must not hide behind a crash: report, fail
        replay = Check("replay", FAIL, f"the engine raised {type(e).__name__}: {e}")
    else:
        actions = record.get("actions", [])
        result = game.result(state)
        ended = "the game ended" if result is not None else "the game has not ended"
        if (reason := seat_control.voided(events)) is not None:
            ended = f"the game was voided ({reason}): no result, nobody won"
        odd = _not_as_written(game, record, events) if _is_service(record) else None
        if odd:
            replay = Check("replay", FAIL, odd)
        else:
            replay = Check("replay", PASS, f"{len(actions)} actions replay legally; {ended}")
    try:
        add(_check_deck(game, record, events))
    except Exception as e:  # as for the replay: an engine bug is a failed check
        add(Check("deck", FAIL, f"the engine raised {type(e).__name__}: {e}"))
    add(replay)

    if "result" not in record:
        add(Check("result", NOT_RUN, "the record has no result"))
    elif events is None:
        add(Check("result", NOT_RUN, "needs a successful replay"))
    elif _json_key(record["result"]) != _json_key(result):
        add(Check("result", FAIL, _dict_difference(record["result"], result)))
    elif (odd := _resigned_differs(record, events)) is not None:
        add(Check("result", FAIL, odd))
    else:
        add(Check("result", PASS, _result_detail(result, _resigned_seats(events))))

    add(_check_names(record, not problems))
    # The chain needs only well-formed commitments, whatever else the fields check found.
    committed = (record["name_commitments"] if all(f in record for f in NAME_FIELDS)
                 and not _name_field_problems(record, record.get("players")) else None)

    table_id, commitment, head = (record.get(k) for k in ("table_id", "commitment", "head"))
    if table_id is None or commitment is None or head is None:
        add(Check("chain", NOT_RUN, "needs table_id, commitment and head"))
    elif not all(isinstance(v, str) for v in (table_id, commitment, head)):
        add(Check("chain", NOT_RUN, "table_id, commitment and head must be strings"))
    elif events is None:
        add(Check("chain", NOT_RUN, "needs a successful replay"))
    else:
        try:
            last = heads(table_id, commitment,
                         public_events(game, events, committed))[-1].hex()
        except ValueError as e:
            add(Check("chain", FAIL, f"an event has no canonical form: {e}"))
        else:
            if last != head:
                add(Check("chain", FAIL, f"the chain over {len(events)} replayed events ends "
                                         f"at {last}, the record's head is {_short(head)}"))
            else:
                add(Check("chain", PASS, f"{len(events)} events chain to head {head}"))
    return report


class RecordFormatError(ValueError):
    """The bytes are not a JSON record; the message says where and why."""


def parse_record(data: bytes) -> Any:
    """Parse a record file's bytes (UTF-8 JSON); raises ``RecordFormatError``.

    Strict JSON: ``NaN`` and ``Infinity`` are refused, as is anything after the value.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordFormatError(f"not UTF-8: byte {e.start} is {data[e.start]:#04x}") from None

    def no_constant(name: str) -> Any:
        raise RecordFormatError(f"not JSON: {name} is not a JSON value")

    try:
        return json.loads(text, parse_constant=no_constant)
    except json.JSONDecodeError as e:
        raise RecordFormatError(f"not JSON: {e.msg} at line {e.lineno} column {e.colno} "
                                f"(char {e.pos})") from None
    except RecursionError:
        raise RecordFormatError("not a record: nested too deeply") from None


def verify_bytes(data: bytes) -> Report:
    """Parse and verify a record file's bytes; a parse failure is a failed ``fields``
    check naming the problem, with every other check not run."""
    try:
        record = parse_record(data)
    except RecordFormatError as e:
        report = Report([Check("fields", FAIL, str(e))])
        report.checks.extend(Check(n, NOT_RUN, "the file is not a record") for n in CHECKS[1:])
        return report
    return verify_record(record)
