"""``legal_actions`` and ``offers.action_details`` give exactly what plain reference versions
give: the same actions in the same order, and details equal as JSON with their keys in the
same order (a client may show them in the order they come). The references are written
from the docstrings, card by card from ``CARDS``, without the fast paths; they are checked
on every state of seeded games of 2 to 5 seats under both option sets, on the built
states of the differential tests (many lone ships, the final round) and on a hand-made
state with a full row.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.einauge import EINAUGE, offers, rules
from engine.einauge import actions as ac
from engine.einauge.cards import CARDS, COLORS
from engine.einauge.state import Player, State
from engine.game import Message
from tests.oracle.test_built_states import built, to_engine

OPTION_SETS = ({}, {"end_rule": "one_more_turn", "color_bonus": True})


def reference_legal(s: State, seat: int) -> list[Message]:
    """``legal_actions`` from its docstring."""
    if seat != s.current_seat or s.phase not in ("turns", "final_round"):
        return []
    p = s.players[seat]

    def offers_of(cards: list[str], budget: int, kind: type, cost: str) -> list[Message]:
        out: list[Message] = []
        for c in cards:
            if getattr(CARDS[c], cost) > budget:
                continue
            color = CARDS[c].color
            if color is None:
                rows = [r for r in COLORS if r in p.rows and len(p.rows[r]) < 7]
                out += [kind(seat, c, r) for r in [*rows, "alone"]]
            elif len(p.rows.get(color, [])) < 7:
                out.append(kind(seat, c))
        return out

    if s.step == "buy":
        out: list[Message] = [ac.SellJewel(seat)] if p.jewels else []
        out += [ac.SellCard(seat, c) for row in p.rows.values() for c in row
                if CARDS[c].color is not None]
        return out + offers_of(s.display, p.ducats, ac.Buy, "price")
    if s.step == "fight":
        sources = s.pirate_table + (s.display if s.phase == "final_round" else [])
        return [*offers_of(sources, p.sabres, ac.Fight, "fight_cost"), ac.Pass(seat)]
    if s.step == "place":
        return [ac.Place(seat, c) for c in s.display]
    return []


def _row_detail(p: Player, row: str, card: str) -> dict[str, Any]:
    if row == "alone":
        return {"payout": {"sabres": 0, "ducats": 0, "jewels": 0}, "chests": 0}
    cards = [*p.rows.get(row, []), card]
    return {"payout": {k: sum(getattr(CARDS[c], k) for c in cards)
                       for k in ("sabres", "ducats", "jewels")},
            "chests": sum(CARDS[c].chests for c in cards)}


def reference_detail(s: State, a: Message) -> dict[str, Any]:
    """``offers.detail`` from its docstring."""
    p = s.players[a.seat]  # type: ignore[attr-defined]
    if isinstance(a, ac.Buy):
        return {"cost": {"ducats": CARDS[a.card].price},
                **_row_detail(p, a.row or CARDS[a.card].color, a.card)}  # type: ignore[arg-type]
    if isinstance(a, ac.Fight):
        return {"cost": {"sabres": CARDS[a.card].fight_cost},
                **_row_detail(p, a.row or CARDS[a.card].color, a.card)}  # type: ignore[arg-type]
    if isinstance(a, ac.SellCard):
        return {"gain": {"ducats": rules.CARD_PRICE}}
    if isinstance(a, ac.SellJewel):
        return {"gain": {"ducats": rules.JEWEL_PRICE}}
    return {}


def _dicts(value: Any) -> set[int]:
    out: set[int] = set()
    if isinstance(value, list | dict):
        out.add(id(value))
        for v in value.values() if isinstance(value, dict) else value:
            out |= _dicts(v)
    return out


def check_state(s: State) -> int:
    """Both functions against their references for every seat of ``s``; the count of
    actions checked."""
    checked = 0
    for seat in range(len(s.players)):
        legal = rules.legal_actions(s, seat)
        assert legal == reference_legal(s, seat)
        details = offers.action_details(s, seat)
        expected = [reference_detail(s, a) for a in legal]
        assert json.dumps(details) == json.dumps(expected)
        again = offers.action_details(s, seat, legal)
        assert again == details
        assert not _dicts(again) & _dicts(details)  # every call builds its own dicts
        checked += len(legal)
    return checked


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("options", OPTION_SETS)
def test_seeded_games_match_the_references(players: int, options: dict[str, Any]) -> None:
    checked = 0
    for seed in range(6):
        rng = random.Random(seed)
        s = EINAUGE.replay(EINAUGE.start([f"p{i}" for i in range(players)], options,
                                         f"offers-{seed}"))
        while not EINAUGE.is_over(s):
            checked += check_state(s)
            seat = EINAUGE.to_move(s)[0]
            EINAUGE.play(s, rng.choice(EINAUGE.legal_actions(s, seat)))
        assert check_state(s) == 0
    assert checked > 6 * 100


def test_built_states_match_the_references() -> None:
    rng = random.Random(2027)
    kinds: set[str] = set()
    for game in built(rng, 1000):
        s = to_engine(game)
        check_state(s)
        for a in rules.legal_actions(s, s.current_seat):  # type: ignore[arg-type]
            kinds.add(type(a).__name__ + ("/" + a.row if getattr(a, "row", None) else ""))
    assert {"Buy/alone", "Fight/alone", "SellCard", "SellJewel", "Place", "Pass"} <= kinds


def test_full_rows_match_the_references() -> None:
    # Real play seldom fills a row while a card of its color is on offer: a hand-made state
    # (a full row, rows holding ships, lone ships, ships on offer) in each step.
    s = EINAUGE.replay(EINAUGE.start(["a", "b"], {}, "full"))
    p = s.players[s.current_seat]  # type: ignore[index]
    p.rows = {"red": ["red-2", "ship-1", "red-5"],
              "blue": [f"blue-{x}" for x in range(2, 8)] + ["ship-2"],
              "green": ["green-3"]}
    p.lone_ships = ["ship-3"]
    p.ducats, p.sabres = 40, 12
    s.display = ["ship-4", "blue-8", "red-8", "gray-2", "green-8", "ship-5"]
    s.pirate_table = ["ship-6", "blue-4", "red-3", "yellow-2"]
    kinds: set[str] = set()
    for step, phase in (("buy", "turns"), ("fight", "turns"), ("place", "turns"),
                        ("fight", "final_round")):
        s.step, s.phase = step, phase
        assert check_state(s) > 0
        kinds |= {a.card for a in rules.legal_actions(s, s.current_seat)  # type: ignore[arg-type]
                  if isinstance(a, ac.Buy | ac.Fight)}
    assert "blue-8" not in kinds and "blue-4" not in kinds  # the blue row is full
    assert {"ship-4", "red-8", "ship-6", "red-3"} <= kinds
