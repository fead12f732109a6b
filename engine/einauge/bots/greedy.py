"""``greedy``: one-step lookahead on the heuristic of ``engine.bots.heuristic``.

For each candidate action (``engine.bots.candidates``) of a buy or fight step, the bot
plays it on a state built from its observation and keeps the action that leaves it the
best margin (its expected final jewels minus the best other seat's). For the place step,
where the rules would reveal unknown cards, it instead moves each display card to the
pirate table by hand and keeps the placement that leaves the next seat the least to gain
(its best buy from the display plus its best fight from the pirate table, if it has the
ducats and sabres), plus a third of what the bot itself could win by fighting the placed
card next turn. Ties go to the first candidate in the rules' order, so the bot is
deterministic for a seed.
"""

from __future__ import annotations

import random

from engine.bots.base import Bot, Budget, require_legal
from engine.einauge import rules
from engine.einauge.bots.candidates import candidates
from engine.einauge.bots.heuristic import margin, remaining_turns, row_payout, values
from engine.einauge.cards import CARDS
from engine.einauge.determinize import determinize
from engine.einauge.observation import Observation
from engine.einauge.state import State
from engine.game import Message

OWN_FIGHT_SHARE = 1 / 3
"""How much of its own later fight for a placed card the bot counts (it may be gone)."""


class GreedyBot(Bot):
    """The documented one-step heuristic bot (module docstring); the budget is ignored."""

    kind = "greedy"

    def __init__(self, seed: int | str = 0, budget: Budget | None = None) -> None:
        super().__init__(seed, budget)
        self.rng = random.Random(seed)

    def act(self, obs: Observation, budget: Budget | None = None) -> Message:
        """The greedy choice among ``obs.legal``; raises ``ValueError`` if there is none."""
        legal = require_legal(obs)
        if len(legal) == 1:
            return legal[0]
        s = determinize(obs, rng=self.rng)
        return best_action(s, obs.seat, list(legal))


def best_action(s: State, seat: int, legal: list[Message]) -> Message:
    """The greedy choice for ``seat`` in ``s`` among ``legal`` (``s`` is not changed)."""
    cands = candidates(s, seat, legal)
    if len(cands) == 1:
        return cands[0]
    if s.step == "place":
        return _best_place(s, seat, cands)
    best, best_value = cands[0], float("-inf")
    for a in cands:
        t = s.copy()
        rules.play(t, a)
        v = margin(values(t), seat)
        if v > best_value:
            best, best_value = a, v
    return best


def _with_card(s: State, seat: int, card: str, source: list[str] | None, ducats: int,
               sabres: int) -> State:
    """A copy of ``s`` where ``seat`` took ``card`` (from ``source``, a list of ``s``) for
    ``ducats`` and ``sabres`` and its row paid out; a ship joins the best-paying row."""
    t = s.copy()
    p = t.players[seat]
    if source is s.display:
        t.display.remove(card)
    elif source is s.pirate_table:
        t.pirate_table.remove(card)
    color = CARDS[card].color
    if color is None:
        rows = [r for r in p.rows if len(p.rows[r]) < 7]
        color = max(rows, key=lambda r: row_payout(p.rows[r], 0.6)) if rows else None
    # New lists, never ``append``: the copy shares its rows and lone ships with ``s``.
    if color is None:
        p.lone_ships = [*p.lone_ships, card]
    else:
        p.rows[color] = [*p.rows.get(color, ()), card]
        for c in p.rows[color]:
            y = CARDS[c]
            p.sabres += y.sabres
            p.ducats += y.ducats
            p.jewels += y.jewels
    p.ducats -= ducats
    p.sabres -= sabres
    return t


def _gain(s: State, seat: int, card: str, source: list[str], ducats: int, sabres: int) -> float:
    if ducats > s.players[seat].ducats or sabres > s.players[seat].sabres:
        return 0.0
    p = s.players[seat]
    color = CARDS[card].color
    if color is not None and len(p.rows.get(color, ())) >= 7:
        return 0.0
    before = margin(values(s), seat)
    return max(0.0, margin(values(_with_card(s, seat, card, source, ducats, sabres)), seat)
               - before)


def _best_place(s: State, seat: int, cands: list[Message]) -> Message:
    n = len(s.players)
    nxt = (seat + 1) % n
    best, best_score = cands[0], float("-inf")
    turns = remaining_turns(s)
    for a in cands:
        card = a.card  # type: ignore[attr-defined]
        t = s.copy()
        t.display.remove(card)
        t.pirate_table.append(card)
        buy = max((_gain(t, nxt, c, t.display, CARDS[c].price, 0) for c in t.display),
                  default=0.0)
        fight = max((_gain(t, nxt, c, t.pirate_table, 0, CARDS[c].fight_cost)
                     for c in t.pirate_table), default=0.0)
        own = _gain(t, seat, card, t.pirate_table, 0, CARDS[card].fight_cost) if turns > 1 else 0
        score = -(buy + fight) + OWN_FIGHT_SHARE * own
        if score > best_score:
            best, best_score = a, score
    return best

