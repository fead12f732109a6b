"""``decide`` and ``legal_actions``: a Keltis turn, step by step (RULES-keltis.md).

``play`` checks an action against the rules, then emits its event and every automatic
event after it (the block deal, skipped draws, the end trigger, the start and the end of
final turns, final scoring) up to the next choice a player must make, applying each event
with ``evolve`` as it goes, so decide and replay can never disagree. ``decide`` runs
``play`` on a copy.

Speed: every action and every event without a per-game payload is built once at import
and shared (``_LAY[seat][card, row]`` …); card data comes from the flat tables of
``cards``; hands are kept in canonical order, so listing the legal actions is one pass
over at most 8 cards.
"""

from __future__ import annotations

from engine.game import IllegalAction, Message
from engine.keltis import actions as ac
from engine.keltis import events as ev
from engine.keltis.cards import (
    CANONICAL,
    COLOR,
    COLORS,
    DECK,
    END,
    HAND_SIZE,
    INFO,
    KIND,
    NUMBER,
    PILE,
    PILES,
    POINT,
    POINT_CARD,
    RANK,
    REMOVED_TWO_PLAYERS,
    ROWS,
    SOURCES,
    STONE_ID,
    STONE_VALUES,
    VALUE,
)
from engine.keltis.evolve import evolve
from engine.keltis.scoring import final_scores
from engine.keltis.state import Player, State

MAX_SEATS = 4
CLOSED_ROWS_TO_END = 5
"""Closed color rows, over all players, that trigger the end (RULES "End of the game" b)."""
FINAL_LAYS = 2
"""Cards a player may lay in the final turn (RULES "Final plays")."""

_SEATS = range(MAX_SEATS)


def _lay_targets(card: str) -> tuple[str, ...]:
    kind = KIND[card]
    if kind == POINT_CARD:
        return (POINT, *COLORS)
    return (COLOR[card],)  # type: ignore[return-value]


def _stone_pairs() -> list[tuple[str, str]]:
    by_value: dict[int, list[str]] = {}
    for c in CANONICAL:
        v = VALUE[c]
        if v in STONE_VALUES:
            by_value.setdefault(v, []).append(c)  # type: ignore[arg-type]
    return [(a, b) for cards in by_value.values() for a in cards for b in cards if a != b]


_PAIRS = _stone_pairs()

# Interned actions: the objects ``legal_actions`` returns (equal to freshly built ones).
_LAY = tuple({(c, r): ac.Lay(i, c, r) for c in CANONICAL for r in _lay_targets(c)}
             for i in _SEATS)
_DISCARD = tuple({c: ac.Discard(i, c) for c in CANONICAL} for i in _SEATS)
_STONE = tuple({pair: ac.Stone(i, pair) for pair in _PAIRS} for i in _SEATS)
_DRAW = tuple({src: ac.Draw(i, src) for src in SOURCES} for i in _SEATS)
_FINISH = tuple(ac.Finish(i) for i in _SEATS)

# Interned events.
_CARD_LAID = tuple({k: ev.CardLaid(i, *k) for k in _LAY[0]} for i in _SEATS)
_CARD_DISCARDED = tuple({c: ev.CardDiscarded(i, c, PILE[c]) for c in CANONICAL} for i in _SEATS)
_STONE_TAKEN = tuple({pair: ev.StoneTaken(i, pair, STONE_ID[VALUE[pair[0]]])  # type: ignore[index]
                      for pair in _PAIRS} for i in _SEATS)
_CARD_DRAWN = tuple({src: {c: ev.CardDrawn(i, src, c) for c in CANONICAL} for src in SOURCES}
                    for i in _SEATS)
_DRAWS_SKIPPED = tuple({n: ev.DrawsSkipped(i, n) for n in (1, 2)} for i in _SEATS)
_END_TRIGGERED = tuple({r: ev.EndTriggered(i, r) for r in ("deck_empty", "rows_closed")}
                       for i in _SEATS)
_FINAL_TURNS_STARTED = tuple(ev.FinalTurnsStarted(i) for i in _SEATS)
_FINAL_TURN_ENDED = tuple(ev.FinalTurnEnded(i) for i in _SEATS)


# --- what the rules allow ----------------------------------------------------------------

