"""Loot Island's greedy policy: one step ahead with the estimates of ``heuristic``.

``choose(observation_or_state, seat, rng)`` returns one legal action for ``seat``. It
reads only the seat's ``Observation`` (a ``State`` is first turned into one): the state it
plays on is ``sample(observation, rng)``, whose hidden part (other hands, deck orders,
set-aside healers, face-down events) is drawn at random and never read, so two states that
differ only in what the seat cannot see give the same action for the same ``rng`` state.
The heuristic is documented in docs/bots.md ("Loot Island"):

- *preparation*: keep the whole hand (the refill only tops it up to the hand size);
- *actions*: every legal play and islet use is scored as the change of the seat's expected
  loot from the board (``heuristic.board_value``), plus cubes shed or dealt to others
  (``heuristic.cube_cost``), cards drawn, minus the cards spent; ``pass`` scores the start
  marker's worth when it is still to be taken. The best score wins; ties go to the first
  in ``legal_actions`` order;
- *picks*: keep the card with the best gain in ``heuristic.loot_value`` net of its
  cubes, or discard (shedding cubes) when that is worth more; a discard removes the card
  the other pickers of the offer want most;
- *healers*: the cheapest for the seat's cubes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.game import Message
from engine.loot_island import actions as ac
from engine.loot_island.checks import modifier
from engine.loot_island.data import (
    ACTION,
    DISCARD_SHED,
    HEALERS,
    LANDING_INDEX,
    LOOKOUT_DRAW,
    LOOT,
    MINIMUM,
    SPRING_SHED,
    START_MARKER,
    VALUE,
)
from engine.loot_island.heuristic import (
    CUBE,
    Spot,
    board_value,
    coast_value,
    cube_cost,
    loot_value,
)
from engine.loot_island.legal import legal_actions
from engine.loot_island.observation import Observation, observation, sample
from engine.loot_island.state import State

CARD = 0.5
"""Points a map card in hand is worth in rounds 1-4 (the refill tops the hand up)."""
LAST_CARD = 0.3
"""The same in round 5, when cards left at the end score nothing."""
RIVAL = 0.4
"""Weight of another seat's cubes and cards against the seat's own (the margin)."""
DENY = 0.2
"""Weight of what a discarded card would give the next pickers (denial)."""
MARKER = 1.5
"""Taking the start marker in rounds 1-4 (first to act next round; it may be kept)."""
LAST_DISC = 1.5
"""Cost of placing the last free disc (no more landings can be joined)."""
TOP = 0.05
"""Per value of a landing's new top card: a lower top keeps the row open."""
WRECK = 1.5
"""Weight of ``islet-wreck``'s expected card: tuned in self-play (worth more than one
average card: it comes without a share for others and before anyone picks)."""


def choose(obs: Observation | State, seat: int, rng: random.Random) -> Message:
    """One action of ``legal_actions`` for ``seat`` (0-based), from ``obs``: the seat's
    ``Observation``, or a ``State`` it is taken from. Deterministic for a given ``rng``
    state (the rng draws the sample's hidden part). Raises ``ValueError`` when ``obs``
    belongs to another seat or ``seat`` has no decision pending."""
    if isinstance(obs, State):
        obs = observation(obs, seat)
    if obs.seat != seat:
        raise ValueError(f"the observation is seat {obs.seat}'s, not seat {seat}'s")
    s = sample(obs, rng)
    if s.current_seat != seat or s.phase == "ended":
        raise ValueError(f"seat {seat} has no decision pending")
    if s.phase == "preparation":
        return ac.Discard(seat, [])
    if s.phase == "healers":
        return _healer(s, seat)
    legal = legal_actions(s, seat)
    if s.offer is not None:
        return _pick(s, seat, legal)
    return _act(s, seat, legal, obs)


# --- healers and picks -----------------------------------------------------------------

def _healer(s: State, seat: int) -> Message:
    cubes = s.players[seat].cubes
    left = s.healers_left()
    best = min(left, key=lambda h: (HEALERS[h].multiplier * cubes + HEALERS[h].fixed, h))
    return ac.ChooseHealer(seat, best)


def _crosses(s: State) -> list[int]:
    return [sum(LOOT[c].crosses for c in p.loot) for p in s.players]


