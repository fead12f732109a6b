"""``decide`` and ``legal_actions``: the turn of RULES-einauge.md, step by step.

``play`` checks an action against the rules, then emits its events and every automatic
event after it (skipped steps, refills, ship reveals, the final round, final scoring) up
to the next choice a player must make, applying each event with ``evolve`` as it goes, so
decide and replay can never disagree. ``decide`` runs ``play`` on a copy.
"""

from __future__ import annotations

from engine.einauge import actions as ac
from engine.einauge import events as ev
from engine.einauge.cards import CARDS, COLORS
from engine.einauge.evolve import PIRATE_TABLE_SIZE, ROW_LIMIT, evolve
from engine.einauge.scoring import final_scores
from engine.einauge.state import Player, State
from engine.game import IllegalAction, Message

JEWEL_PRICE = 3
CARD_PRICE = 5


def _payout(player: Player, row: str, joining: str) -> tuple[int, int, int]:
    """What ``row`` pays out once ``joining`` is in it: the sum over all its cards.

    A lone ship pays nothing; lone ships joining a new row add nothing (no yield).
    """
    if row == "alone":
        return 0, 0, 0
    sabres = ducats = jewels = 0
    for c in (*player.rows.get(row, ()), joining):
        card = CARDS[c]
        sabres += card.sabres
        ducats += card.ducats
        jewels += card.jewels
    return sabres, ducats, jewels


def _island_count(player: Player) -> int:
    return sum(1 for row in player.rows.values() for c in row if CARDS[c].color)


def _can_buy_any(s: State, p: Player) -> bool:
    # RULES, buy step Decision: what selling everything could raise bounds what is buyable.
    if not s.display:
        return False
    cheapest = min(CARDS[c].price for c in s.display)
    if cheapest <= p.ducats:
        return True
    return cheapest <= p.ducats + JEWEL_PRICE * p.jewels + CARD_PRICE * _island_count(p)


def _can_take(p: Player, card: str) -> bool:
    color = CARDS[card].color
    return color is None or len(p.rows.get(color, ())) < ROW_LIMIT


def _fight_sources(s: State) -> list[str]:
    return s.pirate_table + s.display if s.phase == "final_round" else s.pirate_table


def _can_fight_any(s: State, p: Player) -> bool:
    sabres = p.sabres
    if sabres < 3:
        return False
    return any(CARDS[c].fight_cost <= sabres and _can_take(p, c) for c in _fight_sources(s))


def _emit(s: State, out: list[Message], event: Message) -> None:
    evolve(s, event)
    out.append(event)


def _advance(s: State, out: list[Message]) -> None:
    """Emit automatic events until a player has a choice or the game has ended."""
    while True:
        step = s.step
        seat = s.current_seat
        if s.phase == "turns":
            if step == "buy":
                if _can_buy_any(s, s.players[seat]):  # type: ignore[index]
                    return
                _emit(s, out, ev.BuySkipped(seat))  # type: ignore[arg-type]
            elif step == "fight":
                if _can_fight_any(s, s.players[seat]):  # type: ignore[index]
                    return
                _emit(s, out, ev.FightSkipped(seat))  # type: ignore[arg-type]
            elif step == "place":
                if len(s.pirate_table) < PIRATE_TABLE_SIZE and s.display:
                    return
                _emit(s, out, ev.PlaceSkipped(seat))  # type: ignore[arg-type]
            elif step == "refill":
                card = s.deck[s.deck_pos]
                if CARDS[card].color:
                    _emit(s, out, ev.CardRevealed(card))
                else:
                    _emit(s, out, ev.ShipRevealed(card, seat, not s.end_triggered))  # type: ignore[arg-type]
            else:
                _emit(s, out, ev.FinalRoundStarted(s.final_start))
        elif s.phase == "final_round":
            if step is None:
                with_bonus = bool(s.options.get("color_bonus", False))
                _emit(s, out, ev.GameEnded(final_scores(s.players, with_bonus)))
                return
            if _can_fight_any(s, s.players[seat]):  # type: ignore[index]
                return
            _emit(s, out, ev.FightSkipped(seat))  # type: ignore[arg-type]
        else:
            return


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
    color = CARDS[card].color
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


def _need_step(s: State, *steps: str) -> None:
    if s.step not in steps:
        where = "the final round" if s.phase == "final_round" else f"the {s.step} step"
        raise IllegalAction("wrong_step", f"not allowed in {where}")


