"""Self-play: whole games between bots, deterministic for a seed (no clock, no I/O)."""

from __future__ import annotations

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
    state = game.replay(events)  # type: ignore[attr-defined]
    actions: list[Message] = []
    play = game.play  # type: ignore[attr-defined]
    for _ in range(MAX_ACTIONS):
        seats = game.to_move(state)
        if not seats:
            return PlayedGame(list(players), dict(options), seed, actions, events, state)
        action = bots[seats[0]].choose(game, state, seats[0])
        actions.append(action)
        events.extend(play(state, action))
    raise RuntimeError(f"game with seed {seed!r} did not end within {MAX_ACTIONS} actions")
