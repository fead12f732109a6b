"""The actions worth considering: the legal actions minus the plainly dominated ones.

Used by ``greedy`` and ``mcts`` to keep their choice (and the search tree) small:

- **Buy step.** When a card is affordable, only buys: selling before buying turns a jewel
  (worth 5 ducats at the end) into 3 ducats, or a card into 5 ducats and a shorter row,
  so the bots never sell voluntarily. When nothing is affordable (the rules then demand a
  sale), selling a jewel and, per row, selling its lowest-yield island card.
- **Ships** (buy or fight): a ship adds nothing itself but makes its row pay out, so it
  goes to one of the two best-paying rows; ``alone`` only when the seat has no row it can
  join.
- **Fight and place:** every legal action (including ``pass``).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.einauge import actions as ac
from engine.einauge.bots.heuristic import DUCAT, SABRE_END, row_payout
from engine.einauge.cards import CARDS
from engine.einauge.state import State
from engine.game import Message

_YIELD = {c: card.jewels + DUCAT * card.ducats + SABRE_END * card.sabres + 0.5 * card.chests
          for c, card in CARDS.items()}


def candidates(s: State, seat: int, legal: Sequence[Message]) -> list[Message]:
    """The subset of ``legal`` (never empty when ``legal`` is not) worth considering."""
    if not legal:
        return []
    if s.step == "buy":
        buys = [a for a in legal if type(a) is ac.Buy]
        if buys:
            return _ships_pruned(s, seat, buys)
        return _sales(s, seat, legal)
    if s.step == "fight":
        return _ships_pruned(s, seat, list(legal))
    return list(legal)


def _ships_pruned(s: State, seat: int, moves: list[Message]) -> list[Message]:
    p = s.players[seat]
    best_rows: dict[str, list[str]] = {}
    out: list[Message] = []
    for a in moves:
        row = getattr(a, "row", None)
        card = getattr(a, "card", None)
        if row is None or card is None:
            out.append(a)
            continue
        keep = best_rows.get(card)
        if keep is None:
            rows = sorted((r for r in p.rows if len(p.rows[r]) < 7),
                          key=lambda r: -row_payout(p.rows[r], SABRE_END))
            keep = best_rows[card] = rows[:2] or ["alone"]
        if row in keep:
            out.append(a)
    return out or moves


def _sales(s: State, seat: int, legal: Sequence[Message]) -> list[Message]:
    p = s.players[seat]
    out: list[Message] = [a for a in legal if type(a) is ac.SellJewel]
    for cards in p.rows.values():
        islands = [c for c in cards if CARDS[c].color]
        if islands:
            worst = min(islands, key=lambda c: (_YIELD[c], c))
            out.append(ac.SellCard(seat, worst))
    return out or list(legal)
