"""Post-game analysis of a game record: every decision judged by the bots' search, and
each seat's luck (docs/bots.md, "Post-game analysis").

``analyse(record, budget_ms)`` replays the record action by action. At each action
(index ``i``, by ``seat``):

- **Forced** (the seat had exactly one legal action): ``loss`` 0, ``best`` the action,
  nothing searched.
- **Judged** otherwise, from the seat's observation then (``Game.observation``: never the
  hidden state). The game's strongest bot (``mcts``, the determinised search the table's
  bots use) searches the position; the candidates are the move played, the search's
  choice and its most visited root moves (all legal moves when there are at most
  ``ALL_MOVES``). Each candidate's expected points are the mean, over the same
  ``samples`` determinisations (``Game.sample`` of the observation, one seeded stream
  per decision: common random numbers), of the seat's estimated final points after the
  move (``points`` of the game's analysis module: the search's leaf playout and
  estimate, the totals once the game is over). ``best`` is the candidate with the
  highest mean, ``loss`` its mean minus the played move's: ≥ 0 by construction; when no
  candidate beats the move played by ``EPSILON``, ``best`` is the move played and
  ``loss`` 0.
- **Luck**: an action whose events include one of the game's ``CHANCE_EVENTS`` (a card
  turned up or drawn) adds, for every seat, its expected points after the action (samples
  of its observation then) minus its expected points before the card was seen (samples of
  its observation before the action, the action played on each: the card still unknown).
  For a seat other than the mover only samples in which the action is legal count
  (the mover's hidden cards are consistent with what it played); a seat with none keeps
  0 there. A seat's ``luck`` is the sum: positive when the cards helped it.

The budget (``budget_ms`` per decision) is turned into a number of search iterations and
samples with the game's ``ITERATION_MS`` and ``ESTIMATE_MS`` (``work``), never read from a
clock, so the result is the same on every machine: deterministic for a record and a
budget, seeded from the record (its seed, else a hash of its content). Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from engine import GAMES as REGISTRY
from engine import record_game
from engine.bots.registry import make_bot
from engine.game import Game, IllegalAction, Message, RecordError

DEFAULT_BUDGET_MS = 100.0
"""The budget per decision of ``cardtable analyse`` and the service."""
ALL_MOVES = 12
"""With at most this many legal moves, every one is a candidate."""
TOP_VISITED = 3
"""Root moves of the search, most visited first, that are candidates besides its choice."""
CANDIDATES = 5
"""About how many moves a decision values (for ``work``)."""
EPSILON = 1e-6
"""A candidate must beat the move played by more than this to be ``best``."""
MARK_NAMES = ("inaccuracy", "mistake", "blunder")

GAMES: dict[str, ModuleType] = {
    # Each game package's own ``analysis`` module, found through the registry (nothing
    # outside a game's package names it).
    name: importlib.import_module(type(game).__module__.rsplit(".", 1)[0] + ".analysis")
    for name, game in REGISTRY.items()}
"""Each game's analysis module by game name: ``MARKS`` (three thresholds in points),
``CHANCE_EVENTS``, ``ITERATION_MS``, ``ESTIMATE_MS`` and ``points(state)`` (expected final
points per seat)."""

Progress = Callable[[int, int], None]
"""Called with (actions done, actions in the record) after each action."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One action of the record judged: ``index`` in the record's ``actions``, the
    ``seat`` that played it, ``action`` and ``best`` in the record's action format,
    ``loss`` ≥ 0 in the game's points, ``forced`` when it was the only legal action."""

    index: int
    seat: int
    action: dict[str, Any]
    best: dict[str, Any]
    loss: float
    forced: bool


@dataclass(frozen=True, slots=True)
class Analysis:
    """The analysis of one record: ``decisions`` in record order, ``luck`` per seat."""

    game: str
    decisions: list[Decision]
    luck: list[float]

    def to_dict(self) -> dict[str, Any]:
        """The command's JSON: ``{"decisions": [{"index", "seat", "action", "best",
        "loss"}], "luck": [per seat]}``."""
        return {"decisions": [{"index": d.index, "seat": d.seat, "action": d.action,
                               "best": d.best, "loss": d.loss} for d in self.decisions],
                "luck": list(self.luck)}


