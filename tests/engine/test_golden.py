"""Golden games: the same seeds must give the same games, byte for byte.

The engine was made fast (bench/engine.py, docs/benchmarks.md) without changing a single
game: these tests replay fixed seeds through the public API only (``start``,
``legal_actions``, ``play``, records, ``public_view``) and compare SHA-256 digests with
``golden_engine.json``, which was written by the engine *before* the speed work (plus the
other fixes of the time, e.g. the color-bonus table). ``selfplay_seed5`` reproduces
``cardtable selfplay --players N --games 300 --seed 5 --records DIR`` (bot seats seeded
``"5-<i>/<seat>"``, picking ``legal[randrange(len(legal))]``): the digests cover the record
files exactly as selfplay writes them and what ``cardtable record play`` prints for each.

A change that alters any game (a rule fix, a new legal-action order) fails here on
purpose. If the change is meant, regenerate the file and say so in the commit:
``.venv/bin/python -m tests.engine.test_golden --write``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.einauge.game import EINAUGE
from engine.einauge.view import client_view, public_view

make_record, replay_record = EINAUGE.make_record, EINAUGE.replay_record

GOLDEN = Path(__file__).with_name("golden_engine.json")
PLAYER_COUNTS = (2, 3, 4, 5)
SELFPLAY_GAMES = 300
VARIANT_GAMES = 40
VARIANTS = {
    "round": {"end_rule": "round", "color_bonus": False},
    "one_more_turn+color_bonus": {"end_rule": "one_more_turn", "color_bonus": True},
}


def _play(n: int, options: dict[str, Any], seed: str) -> tuple[list, list, Any]:
    """One game as the selfplay command plays it: seat ``k`` draws from
    ``random.Random(f"{seed}/{k}")`` and picks ``legal[randrange(len(legal))]``."""
    names = [f"bot{i}" for i in range(n)]
    rngs = [random.Random(f"{seed}/{k}") for k in range(n)]
    events = list(EINAUGE.start(names, options, seed))
    state = EINAUGE.replay(events)
    actions = []
    while not EINAUGE.is_over(state):
        seat = EINAUGE.to_move(state)[0]
        legal = EINAUGE.legal_actions(state, seat)
        action = legal[rngs[seat].randrange(len(legal))]
        actions.append(action)
        events.extend(EINAUGE.play(state, action))
    return actions, events, state


def selfplay_digests(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Digests of ``cardtable selfplay --players n --games 300 --seed 5 --records DIR`` and
    the literal public view of its first game."""
    options = {"end_rule": "round", "color_bonus": False}
    names = [f"bot{i}" for i in range(n)]
    records = hashlib.sha256()
    views = hashlib.sha256()
    first_view = None
    for i in range(SELFPLAY_GAMES):
        seed = f"5-{i}"
        actions, events, state = _play(n, options, seed)
        record = make_record(names, options, seed, EINAUGE.setup_deck(events), actions)
        text = json.dumps(record, indent=1)  # exactly as `cardtable selfplay` writes it
        records.update(text.encode())
        replayed, _ = replay_record(json.loads(text))
        view = json.dumps(public_view(replayed))  # exactly as `cardtable record play` prints
        assert view == json.dumps(public_view(state)), f"{n} players, game {i}: replay differs"
        views.update(view.encode() + b"\n")
        if first_view is None:
            first_view = public_view(state)
    return ({"games": SELFPLAY_GAMES, "records_sha256": records.hexdigest(),
             "views_sha256": views.hexdigest()}, first_view)  # type: ignore[return-value]


def variant_digest(n: int, options: dict[str, Any]) -> str:
    """One digest over every action, event (wire form) and final client view of 40 games."""
    h = hashlib.sha256()
    for i in range(VARIANT_GAMES):
        actions, events, state = _play(n, options, f"golden-{n}-{i}")
        h.update(json.dumps([a.to_dict() for a in actions]).encode())
        h.update(json.dumps([e.to_dict() for e in events]).encode())
        h.update(json.dumps([EINAUGE.project(e, None) for e in events]).encode())
        h.update(json.dumps(client_view(state, 0)).encode())
    return h.hexdigest()


def compute() -> dict[str, Any]:
    """The whole golden file (takes a few seconds)."""
    out: dict[str, Any] = {"selfplay_seed5": {}, "first_views": {}, "variants": {}}
    for n in PLAYER_COUNTS:
        digests, view = selfplay_digests(n)
        out["selfplay_seed5"][str(n)] = digests
        out["first_views"][str(n)] = view
        out["variants"][str(n)] = {name: variant_digest(n, opts)
                                   for name, opts in VARIANTS.items()}
    return out


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_selfplay_records_and_replayed_views_are_unchanged(golden: dict[str, Any], n: int) -> None:
    digests, view = selfplay_digests(n)
    assert view == golden["first_views"][str(n)]
    assert digests == golden["selfplay_seed5"][str(n)]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_actions_events_and_views_are_unchanged(golden: dict[str, Any], n: int,
                                                 variant: str) -> None:
    assert variant_digest(n, VARIANTS[variant]) == golden["variants"][str(n)][variant]


def test_first_views_are_finished_games(golden: dict[str, Any]) -> None:
    # The literal views must be real ended games, so a broken golden file cannot pass.
    for n in PLAYER_COUNTS:
        view = golden["first_views"][str(n)]
        assert view["phase"] == "ended" and len(view["players"]) == n
        assert view["result"]["winners"]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.engine.test_golden --write")
    GOLDEN.write_text(json.dumps(compute(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}")