def _lays(p: Player, lay: dict[tuple[str, str], Message], out: list[Message]) -> None:
    """Append every legal lay of ``p`` (hand in canonical order; a point card: the point
    row first, then each matching color row in color order)."""
    rows, last, dirs = p.rows, p.last, p.dirs
    for c in p.hand:
        kind, color, v = INFO[c]
        if kind == NUMBER:
            if color in rows:
                lv = last.get(color)  # type: ignore[arg-type]
                if lv is None:
                    continue  # closed
                d = dirs[color]  # type: ignore[index]
                if d and ((v < lv) if d > 0 else (v > lv)):  # type: ignore[operator]
                    continue
            out.append(lay[c, color])  # type: ignore[index]
        elif kind == END:
            if color in rows:
                out.append(lay[c, color])  # type: ignore[index]
        else:
            out.append(lay[c, POINT])
            if last:
                for color in COLORS:  # color order, not the order rows were started
                    if last.get(color) == v:
                        out.append(lay[c, color])


def has_lay(p: Player) -> bool:
    """True if ``p`` can lay at least one card (a point card always can: the point row)."""
    rows, last, dirs = p.rows, p.last, p.dirs
    for c in p.hand:
        kind, color, v = INFO[c]
        if kind == POINT_CARD:
            return True
        if kind == END:
            if color in rows:
                return True
        elif color not in rows:
            return True
        else:
            lv = last.get(color)  # type: ignore[arg-type]
            if lv is not None:
                d = dirs[color]  # type: ignore[index]
                if d == 0 or ((v >= lv) if d > 0 else (v <= lv)):  # type: ignore[operator]
                    return True
    return False


def _open_source(s: State) -> bool:
    """True if some draw source is open: the deck, or a non-empty unblocked pile."""
    if s.deck_pos < len(s.deck):
        return True
    blocked = s.blocked
    return any(cards and pile not in blocked for pile, cards in s.discards.items())


def _advance(s: State, out: list[Message]) -> None:
    """Emit automatic events until a player has a choice or the game has ended."""
    while True:
        phase = s.phase
        step = s.step
        seat: int = s.current_seat  # type: ignore[assignment]
        if phase == "turns":
            if step == "deal":
                pos = s.deck_pos
                if len(s.players) == 2 and pos == 0:
                    e: Message = ev.CardsRemoved(s.deck[:REMOVED_TWO_PLAYERS])
                else:
                    e = ev.HandDealt(s.dealt, s.deck[pos:pos + HAND_SIZE])
            elif not s.end_triggered and (s.closed_rows >= CLOSED_ROWS_TO_END
                                          or s.deck_pos >= len(s.deck)):
                e = _END_TRIGGERED[seat]["rows_closed" if s.closed_rows >= CLOSED_ROWS_TO_END
                                         else "deck_empty"]
            elif step == "play":
                return
            elif step == "draw":
                if _open_source(s):
                    return
                e = _DRAWS_SKIPPED[seat][s.draws_left]
            else:  # the triggering turn is over
                e = _FINAL_TURNS_STARTED[(s.trigger_seat + 1) % len(s.players)]  # type: ignore[operator]
        elif phase == "final_turns":
            if step == "final":
                if s.final_lays < FINAL_LAYS and has_lay(s.players[seat]):
                    return
                e = _FINAL_TURN_ENDED[seat]
            else:
                e = ev.GameEnded(final_scores(s.players), [list(p.hand) for p in s.players])
                evolve(s, e)
                out.append(e)
                return
        else:
            return
        evolve(s, e)
        out.append(e)


# --- checking one action -----------------------------------------------------------------

_STEP_NAMES = {"play": "the play step", "draw": "the draw step", "final": "a final turn"}


def _wrong_step(s: State) -> IllegalAction:
    return IllegalAction("wrong_step", f"not allowed in {_STEP_NAMES.get(s.step, 'this step')}")  # type: ignore[arg-type]


def _hand_card(p: Player, card: object) -> str:
    if type(card) is not str:
        raise IllegalAction("bad_action", "card must be a card id such as 'green-5a' or 'point-3'")
    if card not in RANK:
        raise IllegalAction("unknown_card", f"there is no card {card!r}")
    if card not in p.hand:
        raise IllegalAction("card_not_in_hand", f"{card} is not in your hand")
    return card