def work(game: str, budget_ms: float) -> tuple[int, int]:
    """``(search iterations, samples)`` per decision for ``budget_ms`` of ``game``: half the
    budget for the search (``ITERATION_MS`` each), half for valuing about ``CANDIDATES``
    moves on the samples (``ESTIMATE_MS`` each). Raises ``ValueError`` for a budget ≤ 0
    or an unknown game."""
    if not isinstance(budget_ms, int | float) or budget_ms <= 0:
        raise ValueError(f"the budget must be a positive number of ms, not {budget_ms!r}")
    spec = _module(game)
    iterations = max(4, min(5000, int(budget_ms / 2 / spec.ITERATION_MS)))
    samples = max(4, min(64, int(budget_ms / 2 / (CANDIDATES * spec.ESTIMATE_MS))))
    return iterations, samples


def marks(game: str) -> tuple[float, float, float]:
    """The game's thresholds (points) for inaccuracy, mistake and blunder."""
    t = _module(game).MARKS
    return (float(t[0]), float(t[1]), float(t[2]))


def mark(game: str, loss: float) -> str | None:
    """``inaccuracy``, ``mistake``, ``blunder`` or ``None`` for a ``loss`` in ``game``: the
    worst name whose threshold the loss reaches."""
    name = None
    for threshold, label in zip(marks(game), MARK_NAMES, strict=True):
        if loss >= threshold:
            name = label
    return name


def analyse(record: Mapping[str, Any], budget_ms: float = DEFAULT_BUDGET_MS,
            progress: Progress | None = None, span: tuple[int, int] | None = None
            ) -> Analysis:
    """The analysis of ``record`` (module docstring). ``span`` ``(first, stop)``: only the
    actions ``first <= index < stop`` are judged and their luck summed (the same numbers
    as in the whole analysis: a long game is analysed in parts, ``merge`` joins them).
    Raises ``RecordError`` for a record that does not replay (``Game.replay_record``),
    ``ValueError`` for a bad budget or span or a game without analysis."""
    game = record_game(record)
    game.replay_record(record)  # the whole record checked before any search
    spec = _module(game.name)
    iterations, samples = work(game.name, budget_ms)
    base_seed = _record_seed(record)
    actions: Sequence[Mapping[str, Any]] = record["actions"]
    first, stop = span if span is not None else (0, len(actions))
    if not 0 <= first <= stop <= len(actions):
        raise ValueError(f"span must lie within 0..{len(actions)}, not {span!r}")
    seats = len(record["players"])
    state = game.replay(game.start(record["players"], record.get("options"),
                                   record.get("seed"),  # type: ignore[arg-type]
                                   record.get(game.deck_field)))
    decisions: list[Decision] = []
    luck = [0.0] * seats
    for i, raw in enumerate(actions[:stop]):
        action = game.actions.decode(raw)
        if i < first:
            game.play(state, action)
            continue
        seat: int = getattr(action, "seat")  # noqa: B009 (every game's actions name it)
        seed = f"{base_seed}:{i}"
        decisions.append(_judge(game, spec, state, i, seat, action, dict(raw),
                                iterations, samples, seed))
        before = [game.observation(state, q) for q in range(seats)]
        events = game.play(state, action)
        if any(e.type in spec.CHANCE_EVENTS for e in events):
            for q in range(seats):
                luck[q] += _luck(game, spec, before[q], action, state, q, samples,
                                 f"{seed}:luck:{q}")
        if progress is not None:
            progress(i + 1 - first, stop - first)
    return Analysis(game.name, decisions, luck)


def merge(parts: Sequence[Analysis]) -> Analysis:
    """One analysis of consecutive parts of a record (``analyse`` with ``span``): their
    decisions in order, their luck summed and rounded to 3 places. Raises ``ValueError``
    for no parts."""
    if not parts:
        raise ValueError("nothing to merge")
    luck = [round(sum(xs), 3) for xs in zip(*(p.luck for p in parts), strict=True)]
    return Analysis(parts[0].game, [d for p in parts for d in p.decisions], luck)


def spans(actions: int, size: int) -> list[tuple[int, int]]:
    """``(first, stop)`` parts of ``size`` actions covering ``actions`` actions (one empty
    part for none)."""
    return [(a, min(a + size, actions)) for a in range(0, actions, size)] or [(0, 0)]


