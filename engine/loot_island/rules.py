"""``decide`` and every automatic step of RULES-loot-island.md, as events.

``play`` checks an action (``checks``), emits its events and then every automatic event
after it (start-of-phase-2 effects, forced passes, refills, draws and reshuffles, the
explored coast, loot offers, cleanup, the next round, the final exploration, elimination,
the healer step, scoring) up to the next decision, applying each event with ``evolve`` as
it goes, so that decide and replay never disagree. ``decide`` runs ``play`` on a copy.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.game import IllegalAction, Message
from engine.loot_island import actions as ac
from engine.loot_island import checks
from engine.loot_island import events as ev
from engine.loot_island.checks import modifier
from engine.loot_island.data import (
    ACTION,
    COASTS,
    DISCARD_SHED,
    ELIMINATION_CUBES,
    HAND_SIZE,
    HEALER_IDS,
    LANDINGS,
    LOOKOUT_DRAW,
    LOOT,
    MAP_INDEX,
    MINIMUM,
    SPRING_SHED,
    VALUE,
)
from engine.loot_island.evolve import evolve
from engine.loot_island.scoring import final_result
from engine.loot_island.setup import reshuffled
from engine.loot_island.state import State

ROUNDS = 5


def minimum(s: State, with_event: bool = True) -> int:
    """The minimum count M now: setup value or ``min_cards``, plus the event in force
    (``with_event``), at least 1 (RULES phase 3, step 2)."""
    base = s.options.get("min_cards") or MINIMUM[len(s.players)]
    if with_event:
        base += modifier(s, "minimum")
    return max(1, base)


def _emit(s: State, out: list[Message], e: Message) -> None:
    out.append(e)
    evolve(s, e)


def _shed(s: State, out: list[Message], seat: int, n: int, cause: str) -> None:
    k = min(n, s.players[seat].cubes)
    if k > 0:
        _emit(s, out, ev.CubesShed(seat, k, cause))


def _take(s: State, out: list[Message], seat: int, n: int, cause: str) -> None:
    if n > 0:
        _emit(s, out, ev.CubesTaken(seat, n, cause))


def _draw(s: State, out: list[Message], seat: int, cause: str) -> bool:
    """Draw one map card, reshuffling first if the map deck is empty (RULES "Map deck");
    False when both are empty (the draw is lost). Raises ``IllegalAction``
    (``reshuffle_unknown``, ``bad_reshuffle``) when a seedless record cannot reshuffle."""
    if not s.map_deck:
        if not s.map_discard:
            return False
        r = s.reshuffles + 1
        given = s.reshuffle_orders
        if given is not None and len(given) >= r:
            order = list(given[r - 1])
            if sorted(order) != sorted(s.map_discard):
                raise IllegalAction("bad_reshuffle", f"orders.map_reshuffles[{r - 1}] must "
                                    "hold exactly the cards of the map discard pile")
        elif s.seed is not None:
            order = reshuffled(s.seed, r, s.map_discard)
        else:
            raise IllegalAction("reshuffle_unknown", f"reshuffle {r} needs a seed or "
                                f"orders.map_reshuffles[{r - 1}]")
        _emit(s, out, ev.MapDeckReshuffled(r, order))
    _emit(s, out, ev.MapCardDrawn(seat, s.map_deck[-1], cause))
    return True


def _refill(s: State, out: list[Message], seat: int) -> None:
    size = modifier(s, "refill", HAND_SIZE)
    hand = s.players[seat].hand
    while len(hand) < size and _draw(s, out, seat, "refill"):
        pass


def _clockwise(s: State, first: int) -> list[int]:
    n = len(s.players)
    return [(first + k) % n for k in range(n)]


# --- actions ---------------------------------------------------------------------------

def _discard(s: State, a: ac.Discard, out: list[Message]) -> None:
    seat, cards = checks.check_discard(s, a)
    _emit(s, out, ev.MapCardsDiscarded(seat, list(cards)))
    _refill(s, out, seat)


def _play(s: State, a: ac.Play, out: list[Message]) -> None:
    plan = checks.check_play(s, a)
    seat, li = plan.seat, plan.landing
    _emit(s, out, ev.MapCardsPlayed(seat, LANDINGS[li], list(plan.cards), dict(plan.values),
                                    plan.disc_placed, plan.under, plan.copy))
    if plan.under:
        if plan.copy == "shed":
            _shed(s, out, seat, 1, "copy")
        elif plan.copy == "draw":
            _draw(s, out, seat, "copy")
        return
    if VALUE[plan.cards[0]] == 1:
        for other in _clockwise(s, seat)[1:]:
            _take(s, out, other, 1, "one")
    for c in plan.cards:
        action = ACTION[c]
        if action in ("shed", "draw"):
            for holder in list(s.landings[li].discs):
                if action == "shed":
                    _shed(s, out, holder, 1, "shed")
                else:
                    _draw(s, out, holder, "draw")


def _islet(s: State, a: ac.Islet, out: list[Message]) -> None:
    plan = checks.check_islet(s, a)
    seat = plan.seat
    _emit(s, out, ev.IsletUsed(seat, plan.islet, list(plan.cards), plan.skip, plan.landing,
                               plan.from_, plan.to))
    if plan.skip:
        return
    if plan.islet == "islet-spring":
        _shed(s, out, seat, SPRING_SHED, "islet")
    elif plan.islet == "islet-lookout":
        for _ in range(LOOKOUT_DRAW):
            _draw(s, out, seat, "islet")
    elif plan.islet == "islet-winds":
        _emit(s, out, ev.ShipMoved(seat, COASTS[(s.ship + 1) % 4]))
    elif plan.islet == "islet-wreck" and s.loot_deck:
        card = s.loot_deck[-1]
        _emit(s, out, ev.LootTaken(seat, card, LOOT[card].curse + modifier(s, "keep_cubes"),
                                   True))


def _pass(s: State, a: ac.Pass, out: list[Message]) -> None:
    seat = checks.check_turn(s, a)
    _emit(s, out, ev.Passed(seat, False, not s.first_passed))


def _take_loot(s: State, a: ac.TakeLoot, out: list[Message]) -> None:
    seat, card = checks.check_pick(s, a)
    _emit(s, out, ev.LootTaken(seat, card, LOOT[card].curse + modifier(s, "keep_cubes"),
                               False))


def _discard_loot(s: State, a: ac.DiscardLoot, out: list[Message]) -> None:
    seat, card = checks.check_pick(s, a)
    p = s.players[seat]
    amulets = sum(1 for c in p.loot if LOOT[c].kind == "amulet")
    n = DISCARD_SHED + amulets + modifier(s, "discard_shed")
    _emit(s, out, ev.LootDiscarded(seat, card, min(n, p.cubes)))


def _choose_healer(s: State, a: ac.ChooseHealer, out: list[Message]) -> None:
    seat, healer = checks.check_healer(s, a)
    _emit(s, out, ev.HealerChosen(seat, healer, False))


_ACTIONS: dict[type, Callable[[State, Message, list[Message]], None]] = {  # type: ignore[dict-item]
    ac.Discard: _discard, ac.Play: _play, ac.Islet: _islet, ac.Pass: _pass,
    ac.TakeLoot: _take_loot, ac.DiscardLoot: _discard_loot, ac.ChooseHealer: _choose_healer,
}


# --- automatic steps -------------------------------------------------------------------

def _begin_actions(s: State, out: list[Message]) -> None:
    _emit(s, out, ev.ActionsStarted(s.round, s.start_seat))
    draw, shed, take = (modifier(s, k) for k in ("start_draw", "start_shed", "start_take"))
    if draw or shed or take:
        for seat in _clockwise(s, s.start_seat):
            for _ in range(draw):
                _draw(s, out, seat, "event")
            _shed(s, out, seat, shed, "event")
            _take(s, out, seat, take, "event")


def _explore(s: State, out: list[Message]) -> None:
    k = s.ship
    m = minimum(s)
    found = []
    for li in (2 * k, 2 * k + 1):
        x = s.landings[li]
        if x.discs and x.count >= m:
            # Sort key: count, then chests, then discs, then the -1 landing (RULES step 4).
            found.append(((x.count, x.chests, len(x.discs), -li), li))
    found.sort(reverse=True)
    offers = []
    for rank, (_, li) in enumerate(found):
        x = s.landings[li]
        if rank == 0:
            number = max(1, len(x.discs) + x.chests + modifier(s, "big"))
            offers.append({"landing": LANDINGS[li], "size": "big", "number": number})
        else:
            offers.append({"landing": LANDINGS[li], "size": "small", "number": x.chests})
    _emit(s, out, ev.CoastExplored(s.round, COASTS[k], offers))


def _offer(s: State, out: list[Message]) -> None:
    landing, size, number = s.pending[0]
    deck = s.loot_deck
    cards = [deck[-1 - i] for i in range(min(number, len(deck)))]
    order = list(s.landings[LANDINGS.index(landing)].discs)
    _emit(s, out, ev.LootOffered(landing, size, cards, order))


def _cleanup(s: State, out: list[Message]) -> None:
    k = s.ship
    cards = s.landings[2 * k].cards + s.landings[2 * k + 1].cards
    _emit(s, out, ev.CoastCleared(COASTS[k], cards))


def _next_round(s: State, out: list[Message]) -> None:
    r = s.round + 1
    _emit(s, out, ev.RoundStarted(r, COASTS[(s.ship + 1) % 4]))
    if s.events:
        _emit(s, out, ev.EventRevealed(r, s.events[r - 1]))


def _final_exploration(s: State, out: list[Message]) -> None:
    m = minimum(s, with_event=False)
    first = 2 * ((s.ship + 1) % 4)
    offers = []
    for i in range(8):
        li = (first + i) % 8
        x = s.landings[li]
        if x.discs and x.count >= m:
            offers.append({"landing": LANDINGS[li], "size": "small", "number": x.chests})
    _emit(s, out, ev.FinalExplorationStarted(offers))


def _healer_step(s: State, out: list[Message]) -> None:
    for seat, p in enumerate(s.players):
        if p.cubes >= ELIMINATION_CUBES:
            _emit(s, out, ev.PlayerEliminated(seat, "curses", p.cubes))
    n = len(s.players)
    choosers = [i for i, p in enumerate(s.players) if p.eliminated is None and p.cubes >= 1]
    choosers.sort(key=lambda i: (s.players[i].cubes, (i - s.start_seat) % n))
    healers = sorted(s.aside, key=HEALER_IDS.index)
    _emit(s, out, ev.HealersRevealed(healers, choosers))


def _score(s: State, out: list[Message]) -> None:
    ps = s.players
    result = final_result([p.loot for p in ps], [p.cubes for p in ps],
                          [p.healer for p in ps], [p.eliminated == "curses" for p in ps],
                          s.start_seat)
    for entry in result["scores"]:
        if entry["eliminated"] == "cannot_pay":
            _emit(s, out, ev.PlayerEliminated(entry["seat"], "cannot_pay", entry["cubes"]))
    hands = [sorted(p.hand, key=MAP_INDEX.__getitem__) for p in ps]
    _emit(s, out, ev.GameEnded(result, hands))


def advance(s: State, out: list[Message]) -> None:
    """Emit automatic events until a player has a decision or the game has ended."""
    while True:
        phase, step = s.phase, s.step
        if phase == "actions":
            if step == "begin":
                _begin_actions(s, out)
                continue
            seat: int = s.current_seat  # type: ignore[assignment]
            if checks.can_act(s, seat):
                return
            _emit(s, out, ev.Passed(seat, True, not s.first_passed))
        elif phase == "preparation":
            seat = s.current_seat  # type: ignore[assignment]
            if s.players[seat].hand:
                return
            _emit(s, out, ev.DiscardSkipped(seat))
            _refill(s, out, seat)
        elif phase in ("loot", "final_exploration"):
            if step == "begin":
                _explore(s, out)
            elif s.offer is not None:
                return
            elif s.pending:
                _offer(s, out)
            elif phase == "final_exploration":
                _healer_step(s, out)
            elif step == "pick":
                _cleanup(s, out)
            elif s.round < ROUNDS:
                _next_round(s, out)
            else:
                _final_exploration(s, out)
        elif phase == "healers":
            if s.current_seat is None:
                _score(s, out)
                return
            left = s.healers_left()
            if len(left) > 1:
                return
            _emit(s, out, ev.HealerChosen(s.current_seat, left[0], True))
        else:
            return


def start_events(s: State, started: ev.GameStarted) -> list[Message]:
    """``game_started`` applied to the empty ``s`` and every automatic event after it."""
    out: list[Message] = []
    _emit(s, out, started)
    advance(s, out)
    return out


def play(s: State, action: Message) -> list[Message]:
    """Check ``action``, then apply its events and the automatic ones after it to ``s``.

    Raises ``IllegalAction`` before changing ``s``, except ``reshuffle_unknown`` and
    ``bad_reshuffle`` (a seedless record that cannot reshuffle), which may leave ``s``
    half-updated: use ``decide`` where the state must survive an error.
    """
    handler = _ACTIONS.get(type(action))
    if handler is None:
        raise IllegalAction("bad_message", f"not a Loot Island action: {action!r}")
    out: list[Message] = []
    handler(s, action, out)
    advance(s, out)
    return out


def decide(s: State, action: Message) -> list[Message]:
    """The events ``action`` causes up to the next decision; ``s`` is unchanged.
    Raises ``IllegalAction`` (codes in ``checks``; ``bad_message`` for a foreign action)."""
    return play(s.copy(), action)
