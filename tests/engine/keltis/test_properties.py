"""Property tests: random legal Keltis games for 2 to 4 players keep every invariant.

Each example plays one whole game with actions drawn from ``legal_actions`` and checks,
after every action: every card is in exactly one place, hands hold 8 cards at a play
step, replay of the events gives the same state, events round-trip through their wire
form, ``legal_actions`` is exactly what ``decide`` accepts (tried against every action of
the right shape) and a refused action changes nothing. At the end the scores equal an
independent recomputation from the final rows; the same seed and actions give the same
events.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.game import IllegalAction, Message
from engine.keltis import KELTIS
from engine.keltis import actions as ac
from engine.keltis.cards import CANONICAL, KIND, POINT_CARD
from engine.keltis.events import EVENTS
from engine.keltis.state import State

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
games = st.fixed_dictionaries({"n": st.integers(2, 4), "seed": st.text(max_size=10),
                               "rng": st.integers(0, 2**32 - 1)})

# The scoring tables, written out from RULES-keltis "Final scoring" (not imported).
ROW = {0: 0, 1: -4, 2: -3, 3: -2, 4: 1, 5: 2, 6: 3, 7: 6, 8: 7}
STONES = {0: -4, 1: -1, 2: 0, 3: 4, 4: 6}


def expected_result(view: dict[str, Any]) -> dict[str, Any]:
    scores = []
    for p in view["players"]:
        rows = {c: ROW.get(len(r["cards"]), 10) for c, r in p["rows"].items()}
        stones = STONES.get(len(p["stones"]), 10)
        assert all(KIND[c] == POINT_CARD for c in p["point_row"])
        total = sum(rows.values()) + len(p["point_row"]) + stones
        scores.append({"seat": p["seat"], "rows": rows, "point_row": len(p["point_row"]),
                       "stones": stones, "total": total})
    best = max(s["total"] for s in scores)
    return {"scores": scores, "winners": [s["seat"] for s in scores if s["total"] == best]}


def check_cards(s: State) -> None:
    places = [*s.deck[s.deck_pos:], *s.removed]
    for pile in s.discards.values():
        places += pile
    for p in s.players:
        places += p.hand + p.point_row
        for row in p.rows.values():
            places += row
        assert set(p.known) <= set(p.hand)
        assert p.hand == sorted(p.hand, key=CANONICAL.index)
    assert sorted(places) == sorted(CANONICAL), "every card in exactly one place"


def shaped(s: State, seat: int) -> list[Message]:
    """Every action of each type that names cards in the hand, rows or sources."""
    hand = s.players[seat].hand
    out: list[Message] = [ac.Finish(seat)]
    out += [ac.Lay(seat, c, r) for c in hand
            for r in ("green", "yellow", "red", "pink", "blue", "point")]
    out += [ac.Discard(seat, c) for c in hand]
    out += [ac.Stone(seat, (a, b)) for a in hand for b in hand]
    out += [ac.Draw(seat, src) for src in ("deck", "green", "yellow", "red", "pink", "blue",
                                           "point")]
    return out


def snapshot(s: State) -> str:
    return json.dumps([KELTIS.view(s, v) for v in (None, *range(len(s.players)))])


def play(params: dict[str, Any], exhaustive: bool) -> tuple[list[Message], list[Message]]:
    n, r = params["n"], random.Random(params["rng"])
    names = [f"p{i}" for i in range(n)]
    events = KELTIS.start(names, {}, params["seed"])
    state = KELTIS.replay(events)
    actions: list[Message] = []
    for _ in range(2000):
        check_cards(state)
        if KELTIS.is_over(state):
            break
        (seat,) = KELTIS.to_move(state)
        assert state.step in ("play", "draw", "final")  # never "deal" or None after a batch
        assert (state.step == "final") == (state.phase == "final_turns")
        assert (state.draws_left > 0) == (state.step == "draw")
        if state.step == "play":
            assert len(state.players[seat].hand) == 8
        legal = KELTIS.legal_actions(state, seat)
        assert legal and len(set(legal)) == len(legal)
        assert KELTIS.legal_actions(state, (seat + 1) % n) == []
        if exhaustive:
            before = snapshot(state)
            for a in shaped(state, seat):
                try:
                    KELTIS.decide(state, a)
                    accepted = True
                except IllegalAction:
                    accepted = False
                assert accepted == (a in legal), a
            assert snapshot(state) == before, "decide never changes the state"
        action = legal[r.randrange(len(legal))]
        new = KELTIS.play(state, action)
        for e in new:
            assert EVENTS.decode(json.loads(json.dumps(e.to_dict()))) == e
        actions.append(action)
        events.extend(new)
    assert KELTIS.is_over(state)
    replayed = KELTIS.replay(events)
    assert snapshot(replayed) == snapshot(state)
    assert state.result == expected_result(KELTIS.public_view(state))
    return actions, events


@SETTINGS
@given(games)
def test_random_games_keep_every_invariant(params: dict[str, Any]) -> None:
    play(params, exhaustive=True)


@settings(max_examples=60, deadline=None)
@given(games)
def test_scores_equal_an_independent_recomputation(params: dict[str, Any]) -> None:
    play(params, exhaustive=False)


def test_same_seed_and_actions_give_the_same_events() -> None:
    actions, events = play({"n": 3, "seed": "det", "rng": 7}, exhaustive=False)
    again = KELTIS.start(["p0", "p1", "p2"], {}, "det")
    state = KELTIS.replay(again)
    for a in actions:
        again += KELTIS.play(state, a)
    assert [e.to_dict() for e in again] == [e.to_dict() for e in events]