def _gain(s: State, seat: int, card: str, crosses: Sequence[int]) -> float:
    """What keeping ``card`` adds to ``seat``'s loot, net of its cubes."""
    p = s.players[seat]
    rivals = [x for i, x in enumerate(crosses) if i != seat]
    before = loot_value(p.loot, rivals)
    after = loot_value([*p.loot, card], rivals)
    cubes = LOOT[card].curse + modifier(s, "keep_cubes")
    return after - before - (cube_cost(p.cubes + cubes) - cube_cost(p.cubes))


def _pick(s: State, seat: int, legal: Sequence[Message]) -> Message:
    crosses = _crosses(s)
    others = [i for i in dict.fromkeys(s.offer_order) if i != seat]
    p = s.players[seat]
    amulets = sum(1 for c in p.loot if LOOT[c].kind == "amulet")
    shed = min(p.cubes, DISCARD_SHED + amulets + modifier(s, "discard_shed"))
    shed_value = cube_cost(p.cubes) - cube_cost(p.cubes - shed)
    best: tuple[float, int] | None = None
    choice: Message = legal[0]
    for i, a in enumerate(legal):
        card = a.card  # type: ignore[attr-defined]
        if isinstance(a, ac.TakeLoot):
            score = _gain(s, seat, card, crosses)
        else:
            want = max((_gain(s, o, card, crosses) for o in others), default=0.0)
            score = shed_value + DENY * max(0.0, want) - 0.01
        key = (score, -i)
        if best is None or key > best:
            best, choice = key, a
    return choice


# --- phase 2 ---------------------------------------------------------------------------

def _spots(s: State) -> list[Spot]:
    return [(x.count, x.chests, tuple(x.discs)) for x in s.landings]


