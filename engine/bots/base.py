"""The bot interface: given what its seat may know and a budget, return an action.

A bot's decision method is ``act(observation, budget)``: it receives its game's
observation (``Game.observation``: what the seat may know, at least ``seat`` and
``legal``, never a hidden card), so it cannot read hidden information.
``choose(game, state, seat)`` is the adapter the self-play loop and the server call: it
builds the seat's observation and hands only that to ``act``.

Engine code has no clock: a budget in milliseconds needs a ``clock`` function from the
caller (e.g. ``time.perf_counter``); without one a bot counts iterations only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.game import Game, Message

Observation = Any
"""A game's observation (``Game.observation``); bots read ``seat`` and ``legal`` of any."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much thinking a move may take.

    ``iterations``: a search's iteration limit (``None``: no limit from it). ``ms``: a time
    limit in milliseconds, read from ``clock`` (a function returning seconds, e.g.
    ``time.perf_counter``), which is required with ``ms``. When both are set, the first
    limit reached ends the search. Raises ``ValueError`` for non-positive limits or ``ms``
    without a clock.
    """

    iterations: int | None = None
    ms: float | None = None
    clock: Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.iterations is not None and (type(self.iterations) is not int
                                            or self.iterations < 1):
            raise ValueError(f"iterations must be a whole number >= 1, not {self.iterations!r}")
        if self.ms is not None:
            if not isinstance(self.ms, int | float) or self.ms <= 0:
                raise ValueError(f"ms must be a positive number, not {self.ms!r}")
            if self.clock is None:
                raise ValueError("a budget in ms needs a clock function (engine has no clock)")

    def deadline(self) -> float | None:
        """The clock reading at which to stop, or ``None`` without a time limit."""
        if self.ms is None or self.clock is None:
            return None
        return self.clock() + self.ms / 1000.0


class Bot:
    """Base of the bots: ``kind`` names it in ``make_bot``; ``budget`` is the default budget
    ``choose`` passes to ``act``. Subclasses implement ``act``."""

    kind = "bot"

    def __init__(self, seed: int | str = 0, budget: Budget | None = None) -> None:
        self.seed = seed
        self.budget = budget

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """One of ``obs.legal`` for ``obs.seat``; raises ``ValueError`` if it has none."""
        raise NotImplementedError

    def choose(self, game: Game, state: Any, seat: int) -> Message:
        """The self-play / server entry: observe ``state`` as ``seat`` and ``act`` on that
        observation only. Raises ``ValueError`` when ``seat`` has no legal action."""
        return self.act(game.observation(state, seat), self.budget)

    def describe(self) -> dict[str, Any]:
        """Kind and settings, for logs and the tournament report."""
        return {"kind": self.kind}


def require_legal(obs: Observation) -> tuple[Message, ...]:
    """``obs.legal``; raises ``ValueError`` when the seat cannot act now."""
    if not obs.legal:
        raise ValueError(f"seat {obs.seat} has no legal action")
    return obs.legal
