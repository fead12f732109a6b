"""Self-play: whole games between bots, deterministic for a seed (no clock, no I/O)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.game import Game, Message


class Bot(Protocol):
    """Anything that picks an action for a seat."""

    def choose(self, game: Game, state: Any, seat: int) -> Message: ...


@dataclass
class PlayedGame:
    """One finished game: the seed and players it started from, every action taken, every
    event produced, and the final state."""

    players: list[str]
    options: dict[str, Any]
    seed: str
    actions: list[Message]
    events: list[Message]
    state: Any


MAX_ACTIONS = 100_000


def play_game(game: Game, players: Sequence[str], options: Mapping[str, Any], seed: str,
              bots: Sequence[Bot]) -> PlayedGame:
    """Play one game to its end, ``bots[i]`` choosing for seat ``i``.

    Raises ``RuntimeError`` if the game does not end within ``MAX_ACTIONS`` actions (a
    bug guard: the rules end every game far sooner).
    """
    events = list(game.start(players, options, seed))
    state = game.replay(events)
    actions: list[Message] = []
    play = game.play
    for _ in range(MAX_ACTIONS):
        seats = game.to_move(state)
        if not seats:
            return PlayedGame(list(players), dict(options), seed, actions, events, state)
        action = bots[seats[0]].choose(game, state, seats[0])
        actions.append(action)
        events.extend(play(state, action))
    raise RuntimeError(f"game with seed {seed!r} did not end within {MAX_ACTIONS} actions")


def random_playout(game: Game, state: Any, rng: random.Random,
                   actions: list[Message] | None = None, events: list[Message] | None = None,
                   max_actions: int = MAX_ACTIONS) -> int:
    """Play ``state`` (updated in place) to the end, every seat choosing uniformly among
    its legal actions with ``rng``: the playout of a tree search, and the benchmark loop.

    Picks ``legal[rng.randrange(len(legal))]``, the same choice a ``RandomBot`` holding
    ``rng`` makes. (It builds the list: with the engine's interned actions one walk that
    lists them is cheaper than ``legal_count`` plus ``legal_action``, two walks.) Appends
    to ``actions``/``events`` when given. Returns the number of actions played; raises
    ``RuntimeError`` after ``max_actions``.
    """
    to_move = game.to_move
    legal_actions = game.legal_actions
    play = game.play
    randrange = rng.randrange
    for n in range(max_actions):
        seats = to_move(state)
        if not seats:
            return n
        legal = legal_actions(state, seats[0])
        action = legal[randrange(len(legal))]
        new = play(state, action)
        if actions is not None:
            actions.append(action)
        if events is not None:
            events.extend(new)
    raise RuntimeError(f"game did not end within {max_actions} actions")
