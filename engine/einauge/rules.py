"""``decide`` and ``legal_actions``: the turn of RULES-einauge.md, step by step.

``play`` checks an action against the rules, then emits its events and every automatic
event after it (skipped steps, refills, ship reveals, the final round, final scoring) up
to the next choice a player must make, applying each event with ``evolve`` as it goes, so
decide and replay can never disagree. ``decide`` runs ``play`` on a copy.

Speed (bench/engine.py, bench/engine_vs_plain.py, docs/benchmarks.md): actions and events
without a per-game payload are immutable, so each distinct one is built once at import and
shared (``_SELL_CARD[seat][card]`` …); card data comes from flat tables (``cards.PRICE`` …).
The legal actions are listed by one function, ``legal_actions``, in one fixed order;
``legal_count`` and ``legal_action`` read that list (with interned actions, listing is
cheaper than a second walk that counts or picks).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

from engine.einauge import actions as ac
from engine.einauge import events as ev
from engine.einauge.cards import (
    CARDS,
    COLOR,
    COLORS,
    FIGHT_COST,
    ISLAND_CARDS,
    ISLAND_SET,
    PRICE,
    SHIPS,
    YIELDS,
)
from engine.einauge.evolve import _APPLY, PIRATE_TABLE_SIZE, ROW_LIMIT, evolve
from engine.einauge.scoring import final_scores
from engine.einauge.state import Player, State
from engine.game import IllegalAction, Message

JEWEL_PRICE = 3
CARD_PRICE = 5
MAX_SEATS = 5
"""Seats the interned messages below cover (setup allows 2 to 5 players)."""

_SEATS = range(MAX_SEATS)
_IS_ISLAND = ISLAND_SET.__contains__
_SHIP_ROWS = (*COLORS, "alone")

# Interned actions: the objects ``legal_actions`` returns (equal to freshly built ones).
_SELL_JEWEL = tuple(ac.SellJewel(i) for i in _SEATS)
_PASS = tuple(ac.Pass(i) for i in _SEATS)
_SELL_CARD = tuple({c: ac.SellCard(i, c) for c in ISLAND_CARDS} for i in _SEATS)
_PLACE = tuple({c: ac.Place(i, c) for c in CARDS} for i in _SEATS)
_BUY = tuple({c: ac.Buy(i, c) for c in ISLAND_CARDS} for i in _SEATS)
_BUY_SHIP = tuple({(c, r): ac.Buy(i, c, r) for c in SHIPS for r in _SHIP_ROWS} for i in _SEATS)
_FIGHT = tuple({c: ac.Fight(i, c) for c in ISLAND_CARDS} for i in _SEATS)
_FIGHT_SHIP = tuple({(c, r): ac.Fight(i, c, r) for c in SHIPS for r in _SHIP_ROWS}
                    for i in _SEATS)

# Interned events without a per-game payload.
_BUY_SKIPPED = tuple(ev.BuySkipped(i) for i in _SEATS)
_FIGHT_SKIPPED = tuple(ev.FightSkipped(i) for i in _SEATS)
_FIGHT_DECLINED = tuple(ev.FightDeclined(i) for i in _SEATS)
_PLACE_SKIPPED = tuple(ev.PlaceSkipped(i) for i in _SEATS)
_FINAL_ROUND_STARTED = tuple(ev.FinalRoundStarted(i) for i in _SEATS)
_JEWEL_SOLD = tuple(ev.JewelSold(i, JEWEL_PRICE) for i in _SEATS)
_CARD_SOLD = tuple({c: ev.CardSold(i, c, CARD_PRICE) for c in ISLAND_CARDS} for i in _SEATS)
_CARD_PLACED = tuple({c: ev.CardPlaced(i, c) for c in CARDS} for i in _SEATS)
_CARD_REVEALED = {c: ev.CardRevealed(c) for c in ISLAND_CARDS}
# Payout events are immutable too but have too many variants to list: they are memoized as
# they occur (a frozen dataclass costs microseconds to build; a dict lookup far less). The
# bound keeps a long-running server's share small: a few MB per memo when full.
_MEMO_LIMIT = 10_000
_BOUGHT: dict[tuple[int, str, str, int, int, int], Message] = {}
_WON: dict[tuple[int, str, str, str, int, int, int], Message] = {}
_SHIP_REVEALED = {(c, i, t): ev.ShipRevealed(c, i, t)
                  for c in SHIPS for i in _SEATS for t in (False, True)}


def payout(player: Player, row: str, joining: str) -> tuple[int, int, int]:
    """``(sabres, ducats, jewels)`` that ``row`` pays out once ``joining`` is in it: the sum
    over all its cards (RULES "A turn", step 1; ``row`` is a color or ``"alone"``).

    A lone ship pays nothing; lone ships joining a new row add nothing (no yield).
    """
    if row == "alone":
        return 0, 0, 0
    sabres, ducats, jewels = YIELDS[joining]
    cards = player.rows.get(row)
    if cards:
        for c in cards:
            y = YIELDS[c]
            sabres += y[0]
            ducats += y[1]
            jewels += y[2]
    return sabres, ducats, jewels


def _island_count(player: Player) -> int:
    return sum(map(_IS_ISLAND, chain.from_iterable(player.rows.values())))


def _can_buy_any(s: State, p: Player) -> bool:
    # RULES, buy step Decision: what selling everything could raise bounds what is buyable.
    display = s.display
    if not display:
        return False
    ducats = p.ducats
    cheapest = ducats + 1
    for c in display:
        price = PRICE[c]
        if price <= ducats:
            return True
        if price < cheapest:
            cheapest = price
    return cheapest <= ducats + JEWEL_PRICE * p.jewels + CARD_PRICE * _island_count(p)


def _fight_sources(s: State) -> list[str]:
    return s.pirate_table + s.display if s.phase == "final_round" else s.pirate_table


def _can_fight_any(s: State, p: Player) -> bool:
    sabres = p.sabres
    if sabres < 3:
        return False
    rows = p.rows
    for c in _fight_sources(s):
        if FIGHT_COST[c] <= sabres:
            color = COLOR[c]
            if color is None or len(rows.get(color, ())) < ROW_LIMIT:
                return True
    return False


def _advance(s: State, out: list[Message]) -> None:
    """Emit automatic events until a player has a choice or the game has ended.

    Each event is applied as ``evolve`` applies it (its ``_APPLY`` entry, then ``seq``),
    without the extra call: a game has about 90 automatic events.
    """
    apply = _APPLY
    players = s.players
    while True:
        step = s.step
        seat: int = s.current_seat  # type: ignore[assignment]
        phase = s.phase
        if phase == "turns":
            if step == "buy":
                if _can_buy_any(s, players[seat]):
                    return
                e: Message = _BUY_SKIPPED[seat]
            elif step == "fight":
                if _can_fight_any(s, players[seat]):
                    return
                e = _FIGHT_SKIPPED[seat]
            elif step == "place":
                if len(s.pirate_table) < PIRATE_TABLE_SIZE and s.display:
                    return
                e = _PLACE_SKIPPED[seat]
            elif step == "refill":
                card = s.deck[s.deck_pos]
                if card in ISLAND_SET:
                    e = _CARD_REVEALED[card]
                else:
                    e = _SHIP_REVEALED[card, seat, not s.end_triggered]
            else:
                e = _FINAL_ROUND_STARTED[s.final_start]
        elif phase == "final_round":
            if step is None:
                with_bonus = bool(s.options.get("color_bonus", False))
                e = ev.GameEnded(final_scores(players, with_bonus))
                evolve(s, e)
                out.append(e)
                return
            if _can_fight_any(s, players[seat]):
                return
            e = _FIGHT_SKIPPED[seat]
        else:
            return
        apply[type(e)](s, e)
        s.seq += 1
        out.append(e)


def _card(card: object) -> str:
    if not isinstance(card, str):
        raise IllegalAction("bad_action", "card must be a card id such as 'blue-5' or 'ship-1'")
    if card not in CARDS:
        raise IllegalAction("unknown_card", f"there is no card {card!r}")
    return card


def _row(p: Player, card: str, row: object) -> str:
    """The row a card joins; raises for a row the rules do not allow."""
    if row is not None and not isinstance(row, str):
        raise IllegalAction("bad_action", "row must be a color or 'alone'")
    color = COLOR[card]
    if color is not None:
        if row is not None and row != color:
            raise IllegalAction("wrong_row", f"{card} can only join the {color} row")
        if len(p.rows.get(color, ())) >= ROW_LIMIT:
            raise IllegalAction("row_full", f"your {color} row already holds {ROW_LIMIT} cards")
        return color
    if row is None:
        raise IllegalAction("row_required", f"{card} is a ship: name a row of yours or 'alone'")
    if row == "alone":
        return row
    if row not in p.rows:
        held = ", ".join(c for c in COLORS if c in p.rows) or "none"
        raise IllegalAction("no_such_row", f"you hold no {row} row (your rows: {held})")
    if len(p.rows[row]) >= ROW_LIMIT:
        raise IllegalAction("row_full", f"your {row} row already holds {ROW_LIMIT} cards")
    return row


def _need_step(s: State, step: str) -> None:
    if s.step != step:
        where = "the final round" if s.phase == "final_round" else f"the {s.step} step"
        raise IllegalAction("wrong_step", f"not allowed in {where}")


def _check_buy(s: State, p: Player, seat: int, a: ac.Buy) -> Message:
    _need_step(s, "buy")
    card = _card(a.card)
    if card not in s.display:
        raise IllegalAction("card_not_available", f"{card} is not in the display")
    price = PRICE[card]
    if price > p.ducats:
        raise IllegalAction("cannot_afford", f"{card} costs {price} ducats; you have {p.ducats}")
    row = _row(p, card, a.row)
    sabres, ducats, jewels = payout(p, row, card)
    key = (seat, card, row, sabres, ducats, jewels)
    e = _BOUGHT.get(key)
    if e is None:
        e = _BOUGHT[key] = ev.CardBought(seat, card, row, price, sabres, ducats, jewels)
        if len(_BOUGHT) > _MEMO_LIMIT:
            _BOUGHT.clear()
    return e


def _check_fight(s: State, p: Player, seat: int, a: ac.Fight) -> Message:
    _need_step(s, "fight")
    card = _card(a.card)
    if card in s.pirate_table:
        source = "pirate_table"
    elif s.phase == "final_round" and card in s.display:
        source = "display"
    else:
        where = "pirate table or the display" if s.phase == "final_round" else "pirate table"
        raise IllegalAction("card_not_available", f"{card} is not on the {where}")
    cost = FIGHT_COST[card]
    if cost > p.sabres:
        raise IllegalAction("not_enough_sabres", f"{card} costs {cost} sabres; you have {p.sabres}")
    row = _row(p, card, a.row)
    sabres, ducats, jewels = payout(p, row, card)
    key = (seat, card, row, source, sabres, ducats, jewels)
    e = _WON.get(key)
    if e is None:
        e = _WON[key] = ev.FightWon(seat, card, row, source, cost, sabres, ducats, jewels)
        if len(_WON) > _MEMO_LIMIT:
            _WON.clear()
    return e


def _check_pass(s: State, p: Player, seat: int, a: ac.Pass) -> Message:
    _need_step(s, "fight")
    return _FIGHT_DECLINED[seat]


def _check_place(s: State, p: Player, seat: int, a: ac.Place) -> Message:
    _need_step(s, "place")
    card = _card(a.card)
    if card not in s.display:
        raise IllegalAction("card_not_available", f"{card} is not in the display")
    return _CARD_PLACED[seat][card]


def _check_sell_jewel(s: State, p: Player, seat: int, a: ac.SellJewel) -> Message:
    _need_step(s, "buy")
    if p.jewels < 1:
        raise IllegalAction("no_jewels", "you have no jewel to sell")
    return _JEWEL_SOLD[seat]


def _check_sell_card(s: State, p: Player, seat: int, a: ac.SellCard) -> Message:
    _need_step(s, "buy")
    card = _card(a.card)
    color = COLOR[card]
    if color is None:
        raise IllegalAction("cannot_sell_ship", "ship cards cannot be sold")
    if card not in p.rows.get(color, ()):
        raise IllegalAction("card_not_owned", f"{card} is not in your rows")
    return _CARD_SOLD[seat][card]


_CHECKS = {
    ac.Buy: _check_buy,
    ac.Fight: _check_fight,
    ac.Pass: _check_pass,
    ac.Place: _check_place,
    ac.SellJewel: _check_sell_jewel,
    ac.SellCard: _check_sell_card,
}


def _first_event(s: State, a: Message) -> Message:
    """Check ``a`` against the rules and return the event it causes; raises IllegalAction."""
    phase = s.phase
    if phase == "ended" or phase == "setup":
        raise IllegalAction("game_over" if phase == "ended" else "not_started",
                            "the game has ended" if phase == "ended" else "no game yet")
    seat = getattr(a, "seat", None)
    if type(seat) is not int:
        raise IllegalAction("bad_action", "seat must be a whole number")
    if seat != s.current_seat:
        # People count seats from 1 (the page shows "#1"); the code is what programs read.
        raise IllegalAction("not_your_turn", f"it is player #{s.current_seat + 1}'s turn")
    check = _CHECKS.get(type(a))
    if check is None:
        raise IllegalAction("bad_action", f"not an Einauge action: {a!r}")
    return check(s, s.players[seat], seat, a)  # type: ignore[operator]


def play(s: State, action: Message) -> list[Message]:
    """Apply ``action`` to ``s`` in place; returns the events, automatic ones included.

    Raises ``IllegalAction`` before touching ``s`` when the rules forbid the action.
    """
    e = _first_event(s, action)
    _APPLY[type(e)](s, e)  # evolve(s, e), without the extra call
    s.seq += 1
    out = [e]
    _advance(s, out)
    return out


def decide(s: State, action: Message) -> list[Message]:
    """The events ``action`` causes in ``s``; ``s`` itself is not changed."""
    return play(s.copy(), action)


def start_events(s: State, started: ev.GameStarted) -> list[Message]:
    """Apply ``game_started`` to an empty state and the automatic events after it."""
    evolve(s, started)
    out: list[Message] = [started]
    _advance(s, out)
    return out


def _open_rows(p: Player) -> list[str]:
    """Where a ship may go: the player's color rows below the limit (color order), then
    ``alone``."""
    rows = p.rows
    return [r for r in COLORS if r in rows and len(rows[r]) < ROW_LIMIT] + ["alone"]


def _offers(p: Player, cards: Sequence[str], costs: dict[str, int], budget: int,
            single: dict[str, Message], ship: dict[tuple[str, str], Message]) -> list[Message]:
    """The buy or fight offers for ``cards`` with ``costs[card] <= budget``, in order: an
    island card once if its row has room, a ship once per open row and once ``alone``."""
    rows = p.rows
    found: list[Message] = []
    for c in cards:
        if costs[c] <= budget:
            color = COLOR[c]
            if color is None:
                found += [ship[c, r] for r in _open_rows(p)]
            elif color not in rows or len(rows[color]) < ROW_LIMIT:
                found.append(single[c])
    return found


def legal_actions(s: State, seat: int) -> list[Message]:
    """Exactly the actions ``decide`` accepts from ``seat`` now (empty if not its turn).

    Island cards are listed without ``row`` (they can only join their color row); ships
    once per row they can join and once ``alone``. Order: buy step: ``sell_jewel``,
    ``sell_card`` per island card in the rows (rows in the order they were started, cards
    in row order), then the buy offers of the display (see ``_offers``); fight step: the
    fight offers, then ``pass``; place step: ``place`` per display card.
    """
    if seat != s.current_seat or (s.phase != "turns" and s.phase != "final_round"):
        return []
    p = s.players[seat]
    step = s.step
    if step == "buy":
        out: list[Message] = [_SELL_JEWEL[seat]] if p.jewels else []
        sell = _SELL_CARD[seat]
        # One pass over every row's cards (rows in the order started): ships are not sold.
        out += [sell[c] for c in chain.from_iterable(p.rows.values()) if c in ISLAND_SET]
        out += _offers(p, s.display, PRICE, p.ducats, _BUY[seat], _BUY_SHIP[seat])
        return out
    if step == "fight":
        out = _offers(p, _fight_sources(s), FIGHT_COST, p.sabres, _FIGHT[seat],
                      _FIGHT_SHIP[seat])
        out.append(_PASS[seat])
        return out
    if step == "place":
        place = _PLACE[seat]
        return [place[c] for c in s.display]
    return []


def legal_count(s: State, seat: int) -> int:
    """``len(legal_actions(s, seat))``."""
    return len(legal_actions(s, seat))


def legal_action(s: State, seat: int, index: int) -> Message:
    """``legal_actions(s, seat)[index]``.

    Raises ``IndexError`` unless ``0 <= index < legal_count(s, seat)``.
    """
    if type(index) is not int or index < 0:
        raise IndexError(f"no legal action number {index!r}")
    legal = legal_actions(s, seat)
    if index >= len(legal):
        raise IndexError(f"no legal action number {index}: seat {seat} has {len(legal)}")
    return legal[index]
