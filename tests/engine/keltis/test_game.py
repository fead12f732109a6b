"""The ``Game`` object: whole games between random bots through ``engine.selfplay``."""

from __future__ import annotations

import pytest

from engine import get_game
from engine.bots import RandomBot
from engine.keltis import KELTIS
from engine.keltis import events as ev
from engine.selfplay import play_game

GAMES = 300


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_bots_finish_games(n: int) -> None:
    names = [f"bot{i}" for i in range(n)]
    wins = [0] * n
    triggers = set()
    for i in range(GAMES):
        seed = f"k{n}-{i}"
        g = play_game(get_game("keltis"), names, {}, seed,
                      [RandomBot(f"{seed}/{s}") for s in range(n)])
        assert KELTIS.is_over(g.state)
        result = g.state.result
        assert [s["seat"] for s in result["scores"]] == list(range(n))
        for w in result["winners"]:
            wins[w] += 1
        (trigger,) = [e for e in g.events if isinstance(e, ev.EndTriggered)]
        triggers.add(trigger.reason)
        finals = [e.seat for e in g.events if isinstance(e, ev.FinalTurnEnded)]
        assert finals == [(trigger.seat + 1 + k) % n for k in range(n)]
        assert KELTIS.replay(g.events).result == result
    assert all(wins)  # every seat wins some games
    assert triggers == {"deck_empty", "rows_closed"}  # both ends occur in random play


def test_play_game_is_deterministic() -> None:
    def once():
        return play_game(KELTIS, ["a", "b", "c"], {}, "det",
                         [RandomBot(f"det/{s}") for s in range(3)])
    a, b = once(), once()
    assert [x.to_dict() for x in a.actions] == [x.to_dict() for x in b.actions]
    assert [x.to_dict() for x in a.events] == [x.to_dict() for x in b.events]


def test_setup_deck_and_initial_state() -> None:
    events = KELTIS.start(["a", "b"], {}, "s")
    assert KELTIS.setup_deck(events) == events[0].deck and len(events[0].deck) == 101
    with pytest.raises(ValueError):
        KELTIS.setup_deck(events[1:])
    state = KELTIS.initial_state()
    for e in events:
        state = KELTIS.evolve(state, e)
    assert KELTIS.to_move(state) == (0,)
