"""``State.copy`` shares each player's row lists and lone ships with its original (``state``
module docstring), so no code may change them in place. Over seeded games of 2 to 5 seats
under both option sets, driven by random legal actions, ``greedy`` and ``mcts``:

- ``decide`` leaves its state exactly as it was: every field of the state and of its
  players, compared with a frozen snapshot (row order included: ``legal_actions`` lists
  sales in the order the rows were started);
- playing on a copy never changes its original, playing on the original never changes a
  copy taken before, and a copy ends exactly where a deep copy played the same way ends;
- every bot chooses exactly what it chooses when ``State.copy`` makes deep copies.

Real play seldom reaches the cases where a change of a lone ship list or of a row holding
ships could leak (ships lie last in the deck): the same checks also run on the built states
of the differential tests (``tests.oracle.test_built_states``: many lone ships, rows that a
sale dissolves), and count that those cases came up.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from engine.bots import RandomBot
from engine.bots.base import Bot, Budget
from engine.einauge import EINAUGE, rules
from engine.einauge import actions as ac
from engine.einauge.bots import GreedyBot, MctsBot
from engine.einauge.bots.greedy import best_action
from engine.einauge.state import Player, State
from engine.game import Message
from tests.oracle.test_built_states import built, to_engine

OPTION_SETS = ({}, {"end_rule": "one_more_turn", "color_bonus": True})
SEEDS = 3
"""Games per table size, option set and driver."""
MCTS_ITERATIONS = 20


def _freeze(value: Any) -> Any:
    # Lists and dicts become tuples (dict items in their order), so a snapshot holds no
    # object of the state and a later change to one cannot reach it.
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _freeze(v)) for k, v in value.items())
    return value


def snapshot(s: State) -> dict[str, Any]:
    """Every field of ``s`` and of each of its players, frozen (see ``_freeze``)."""
    out = {k: _freeze(getattr(s, k)) for k in State.__slots__ if k != "players"}
    out["players"] = tuple({k: _freeze(getattr(p, k)) for k in Player.__slots__}
                           for p in s.players)
    return out


def deep_copy(s: State) -> State:
    """The reference copy: every field of the state and of its players deep-copied."""
    t = State.__new__(State)
    for k in State.__slots__:
        if k != "players":
            setattr(t, k, copy.deepcopy(getattr(s, k)))
    t.players = []
    for p in s.players:
        q = Player.__new__(Player)
        for k in Player.__slots__:
            setattr(q, k, copy.deepcopy(getattr(p, k)))
        t.players.append(q)
    return t


@contextmanager
def deep_copies() -> Iterator[None]:
    """``State.copy`` is ``deep_copy`` inside the block."""
    shared = State.copy
    State.copy = deep_copy  # type: ignore[method-assign]
    try:
        yield
    finally:
        State.copy = shared  # type: ignore[method-assign]


def check_action(s: State, action: Message) -> None:
    """``decide`` changes nothing of ``s``; a copy played on ends as a deep copy does and
    leaves ``s`` as it was."""
    before = snapshot(s)
    events = EINAUGE.decide(s, action)
    assert snapshot(s) == before
    shared, reference = s.copy(), deep_copy(s)
    assert rules.play(shared, action) == events == rules.play(reference, action)
    assert snapshot(s) == before
    assert snapshot(shared) == snapshot(reference)


def same_choice(bot: Bot, s: State, seat: int) -> Message:
    """``bot``'s choice, asserted equal to its choice from the same random state with deep
    copies; ``s`` is asserted unchanged by both."""
    before = snapshot(s)
    rng = bot.rng.getstate()  # type: ignore[attr-defined]
    chosen = bot.choose(EINAUGE, s, seat)
    assert snapshot(s) == before
    bot.rng.setstate(rng)  # type: ignore[attr-defined]
    with deep_copies():
        assert bot.choose(EINAUGE, s, seat) == chosen
    assert snapshot(s) == before
    return chosen


def same_greedy_choice(s: State, seat: int) -> None:
    """``greedy.best_action`` on ``s`` itself (not on a state rebuilt from an observation, as
    the bot plays): it leaves ``s`` as it was and chooses as it does with deep copies."""
    legal = EINAUGE.legal_actions(s, seat)
    before = snapshot(s)
    chosen = best_action(s, seat, legal)
    assert snapshot(s) == before
    with deep_copies():
        assert best_action(s, seat, legal) == chosen


BOTS: dict[str, Callable[[str], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "mcts": lambda seed: MctsBot(seed, Budget(iterations=MCTS_ITERATIONS)),
}


def play_game(driver: str, players: int, options: dict[str, Any], seed: int,
              every_action: bool) -> int:
    """One game driven by ``driver`` at every seat, checked at every step; returns the
    actions played. ``every_action``: check each legal action, not only the one played."""
    s = EINAUGE.replay(EINAUGE.start([f"p{i}" for i in range(players)], options,
                                     f"share-{seed}"))
    bots = [BOTS[driver](f"{seed}/{i}") for i in range(players)]
    played = 0
    while not EINAUGE.is_over(s):
        seat = EINAUGE.to_move(s)[0]
        chosen = same_choice(bots[seat], s, seat)
        if driver == "greedy":
            same_greedy_choice(s, seat)
        for action in EINAUGE.legal_actions(s, seat) if every_action else [chosen]:
            check_action(s, action)
        kept = s.copy()
        frozen = snapshot(kept)
        EINAUGE.play(s, chosen)
        assert snapshot(kept) == frozen  # the original's changes never reach a copy
        played += 1
    return played


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("driver", sorted(BOTS))
def test_copies_share_rows_and_nothing_changes_them(driver: str, players: int,
                                                    options: dict[str, Any]) -> None:
    played = sum(play_game(driver, players, options, seed, every_action=driver == "random")
                 for seed in range(SEEDS))
    assert played > SEEDS * 20  # whole games were played


def test_a_copy_shares_the_row_lists_and_owns_the_rest() -> None:
    # The sharing the checks above rely on (and that makes ``copy`` cheap) is really there.
    s = EINAUGE.replay(EINAUGE.start(["a", "b", "c"], {}, "share-0"))
    rng = RandomBot("share-0")
    while not (any(p.rows for p in s.players) and any(p.lone_ships for p in s.players)):
        assert not EINAUGE.is_over(s), "no lone ship in this game: pick another seed"
        seat = EINAUGE.to_move(s)[0]
        EINAUGE.play(s, rng.choose(EINAUGE, s, seat))
    t = s.copy()
    for p, q in zip(s.players, t.players, strict=True):
        assert q is not p and q.rows is not p.rows and q.rows == p.rows
        assert all(q.rows[c] is cards for c, cards in p.rows.items())
        assert q.lone_ships is p.lone_ships
    assert t.deck is s.deck
    assert t.display is not s.display and t.pirate_table is not s.pirate_table


def test_built_states_with_lone_ships_and_dissolving_sales() -> None:
    rng = random.Random(27)
    seen: Counter[str] = Counter()
    greedy, mcts = GreedyBot("built"), MctsBot("built", Budget(iterations=MCTS_ITERATIONS))
    for states, game in enumerate(built(rng, 1000), 1):
        s = to_engine(game)
        seat = EINAUGE.to_move(s)[0]
        lone = len(s.players[seat].lone_ships)
        for action in EINAUGE.legal_actions(s, seat):
            check_action(s, action)
            after = s.copy()
            rules.play(after, action)
            if len(after.players[seat].lone_ships) > lone and type(action) is ac.SellCard:
                seen["row_dissolved"] += 1
            if lone and len(after.players[seat].lone_ships) < lone:
                seen["lone_ships_joined_a_row"] += 1
        same_choice(greedy, s, seat)
        if states % 4 == 0:  # the search is the slow part of this test
            same_choice(mcts, s, seat)
        same_greedy_choice(s, seat)
    assert seen["row_dissolved"] > 0 and seen["lone_ships_joined_a_row"] > 0, seen
