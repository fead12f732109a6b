"""Service-style game records for the trust tests, built exactly as the server exports them.

docs/protocol.md §1 (``GET /api/tables/{id}/record``): the CONTRACT §1 record with ``seed``
and ``deck``, plus ``server_seed``, ``commitment``, ``contributions``, ``table_id``,
``head``, ``result``, ``name_salts`` and ``name_commitments``. Everything is derived from a
seeded bot game, so a test gets the same record every run.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from typing import Any

from engine.chain import heads, name_commitment, public_events
from engine.einauge.game import EINAUGE
from engine.einauge.state import State
from engine.game import Message
from engine.shuffle import combine_seed, commitment

make_record = EINAUGE.make_record


def random_game(players: Sequence[str], options: dict[str, Any] | None, seed: str | None,
                bot_seed: str, deck: Sequence[str] | None = None,
                ) -> tuple[list[Message], list[Message], State]:
    """Play a game to its end choosing uniformly among the legal actions with
    ``random.Random(bot_seed)``; returns ``(actions, events, final state)``.

    The trust tests keep their own loop so that they depend only on the Game interface.
    """
    rng = random.Random(bot_seed)
    events = list(EINAUGE.start(list(players), options, seed, deck))  # type: ignore[arg-type]
    state = EINAUGE.replay(events)
    actions: list[Message] = []
    while seats := EINAUGE.to_move(state):
        legal = EINAUGE.legal_actions(state, seats[0])
        action = legal[rng.randrange(len(legal))]
        actions.append(action)
        events.extend(EINAUGE.play(state, action))
    return actions, events, state


def service_record(name: str = "fixture", players: Sequence[str] = ("Anna", "Jürgen"),
                   options: dict[str, Any] | None = None,
                   contributions: Sequence[str] | None = None,
                   table_id: str = "t-7f3a9c",
                   server_seed: str | None = None) -> dict[str, Any]:
    """A finished random-bot game as the service exports it; ``name`` seeds everything
    (the server seed too, unless given).

    ``contributions`` defaults to no contribution from seat 0 and a browser-style one from
    every other seat.
    """
    if server_seed is None:
        server_seed = hashlib.sha256(f"server-seed/{name}".encode()).hexdigest()
    if contributions is None:
        contributions = ["", *(f"browser-{name}-{i}" for i in range(1, len(players)))]
    seed = combine_seed(server_seed, list(contributions))
    options = dict(options or {"end_rule": "round", "color_bonus": False})
    actions, events, state = random_game(players, options, seed, f"bots/{name}")
    committed = commitment(server_seed)
    salts = [hashlib.sha256(f"name-salt/{name}/{i}".encode()).hexdigest()
             for i in range(len(players))]
    names = [name_commitment(salt, p) for salt, p in zip(salts, players, strict=True)]
    head = heads(table_id, committed, public_events(EINAUGE, events, names))[-1].hex()
    return make_record(players, options, seed, EINAUGE.setup_deck(events), actions,
                       server_seed=server_seed, commitment=committed,
                       contributions=list(contributions), table_id=table_id, head=head,
                       result=state.result, name_salts=salts, name_commitments=names)


def example_record() -> dict[str, Any]:
    """The record of docs/fairness.md's test vector (tests/trust/data/example-record.json)."""
    return service_record("example", ("Anna", "Ben", "Zoë"), None, ["", "k3Jx9", "Zoë"],
                          "t-example", bytes(range(32)).hex())


def compact(record: Any) -> bytes:
    """The canonical compact JSON bytes of a record (no spaces, UTF-8, non-ASCII kept)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def same_json(a: Any, b: Any) -> bool:
    """True when two parsed JSON values are the same value, types included (``1`` is not
    ``1.0`` nor ``true``, although Python's ``==`` says so)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
