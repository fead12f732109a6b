"""What each legal action would do, for a thin client's choices: the row payout of a buy
or fight, what it costs, what a sale brings.

A client shows these numbers next to its buttons (the ship dialog lists every row with its
payout) without knowing a rule: they come from the very functions ``decide`` uses
(``rules.payout``, the card prices and fight costs, the selling prices), so a shown payout
is exactly what the action's event will carry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.einauge import actions as ac
from engine.einauge.cards import CARDS, FIGHT_COST, PRICE
from engine.einauge.rules import CARD_PRICE, JEWEL_PRICE, legal_actions, payout
from engine.einauge.state import State
from engine.game import Message


def _gain(player: Any, row: str, card: str) -> dict[str, Any]:
    sabres, ducats, jewels = payout(player, row, card)
    chests = sum(CARDS[c].chests for c in player.rows.get(row, ())) if row != "alone" else 0
    return {"payout": {"sabres": sabres, "ducats": ducats, "jewels": jewels},
            "chests": chests + (CARDS[card].chests if row != "alone" else 0)}


def detail(s: State, action: Message) -> dict[str, Any]:
    """What ``action`` (one of the seat to move's legal actions) would do now.

    Shapes: buy ``{"cost": {"ducats": n}, "payout": {"sabres", "ducats", "jewels"},
    "chests": n}`` (``chests``: treasure chests in the row afterwards; a ship laid alone
    pays nothing and has 0); fight the same with ``{"cost": {"sabres": n}}``;
    ``sell_card`` / ``sell_jewel`` ``{"gain": {"ducats": n}}``; ``pass`` and ``place``
    ``{}``. Raises ``KeyError`` for an action of no Einauge type.
    """
    p = s.players[action.seat]  # type: ignore[attr-defined]
    kind = type(action)
    if kind is ac.Buy or kind is ac.Fight:
        card = action.card  # type: ignore[attr-defined]
        row = action.row or CARDS[card].color  # type: ignore[attr-defined]
        cost = {"ducats": PRICE[card]} if kind is ac.Buy else {"sabres": FIGHT_COST[card]}
        return {"cost": cost, **_gain(p, row, card)}
    if kind is ac.SellCard:
        return {"gain": {"ducats": CARD_PRICE}}
    if kind is ac.SellJewel:
        return {"gain": {"ducats": JEWEL_PRICE}}
    if kind is ac.Pass or kind is ac.Place:
        return {}
    raise KeyError(kind)


def action_details(s: State, seat: int, legal: Sequence[Message] | None = None
                   ) -> list[dict[str, Any]]:
    """``detail`` of each of ``legal_actions(s, seat)`` (``legal``: that list, when the
    caller has it already), in the same order (empty when ``seat`` is not to move)."""
    return [detail(s, a) for a in (legal_actions(s, seat) if legal is None else legal)]