def lay_problem(p: Player, card: str, row: str) -> IllegalAction | None:
    """Why ``p`` may not lay ``card`` (a deck card) on ``row`` (a row name), or ``None``.

    RULES "Laying on a color row", "End cards", "Laying on the point row".
    """
    kind = KIND[card]
    if row == POINT:
        if kind != POINT_CARD:
            return IllegalAction("not_a_point_card", "only point cards go on the point row")
        return None
    if kind == POINT_CARD:
        if row not in p.rows:
            return IllegalAction("no_row", f"a point card cannot start a row: you have no "
                                           f"{row} row")
        lv = p.last.get(row)
        if lv is None:
            return IllegalAction("row_closed", f"your {row} row is closed")
        if lv != VALUE[card]:
            return IllegalAction("value_mismatch", f"{card} needs a {row} row ending in "
                                                   f"{VALUE[card]}; yours ends in {lv}")
        return None
    if COLOR[card] != row:
        return IllegalAction("wrong_color", f"{card} can only go on the {COLOR[card]} row")
    if kind == END:
        if row not in p.rows:
            return IllegalAction("no_row", f"an end card closes a row: you have no {row} row")
        return None
    if row in p.rows:
        lv = p.last.get(row)
        if lv is None:
            return IllegalAction("row_closed", f"your {row} row is closed: only its second "
                                               "end card may still be laid")
        d = p.dirs[row]
        v: int = VALUE[card]  # type: ignore[assignment]
        if d > 0 and v < lv:
            return IllegalAction("out_of_order", f"your {row} row is rising: lay {lv} or more")
        if d < 0 and v > lv:
            return IllegalAction("out_of_order", f"your {row} row is falling: lay {lv} or less")
    return None


def _check_lay(s: State, p: Player, seat: int, a: ac.Lay) -> Message:
    step = s.step
    if step != "play" and step != "final":
        raise _wrong_step(s)
    card = _hand_card(p, a.card)
    row = a.row
    if type(row) is not str:
        raise IllegalAction("bad_action", "row must be a color or 'point'")
    if row not in ROWS:
        raise IllegalAction("unknown_row", f"no row {row!r}: one of {', '.join(ROWS)}")
    problem = lay_problem(p, card, row)
    if problem is not None:
        raise problem
    return _CARD_LAID[seat][card, row]


def _check_discard(s: State, p: Player, seat: int, a: ac.Discard) -> Message:
    if s.step == "final":
        raise IllegalAction("wrong_step", "no discarding in a final turn: only lays")
    if s.step != "play":
        raise _wrong_step(s)
    return _CARD_DISCARDED[seat][_hand_card(p, a.card)]


def _check_stone(s: State, p: Player, seat: int, a: ac.Stone) -> Message:
    if s.step == "final":
        raise IllegalAction("wrong_step", "no stone can be taken in the final turns")
    if s.step != "play":
        raise _wrong_step(s)
    cards = a.cards
    if not isinstance(cards, tuple | list) or len(cards) != 2:
        raise IllegalAction("bad_action", "cards must list two card ids")
    first, second = (_hand_card(p, c) for c in cards)
    if first == second:
        raise IllegalAction("same_card", f"two different cards are needed, not {first} twice")
    v1, v2 = VALUE[first], VALUE[second]
    if v1 is None or v2 is None:
        raise IllegalAction("no_value", "end cards have no value: they cannot take a stone")
    if v1 != v2:
        raise IllegalAction("values_differ", f"{first} is a {v1}, {second} a {v2}")
    if v1 not in STONE_VALUES:
        raise IllegalAction("no_stone", f"there is no stone {v1}: stones are 1 to 9")
    if v1 not in s.stones:
        raise IllegalAction("stone_gone", f"stone-{v1} has already been taken")
    return _STONE_TAKEN[seat][first, second]


def _check_draw(s: State, p: Player, seat: int, a: ac.Draw) -> Message:
    if s.step != "draw":
        raise _wrong_step(s)
    source = a.source
    if type(source) is not str:
        raise IllegalAction("bad_action", "from must be 'deck', a color or 'point'")
    if source == DECK:
        if s.deck_pos >= len(s.deck):
            raise IllegalAction("deck_empty", "the deck is used up: draw from a discard pile")
        return _CARD_DRAWN[seat][DECK][s.deck[s.deck_pos]]
    if source not in PILES:
        raise IllegalAction("unknown_source", f"no source {source!r}: 'deck' or one of "
                                              f"{', '.join(PILES)}")
    pile = s.discards[source]
    if not pile:
        raise IllegalAction("pile_empty", f"the {source} discard pile is empty")
    if source in s.blocked:
        raise IllegalAction("pile_blocked", f"you discarded onto the {source} pile this turn: "
                                            "its card cannot be drawn back")
    return _CARD_DRAWN[seat][source][pile[-1]]