def summary(game: str, analysis: Analysis) -> list[dict[str, Any]]:
    """Per seat: ``decisions`` (judged, forced ones not counted), ``inaccuracies``,
    ``mistakes``, ``blunders``, ``average_loss`` (points per judged decision, 0 without
    any), ``loss`` (the points all its decisions lost, ≥ 0) and ``luck`` (points)."""
    out = []
    for seat, luck in enumerate(analysis.luck):
        mine = [d for d in analysis.decisions if d.seat == seat and not d.forced]
        names = [mark(game, d.loss) for d in mine]
        out.append({"seat": seat, "decisions": len(mine),
                    "inaccuracies": names.count("inaccuracy"),
                    "mistakes": names.count("mistake"), "blunders": names.count("blunder"),
                    "average_loss": round(sum(d.loss for d in mine) / len(mine), 3)
                    if mine else 0.0,
                    "loss": round(sum(d.loss for d in mine), 3),
                    "luck": luck})
    return out


def _module(game: str) -> ModuleType:
    spec = GAMES.get(game)
    if spec is None:
        raise ValueError(f"no analysis for game {game!r}")
    return spec


def _record_seed(record: Mapping[str, Any]) -> str:
    """The record's seed, or a hash of the record when it has none (self-play records)."""
    seed = record.get("seed")
    if isinstance(seed, str) and seed:
        return seed
    blob = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _key(action: Message) -> str:
    return json.dumps(action.to_dict(), sort_keys=True)


def _judge(game: Game, spec: ModuleType, state: Any, index: int, seat: int,
           action: Message, raw: dict[str, Any], iterations: int, samples: int,
           seed: str) -> Decision:
    obs = game.observation(state, seat)
    legal = list(obs.legal)
    if len(legal) <= 1:
        return Decision(index, seat, raw, raw, 0.0, True)
    bot = make_bot("mcts", f"{seed}:search", game=game, iterations=iterations)
    choice = bot.act(obs)
    visited = sorted(getattr(bot, "last_visits", []), key=lambda mv: -mv[1])
    pool = legal if len(legal) <= ALL_MOVES else [choice] + [m for m, _ in visited]
    played = _key(action)
    candidates: dict[str, Message] = {played: action}
    for m in [choice, *pool]:
        candidates.setdefault(_key(m), m)
        if len(legal) > ALL_MOVES and len(candidates) >= TOP_VISITED + 2:
            break
    value = _values(game, spec, obs, list(candidates.values()), seat, samples, seed)
    keys = list(candidates)
    best_i = max(range(len(keys)), key=lambda j: value[j])
    loss = round(value[best_i] - value[0], 3)  # the played move is candidate 0
    if keys[best_i] == played or loss <= EPSILON:
        return Decision(index, seat, raw, raw, 0.0, False)
    return Decision(index, seat, raw, candidates[keys[best_i]].to_dict(), loss, False)


def _values(game: Game, spec: ModuleType, obs: Any, moves: list[Message], seat: int,
            samples: int, seed: str) -> list[float]:
    """Mean expected points of ``seat`` after each of ``moves``, over the same ``samples``
    determinisations of ``obs`` (each rebuilt from its own seed for every move)."""
    totals = [0.0] * len(moves)
    for k in range(samples):
        for j, move in enumerate(moves):
            s = game.sample(obs, random.Random(f"{seed}:{k}"))
            game.play(s, move)
            totals[j] += spec.points(s)[seat]
    return [t / samples for t in totals]


def _luck(game: Game, spec: ModuleType, before: Any, action: Message, after: Any,
          seat: int, samples: int, seed: str) -> float:
    """``seat``'s expected points after the action minus before its chance was seen
    (module docstring); 0 when no sample of ``before`` admits the action."""
    pre, n = 0.0, 0
    for k in range(samples * 4):  # other seats: rejection of samples the action contradicts
        if n == samples:
            break
        s = game.sample(before, random.Random(f"{seed}:{k}"))
        try:
            game.play(s, action)
        except IllegalAction:
            continue
        pre += spec.points(s)[seat]
        n += 1
    if n == 0:
        return 0.0
    if game.is_over(after):
        post = float(spec.points(_copy(after))[seat])
    else:
        obs = game.observation(after, seat)
        post = sum(spec.points(game.sample(obs, random.Random(f"{seed}:{k}")))[seat]
                   for k in range(samples)) / samples
    return float(post - pre / n)


def _copy(state: Any) -> Any:
    return state.copy()


__all__ = ["ALL_MOVES", "DEFAULT_BUDGET_MS", "GAMES", "MARK_NAMES", "Analysis", "Decision",
           "RecordError", "analyse", "mark", "marks", "merge", "spans", "summary", "work"]