def _first_events(s: State, a: Message) -> Message:
    """Check ``a`` against the rules and return the event it causes; raises IllegalAction."""
    if s.phase in ("ended", "setup"):
        raise IllegalAction("game_over" if s.phase == "ended" else "not_started",
                            "the game has ended" if s.phase == "ended" else "no game yet")
    seat = getattr(a, "seat", None)
    if type(seat) is not int:
        raise IllegalAction("bad_action", "seat must be a whole number")
    if seat != s.current_seat:
        raise IllegalAction("not_your_turn", f"it is seat {s.current_seat}'s turn")
    p = s.players[seat]
    kind = type(a)
    if kind is ac.Buy:
        _need_step(s, "buy")
        card = _card(a.card)  # type: ignore[attr-defined]
        if card not in s.display:
            raise IllegalAction("card_not_available", f"{card} is not in the display")
        price = CARDS[card].price
        if price > p.ducats:
            raise IllegalAction("cannot_afford", f"{card} costs {price} ducats; you have {p.ducats}")
        row = _row(p, card, a.row)  # type: ignore[attr-defined]
        return ev.CardBought(seat, card, row, price, *_payout(p, row, card))
    if kind is ac.Fight:
        _need_step(s, "fight")
        card = _card(a.card)  # type: ignore[attr-defined]
        if card in s.pirate_table:
            source = "pirate_table"
        elif card in s.display and s.phase == "final_round":
            source = "display"
        else:
            where = "pirate table or the display" if s.phase == "final_round" else "pirate table"
            raise IllegalAction("card_not_available", f"{card} is not on the {where}")
        cost = CARDS[card].fight_cost
        if cost > p.sabres:
            raise IllegalAction("not_enough_sabres",
                                f"{card} costs {cost} sabres; you have {p.sabres}")
        row = _row(p, card, a.row)  # type: ignore[attr-defined]
        return ev.FightWon(seat, card, row, source, cost, *_payout(p, row, card))
    if kind is ac.Pass:
        _need_step(s, "fight")
        return ev.FightDeclined(seat)
    if kind is ac.Place:
        _need_step(s, "place")
        card = _card(a.card)  # type: ignore[attr-defined]
        if card not in s.display:
            raise IllegalAction("card_not_available", f"{card} is not in the display")
        return ev.CardPlaced(seat, card)
    if kind is ac.SellJewel:
        _need_step(s, "buy")
        if p.jewels < 1:
            raise IllegalAction("no_jewels", "you have no jewel to sell")
        return ev.JewelSold(seat, JEWEL_PRICE)
    if kind is ac.SellCard:
        _need_step(s, "buy")
        card = _card(a.card)  # type: ignore[attr-defined]
        color = CARDS[card].color
        if color is None:
            raise IllegalAction("cannot_sell_ship", "ship cards cannot be sold")
        if card not in p.rows.get(color, ()):
            raise IllegalAction("card_not_owned", f"{card} is not in your rows")
        return ev.CardSold(seat, card, CARD_PRICE)
    raise IllegalAction("bad_action", f"not an Einauge action: {a!r}")


def play(s: State, action: Message) -> list[Message]:
    """Apply ``action`` to ``s`` in place; returns the events, automatic ones included.

    Raises ``IllegalAction`` before touching ``s`` when the rules forbid the action.
    """
    out: list[Message] = []
    _emit(s, out, _first_events(s, action))
    _advance(s, out)
    return out


def decide(s: State, action: Message) -> list[Message]:
    """The events ``action`` causes in ``s``; ``s`` itself is not changed."""
    return play(s.copy(), action)


def start_events(s: State, started: ev.GameStarted) -> list[Message]:
    """Apply ``game_started`` to an empty state and the automatic events after it."""
    out: list[Message] = []
    _emit(s, out, started)
    _advance(s, out)
    return out


def legal_actions(s: State, seat: int) -> list[Message]:
    """Exactly the actions ``decide`` accepts from ``seat`` now (empty if not its turn).

    Island cards are listed without ``row`` (they can only join their color row); ships
    once per row they can join and once ``alone``.
    """
    if seat != s.current_seat or s.phase not in ("turns", "final_round"):
        return []
    p = s.players[seat]
    step = s.step
    out: list[Message] = []
    if step == "buy":
        if p.jewels:
            out.append(ac.SellJewel(seat))
        for row in p.rows.values():
            for c in row:
                if CARDS[c].color:
                    out.append(ac.SellCard(seat, c))
        for c in s.display:
            card = CARDS[c]
            if card.price <= p.ducats:
                _targets(out, ac.Buy, seat, p, card.id, card.color)
    elif step == "fight":
        sabres = p.sabres
        for c in _fight_sources(s):
            card = CARDS[c]
            if card.fight_cost <= sabres:
                _targets(out, ac.Fight, seat, p, c, card.color)
        out.append(ac.Pass(seat))
    elif step == "place":
        out.extend(ac.Place(seat, c) for c in s.display)
    return out


def _targets(out: list[Message], cls: type, seat: int, p: Player, card: str,
             color: str | None) -> None:
    if color is not None:
        if len(p.rows.get(color, ())) < ROW_LIMIT:
            out.append(cls(seat, card))
        return
    for row in COLORS:
        cards = p.rows.get(row)
        if cards is not None and len(cards) < ROW_LIMIT:
            out.append(cls(seat, card, row))
    out.append(cls(seat, card, "alone"))