def _check_finish(s: State, p: Player, seat: int, a: ac.Finish) -> Message:
    if s.step != "final":
        raise _wrong_step(s)
    return _FINAL_TURN_ENDED[seat]


_CHECKS = {
    ac.Lay: _check_lay,
    ac.Discard: _check_discard,
    ac.Stone: _check_stone,
    ac.Draw: _check_draw,
    ac.Finish: _check_finish,
}


def _first_event(s: State, a: Message) -> Message:
    """Check ``a`` against the rules and return the event it causes; raises IllegalAction.

    Order of checks: game state → seat type → turn → step → card → row/source → rule.
    """
    phase = s.phase
    if phase == "ended" or phase == "setup":
        raise IllegalAction("game_over" if phase == "ended" else "not_started",
                            "the game has ended" if phase == "ended" else "no game yet")
    seat = getattr(a, "seat", None)
    if type(seat) is not int:
        raise IllegalAction("bad_action", "seat must be a whole number")
    if seat != s.current_seat:
        # Players count seats from 1 (as Einauge words it): seat 0 is player #1.
        raise IllegalAction("not_your_turn", f"it is player #{s.current_seat + 1}'s turn")
    check = _CHECKS.get(type(a))
    if check is None:
        raise IllegalAction("bad_action", f"not a Keltis action: {a!r}")
    return check(s, s.players[seat], seat, a)  # type: ignore[operator]


def play(s: State, action: Message) -> list[Message]:
    """Apply ``action`` to ``s`` in place; returns the events, automatic ones included.

    Raises ``IllegalAction`` before touching ``s`` when the rules forbid the action.
    """
    e = _first_event(s, action)
    evolve(s, e)
    out = [e]
    _advance(s, out)
    return out


def decide(s: State, action: Message) -> list[Message]:
    """The events ``action`` causes in ``s``; ``s`` itself is not changed."""
    return play(s.copy(), action)


def start_events(s: State, started: ev.GameStarted) -> list[Message]:
    """Apply ``game_started`` to an empty state, then the deal (``cards_removed`` with 2
    players, one ``hand_dealt`` per seat in seat order)."""
    evolve(s, started)
    out: list[Message] = [started]
    _advance(s, out)
    return out


def legal_actions(s: State, seat: int) -> list[Message]:
    """Exactly the actions ``decide`` accepts from ``seat`` now (empty if not its turn).

    Order: play step: lays (hand in canonical order; see ``_lays``), then a discard per
    card, then stones (every ordered pair of equal-valued cards whose stone is left; both
    orders, since the order decides which card ends up on top of a shared pile); draw
    step: ``deck``, then the open piles in pile order; final turn: lays, then ``finish``.
    """
    if seat != s.current_seat:
        return []
    step = s.step
    p = s.players[seat]
    out: list[Message] = []
    if step == "play":
        _lays(p, _LAY[seat], out)
        discard = _DISCARD[seat]
        hand = p.hand
        out.extend([discard[c] for c in hand])
        stones = s.stones
        if stones:
            first: dict[int, str] = {}
            pairs: dict[int, list[str]] | None = None
            for c in hand:
                v = VALUE[c]
                if v in stones:
                    if v in first:
                        if pairs is None:
                            pairs = {}
                        if v in pairs:
                            pairs[v].append(c)
                        else:
                            pairs[v] = [first[v], c]
                    else:
                        first[v] = c  # type: ignore[index]
            if pairs:
                stone = _STONE[seat]
                for cards in pairs.values():
                    out.extend([stone[a, b] for a in cards for b in cards if a is not b])
    elif step == "draw":
        draw = _DRAW[seat]
        if s.deck_pos < len(s.deck):
            out.append(draw[DECK])
        blocked = s.blocked
        for pile, cards in s.discards.items():
            if cards and pile not in blocked:
                out.append(draw[pile])
    elif step == "final":
        _lays(p, _LAY[seat], out)
        out.append(_FINISH[seat])
    return out