class _Ctx:
    """What every candidate of one phase-2 turn is measured against."""

    def __init__(self, s: State, seat: int, obs: Observation) -> None:
        self.s, self.seat, self.obs = s, seat, obs
        self.p = s.players[seat]
        n = len(s.players)
        base = s.options.get("min_cards") or MINIMUM[n]
        self.minimum = max(1, base + modifier(s, "minimum"))
        self.final_minimum = base
        self.big = modifier(s, "big")
        self.card = LAST_CARD if s.round >= 5 else CARD
        self.spots = _spots(s)
        self.base = self.value(self.spots, s.ship)
        self.coasts = [self.coast(self.spots, k) for k in range(4)]
        self.cube_gain = cube_cost(self.p.cubes) - cube_cost(self.p.cubes - 1)
        self.free = s.discs_free(seat)
        self.memo: dict[tuple[int, int, int], float] = {}

    def value(self, spots: Sequence[Spot], ship: int) -> float:
        """The board's worth to the seat with the ship at coast index ``ship``."""
        s = self.s
        return board_value(spots, ship, s.round, self.seat, self.minimum,
                           self.final_minimum, self.big)

    def coast(self, spots: Sequence[Spot], k: int) -> float:
        s = self.s
        return coast_value(spots[2 * k], spots[2 * k + 1], k, s.ship, s.round, self.seat,
                           self.minimum, self.final_minimum, self.big)

    def delta(self, li: int, count: int, chests: int) -> float:
        """The board's worth gained when landing ``li`` gets ``count``/``chests`` and
        the seat's disc (on top, if not there yet)."""
        key = (li, count, chests)
        got = self.memo.get(key)
        if got is None:
            discs = self.spots[li][2]
            if self.seat not in discs:
                discs = (*discs, self.seat)
            spots = list(self.spots)
            spots[li] = (count, chests, discs)
            got = self.memo[key] = self.coast(spots, li // 2) - self.coasts[li // 2]
        return got

    def effects(self, discs: Sequence[int], shed: int, draw: int) -> float:
        """``shed``/``draw`` cards acting on every owner of ``discs``."""
        total = 0.0
        cubes = self.p.cubes
        for owner in discs:
            if owner == self.seat:
                for _ in range(shed):
                    if cubes > 0:
                        total += cube_cost(cubes) - cube_cost(cubes - 1)
                        cubes -= 1
                total += draw * self.card
            else:
                total -= RIVAL * (shed * CUBE + draw * self.card)
        return total


def _play_score(c: _Ctx, a: ac.Play) -> float:
    s, seat = c.s, c.seat
    li = LANDING_INDEX[a.landing]
    x = s.landings[li]
    count, chests, discs = c.spots[li]
    new_disc = seat not in discs
    if new_disc:
        discs = (*discs, seat)
    cards = a.cards
    actions = [ACTION[k] for k in cards]
    count += len(cards) + actions.count("plus1")
    chests += actions.count("chest")
    score = c.delta(li, count, chests) - c.card * len(cards)
    if new_disc:
        score -= LAST_DISC if c.free == 1 else 0.3
    under = bool(x.cards) and len(cards) == 1 and VALUE[cards[0]] == 1
    if under:
        if a.copy == "shed" and c.p.cubes:
            score += c.cube_gain
        elif a.copy == "draw":
            score += c.card
        return score
    if VALUE[cards[0]] == 1:
        score += RIVAL * CUBE * (len(s.players) - 1)
    shed, draw = actions.count("shed"), actions.count("draw")
    if shed or draw:
        score += c.effects(discs, shed, draw)
    last = cards[-1]
    top = a.values[last] if a.values and last in a.values else VALUE[last]
    return score - TOP * top


def _wreck_value(c: _Ctx) -> float:
    """The expected gain of the loot deck's top card: the top deck (I-IV) still holding
    cards is known, the card within it is not."""
    deck = next((d for d in c.obs.unseen_loot if d), ())
    if not deck:
        return 0.0
    crosses = _crosses(c.s)
    return WRECK * sum(_gain(c.s, c.seat, card, crosses) for card in deck) / len(deck)


def _islet_score(c: _Ctx, a: ac.Islet) -> float:
    s, seat = c.s, c.seat
    if a.skip:
        return float("-inf")
    kind = a.islet
    if kind == "islet-spring":
        cubes = c.p.cubes
        return cube_cost(cubes) - cube_cost(max(0, cubes - SPRING_SHED))
    if kind == "islet-lookout":
        return LOOKOUT_DRAW * c.card
    if kind == "islet-winds":
        return c.value(c.spots, (s.ship + 1) % 4) - c.base
    if kind == "islet-wreck":
        return _wreck_value(c)
    spots = list(c.spots)
    if kind == "islet-shortcut":
        li = LANDING_INDEX[a.landing]  # type: ignore[index]
        n, k, d = spots[li]
        spots[li] = (n, k, (seat, *(o for o in d if o != seat)))
    elif kind == "islet-camp":
        li = LANDING_INDEX[a.landing]  # type: ignore[index]
        n, k, d = spots[li]
        spots[li] = (n, k, (*d, seat))
        if c.free == 1:
            return c.value(spots, s.ship) - c.base - LAST_DISC
    else:
        src, dst = LANDING_INDEX[a.from_], LANDING_INDEX[a.to]  # type: ignore[index]
        n, k, d = spots[src]
        spots[src] = (n, k, tuple(o for o in d if o != seat))
        n, k, d = spots[dst]
        spots[dst] = (n, k, (*d, seat))
    return c.value(spots, s.ship) - c.base


def _payment(c: _Ctx, cards: Sequence[str]) -> float:
    """What paying ``cards`` for an islet gives up: the cards, a joker or a chest a bit
    more (they make loot)."""
    return sum(c.card + (0.3 if VALUE[k] == 0 else 0.15 if ACTION[k] == "chest" else 0.0)
               for k in cards)


def _act(s: State, seat: int, legal: Sequence[Message], obs: Observation) -> Message:
    c = _Ctx(s, seat, obs)
    islet_scores: dict[tuple[object, ...], float] = {}
    best_key: tuple[float, int] | None = None
    choice: Message = legal[-1]
    for i, a in enumerate(legal):
        if isinstance(a, ac.Play):
            score = _play_score(c, a)
        elif isinstance(a, ac.Islet):
            key = (a.islet, a.skip, a.landing, a.from_, a.to)
            base = islet_scores.get(key)
            if base is None:
                base = islet_scores[key] = _islet_score(c, a)
            score = base - _payment(c, a.cards)
        else:
            score = 0.0
            if not s.first_passed:
                score += START_MARKER if s.round >= 5 else MARKER
        key2 = (score, -i)
        if best_key is None or key2 > best_key:
            best_key, choice = key2, a
    return choice
