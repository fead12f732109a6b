"""What each legal action would do, for a thin client's choices: the row payout of a buy
or fight, what it costs, what a sale brings.

A client shows these numbers next to its buttons (the ship dialog lists every row with its
payout) without knowing a rule: they come from the very functions and tables ``decide``
uses (``rules.payout``, the card prices and fight costs, the selling prices), so a shown
payout is exactly what the action's event will carry (the tests compare the two for every
legal action of seeded games).

Speed: the server details every legal action of the seat to move after each action (a
prompt lists about eight; py-spy of a saturated server: 2 % of its CPU), so each detail
is built as one dict literal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.einauge import actions as ac
from engine.einauge.cards import CHESTS, COLOR, FIGHT_COST, PRICE
from engine.einauge.rules import CARD_PRICE, JEWEL_PRICE, legal_actions, payout
from engine.einauge.state import Player, State
from engine.game import Message


def _row(player: Player, row: str, card: str, cost: dict[str, int]) -> dict[str, Any]:
    # The detail of a buy or fight of ``card`` into ``row`` (a color or "alone") for
    # ``cost``: the row's payout once ``card`` is in it (``rules.payout``, the rule itself)
    # and its treasure chests then (a ship laid alone has none).
    sabres, ducats, jewels = payout(player, row, card)
    chests = 0 if row == "alone" else CHESTS[card] + sum(
        map(CHESTS.__getitem__, player.rows.get(row, ())))
    return {"cost": cost, "payout": {"sabres": sabres, "ducats": ducats, "jewels": jewels},
            "chests": chests}


def detail(s: State, action: Message) -> dict[str, Any]:
    """What ``action`` (one of the seat to move's legal actions) would do now.

    Shapes: buy ``{"cost": {"ducats": n}, "payout": {"sabres", "ducats", "jewels"},
    "chests": n}`` (``chests``: treasure chests in the row afterwards; a ship laid alone
    pays nothing and has 0); fight the same with ``{"cost": {"sabres": n}}``;
    ``sell_card`` / ``sell_jewel`` ``{"gain": {"ducats": n}}``; ``pass`` and ``place``
    ``{}``. Every call builds new dicts. Raises ``KeyError`` for an action of no Einauge
    type.
    """
    kind = type(action)
    if kind is ac.Buy:
        card = action.card  # type: ignore[attr-defined]
        return _row(s.players[action.seat], action.row or COLOR[card],  # type: ignore[attr-defined]
                    card, {"ducats": PRICE[card]})
    if kind is ac.SellCard:
        return {"gain": {"ducats": CARD_PRICE}}
    if kind is ac.Fight:
        card = action.card  # type: ignore[attr-defined]
        return _row(s.players[action.seat], action.row or COLOR[card],  # type: ignore[attr-defined]
                    card, {"sabres": FIGHT_COST[card]})
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
