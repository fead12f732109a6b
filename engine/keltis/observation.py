"""What one seat knows of a Keltis game, and hidden states sampled consistently with it.

``observation(state, seat)`` is the input a bot is handed: the public part (rows, point
rows, stones, discard piles, whose turn and which step, counts of hands, deck and removed
cards), the seat's own hand, the cards every player saw enter another hand (drawn from a
discard pile and not played since), the seat's legal actions, and ``unseen``: the
multiset of cards the seat has never seen where they now lie (all 101 minus its hand,
everything public and the known cards of other hands), sorted canonically, so two games
that differ only in where the unseen cards lie give equal observations.

``sample(obs, rng)`` is OpenSpiel's ``resample_from_infostate``: a full ``State`` that
agrees with ``obs`` in everything, with the unseen cards dealt uniformly at random into
the unknown part of the other hands, the removed cards (2 players) and the deck. The
rules code plays on it as on any state.

One inference is left out on purpose: a final turn that ended by itself tells everyone
that player had no legal lay left. After that turn the player's hand plays no further part
(hands score nothing), so no decision can depend on it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine.game import Message
from engine.keltis import rules
from engine.keltis.cards import CANONICAL, COLORS, PILES, RANK
from engine.keltis.evolve import lay
from engine.keltis.state import Player, State

_RANK = RANK.__getitem__


@dataclass(frozen=True, slots=True)
class PlayerObservation:
    """One seat's public holdings: ``hand_count``; ``known``: cards of its hand all
    players saw it draw (canonical order); ``rows`` as ``(color, cards)`` in color order
    (cards in the order laid); ``point_row``; ``stones`` (values, ascending)."""

    name: str
    hand_count: int
    known: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]
    point_row: tuple[str, ...]
    stones: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything ``seat`` may know now and nothing more (see the module docstring).

    ``hand``: the seat's own cards (canonical order). ``unseen``: canonical order, never
    the deck order. ``legal``: exactly the actions the rules accept from ``seat`` now.
    """

    seat: int
    options: dict[str, Any]
    phase: str
    step: str | None
    current_seat: int | None
    draws_left: int
    blocked: tuple[str, ...]
    end_triggered: bool
    trigger_seat: int | None
    trigger: str | None
    final_left: int
    final_lays: int
    seq: int
    stones: tuple[int, ...]
    discards: tuple[tuple[str, tuple[str, ...]], ...]
    players: tuple[PlayerObservation, ...]
    hand: tuple[str, ...]
    deck_count: int
    removed_count: int
    unseen: tuple[str, ...]
    legal: tuple[Message, ...]


def observation(state: State, seat: int) -> Observation:
    """The observation of ``seat`` in ``state`` (a started game).

    Raises ``ValueError`` for a seat not at the table or a game not yet started.
    """
    if state.phase == "setup":
        raise ValueError("no game yet: observe a started game")
    if type(seat) is not int or not 0 <= seat < len(state.players):
        raise ValueError(f"seat must be 0..{len(state.players) - 1}, not {seat!r}")
    seen: set[str] = set(state.players[seat].hand)
    for cards in state.discards.values():
        seen.update(cards)
    players = []
    for p in state.players:
        for cards in p.rows.values():
            seen.update(cards)
        seen.update(p.point_row)
        seen.update(p.known)
        players.append(PlayerObservation(
            p.name, len(p.hand), tuple(sorted(p.known, key=_RANK)),
            tuple((c, tuple(p.rows[c])) for c in COLORS if c in p.rows),
            tuple(p.point_row), tuple(p.stones)))
    return Observation(
        seat=seat, options=dict(state.options), phase=state.phase, step=state.step,
        current_seat=state.current_seat, draws_left=state.draws_left,
        blocked=tuple(state.blocked), end_triggered=state.end_triggered,
        trigger_seat=state.trigger_seat, trigger=state.trigger,
        final_left=state.final_left, final_lays=state.final_lays, seq=state.seq,
        stones=tuple(state.stones),
        discards=tuple((pile, tuple(cards)) for pile, cards in state.discards.items()),
        players=tuple(players), hand=tuple(state.players[seat].hand),
        deck_count=state.deck_count, removed_count=len(state.removed),
        unseen=tuple(c for c in CANONICAL if c not in seen),
        legal=tuple(rules.legal_actions(state, seat)),
    )


def _player(po: PlayerObservation) -> Player:
    """``po``'s public holdings as a ``Player`` with an empty hand."""
    p = Player(po.name)
    for color, cards in po.rows:
        for card in cards:
            lay(p, card, color)  # rebuilds last value and direction as evolve did
    p.point_row = list(po.point_row)
    p.stones = list(po.stones)
    p.known = list(po.known)
    return p


def _public_state(obs: Observation) -> State:
    """Everything of ``obs`` as a ``State`` but the unseen cards: other hands hold only
    their known cards, the deck and the removed cards are empty."""
    players = [_player(po) for po in obs.players]
    players[obs.seat].hand = list(obs.hand)
    s = State()
    s.players = players
    s.options = dict(obs.options)
    s.dealt = len(players)
    s.phase = obs.phase
    s.step = obs.step
    s.current_seat = obs.current_seat
    s.draws_left = obs.draws_left
    s.blocked = tuple(obs.blocked)
    s.stones = list(obs.stones)
    piles = dict(obs.discards)
    s.discards = {pile: list(piles[pile]) for pile in PILES}
    s.closed_rows = sum(1 for p in players for c in p.rows if c not in p.last)
    s.end_triggered = obs.end_triggered
    s.trigger_seat = obs.trigger_seat
    s.trigger = obs.trigger
    s.final_left = obs.final_left
    s.final_lays = obs.final_lays
    s.seq = obs.seq
    return s


_last_public: tuple[Observation | None, State] = (None, State())
"""The public state of the last observation sampled from: a search samples one
observation thousands of times (a cache by identity, so it changes no result)."""


def sample(obs: Observation, rng: random.Random) -> State:
    """A full ``State`` consistent with ``obs``: the unseen cards put in a uniformly random
    order with ``rng`` and dealt into the unknown part of every other hand (in seat
    order), then the removed cards, then the deck (top first).

    Raises ``ValueError`` if the counts in ``obs`` do not add up (not an observation).
    """
    global _last_public
    need = (sum(po.hand_count - len(po.known) for i, po in enumerate(obs.players)
                if i != obs.seat) + obs.removed_count + obs.deck_count)
    if need != len(obs.unseen):
        raise ValueError(f"observation inconsistent: {len(obs.unseen)} unseen cards, "
                         f"{need} places")
    seen, public = _last_public
    if seen is not obs:
        public = _public_state(obs)
        _last_public = (obs, public)
    # Sorting by random keys is a uniform shuffle (ties have probability ~2**-53) and
    # about ten times faster than ``rng.shuffle``, whose per-card ``randbelow`` is Python.
    key = rng.random
    pool = sorted(obs.unseen, key=lambda _: key())
    s = public.copy()
    pos = 0
    for i, p in enumerate(s.players):
        if i == obs.seat:
            continue
        hidden = obs.players[i].hand_count - len(p.known)
        if hidden:
            p.hand = sorted([*p.known, *pool[pos:pos + hidden]], key=_RANK)
            pos += hidden
        else:
            p.hand = sorted(p.known, key=_RANK)
    s.removed = pool[pos:pos + obs.removed_count]
    s.deck = pool[pos + obs.removed_count:]
    s.deck_pos = 0
    return s
