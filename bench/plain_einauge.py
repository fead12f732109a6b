"""A plain, straightforward implementation of Einauge's rules: the yardstick of issue 18.

Issue 18 asks the engine (``engine/einauge/``) to play complete 4-player random games at
least 7 times as fast as "a plain straightforward implementation of the same rules on the
same core". This module is that implementation, written the way a typical developer would
write a card game for random playouts: one mutable ``PlainGame`` object of dataclasses,
dicts and lists keyed by card ids, fresh action objects from ``legal_actions``, each action
checked before it is applied, the automatic steps (skips, refills, ship reveals, the final
round, final scoring) run after every action. No speed tricks (no interning, no flat
tables, no memoizing), and nothing deliberately slow either.

It is independent of the engine: it imports nothing from ``engine/`` and reads only the
card *data* file ``engine/einauge/cards.toml`` (the same data, not the same code). It
keeps no event log (the engine must; a plain game needn't), which makes it a slightly
harder yardstick, not an easier one.

Decisions, so that the comparison is fair and checkable (tests/bench/test_plain_einauge.py):

- The setup shuffle is its own implementation of CONTRACT-einauge §2 (SHA-256 blocks,
  rejection sampling, Fisher–Yates) and so gives the same deck as the engine for the same
  seed: both sides do the same setup work.
- ``legal_actions`` lists the actions in the engine's order (buy step: sell a jewel, sell
  each island card of the rows, then the buy offers of the display; fight step: the fight
  offers, then pass; place step: each display card), so a playout that picks
  ``legal[rng.randrange(len(legal))]`` plays exactly the same game on both sides from the
  same seeds. That is also what the test checks, step by step, with the final scores.
- ``result()`` has the shape of CONTRACT §3's ``result``.
"""

from __future__ import annotations

import hashlib
import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CARDS_FILE = Path(__file__).resolve().parent.parent / "engine" / "einauge" / "cards.toml"
ROW_LIMIT = 7
DISPLAY_SIZE = 6
PIRATE_TABLE_SIZE = 6
JEWEL_PRICE = 3
CARD_PRICE = 5
CHEST_AWARDS = [7, 4, 1]
COLORS_IN_PLAY = {2: 5, 3: 6, 4: 7, 5: 8}


@dataclass
class Card:
    """One card; ``color`` is ``None`` for a ship card."""

    id: str
    color: str | None
    price: int
    sabres: int = 0
    ducats: int = 0
    jewels: int = 0
    chests: int = 0

    @property
    def is_ship(self) -> bool:
        """True for a ship (a joker: no color, no yield)."""
        return self.color is None

    @property
    def fight_cost(self) -> int:
        """Sabres to win it: 4 if it shows a sabre, else 3."""
        return 4 if self.sabres > 0 else 3


def load_cards(path: Path = CARDS_FILE) -> tuple[list[str], dict[str, Card]]:
    """The colors in canonical order and every card by id, from the card data file."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    cards: dict[str, Card] = {}
    for card_id, y in data["yield"].items():
        color, _, price = card_id.rpartition("-")
        cards[card_id] = Card(card_id, color, int(price), y["sabres"], y["ducats"], y["jewels"],
                              y["chests"])
    for i in range(1, data["ships"] + 1):
        cards[f"ship-{i}"] = Card(f"ship-{i}", None, data["ship_price"])
    return list(data["colors"]), cards


COLORS, CARDS = load_cards()


@dataclass(frozen=True, slots=True)
class Action:
    """A player's action: ``kind`` is ``sell_jewel``, ``sell_card``, ``buy``, ``fight``,
    ``pass`` or ``place``; ``row`` only for a ship (a color or ``"alone"``)."""

    kind: str
    seat: int
    card: str | None = None
    row: str | None = None


class IllegalMove(Exception):
    """The rules do not allow this action now."""


class Sha256Stream:
    """The random stream of CONTRACT-einauge §2: blocks ``SHA-256(seed || k)`` (k as 8
    bytes big-endian), each split into four big-endian unsigned 64-bit integers."""

    def __init__(self, seed: str) -> None:
        self.seed = seed.encode("utf-8")
        self.block = 0
        self.buffer: list[int] = []

    def next_word(self) -> int:
        """The next 64-bit integer of the stream."""
        if not self.buffer:
            digest = hashlib.sha256(self.seed + self.block.to_bytes(8, "big")).digest()
            self.buffer = [int.from_bytes(digest[i:i + 8], "big") for i in range(0, 32, 8)]
            self.block += 1
        return self.buffer.pop(0)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection."""
        limit = 2**64 - (2**64 % n)
        while True:
            u = self.next_word()
            if u < limit:
                return u % n

    def shuffle(self, items: list[Any]) -> None:
        """Fisher–Yates in place, from the last index down to 1."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def shuffled_deck(n_players: int, seed: str) -> list[str]:
    """The island cards in play, top first (CONTRACT §2: colors left out, then the deck)."""
    stream = Sha256Stream(seed)
    colors = list(COLORS)
    removed: list[str] = []
    if COLORS_IN_PLAY[n_players] < len(colors):
        stream.shuffle(colors)
        removed = colors[: len(COLORS) - COLORS_IN_PLAY[n_players]]
    deck = [c.id for c in CARDS.values() if c.color is not None and c.color not in removed]
    deck.sort(key=lambda cid: (COLORS.index(CARDS[cid].color), CARDS[cid].price))  # type: ignore[arg-type]
    stream.shuffle(deck)
    return deck


@dataclass
class PlayerState:
    """One seat's holdings; ``rows`` maps a color to its cards in joining order."""

    name: str
    sabres: int = 2
    ducats: int = 20
    jewels: int = 1
    rows: dict[str, list[str]] = field(default_factory=dict)
    lone_ships: list[str] = field(default_factory=list)

    def island_cards(self) -> list[str]:
        """The island cards in the rows (what may be sold)."""
        return [c for row in self.rows.values() for c in row if not CARDS[c].is_ship]

    def open_rows(self) -> list[str]:
        """The rows a ship may join (below the limit), in canonical color order."""
        return [color for color in COLORS
                if color in self.rows and len(self.rows[color]) < ROW_LIMIT]

    def can_take(self, card: Card) -> bool:
        """Whether the card fits a row (a ship always fits: it can be laid alone)."""
        return card.is_ship or len(self.rows.get(card.color, [])) < ROW_LIMIT  # type: ignore[arg-type]


class PlainGame:
    """One game of Einauge, RULES-einauge.md, played by mutating this object.

    ``phase`` is ``"turns"``, ``"final_round"`` or ``"ended"``; ``step`` is ``"buy"``,
    ``"fight"`` or ``"place"`` (only ``"fight"`` in the final round).
    """

    def __init__(self, players: list[str], seed: str, end_rule: str = "round",
                 color_bonus: bool = False) -> None:
        self.players = [PlayerState(name) for name in players]
        self.end_rule = end_rule
        self.color_bonus = color_bonus
        self.deck = shuffled_deck(len(players), seed) + [f"ship-{i}" for i in range(1, 9)]
        self.display = self.deck[:DISPLAY_SIZE]
        self.pirate_table = [self.deck[DISPLAY_SIZE]]
        self.deck = self.deck[DISPLAY_SIZE + 1:]
        self.phase = "turns"
        self.step = "buy"
        self.current = 0
        self.end_triggered = False
        self.turns_left = 0
        self.final_start = 0
        self.final_left = 0
        self.scores: dict[str, Any] | None = None
        self.advance()

    # --- what may be done ---------------------------------------------------------------

    def fight_sources(self) -> list[str]:
        """The cards one may fight for: the pirate table, in the final round the display too."""
        if self.phase == "final_round":
            return self.pirate_table + self.display
        return self.pirate_table

    def offers(self, kind: str, seat: int, cards: list[str], budget: int,
               use_price: bool) -> list[Action]:
        """Buy or fight offers for ``cards`` within ``budget``: an island card once if its
        row has room, a ship once per open row and once alone."""
        player = self.players[seat]
        result = []
        for card_id in cards:
            card = CARDS[card_id]
            cost = card.price if use_price else card.fight_cost
            if cost > budget:
                continue
            if card.is_ship:
                for row in player.open_rows():
                    result.append(Action(kind, seat, card_id, row))
                result.append(Action(kind, seat, card_id, "alone"))
            elif player.can_take(card):
                result.append(Action(kind, seat, card_id))
        return result

    def legal_actions(self) -> list[Action]:
        """Every action the player to move may take now (empty once the game has ended)."""
        if self.phase == "ended":
            return []
        seat = self.current
        player = self.players[seat]
        actions = []
        if self.step == "buy":
            if player.jewels > 0:
                actions.append(Action("sell_jewel", seat))
            for card_id in player.island_cards():
                actions.append(Action("sell_card", seat, card_id))
            actions += self.offers("buy", seat, self.display, player.ducats, True)
        elif self.step == "fight":
            actions += self.offers("fight", seat, self.fight_sources(), player.sabres, False)
            actions.append(Action("pass", seat))
        elif self.step == "place":
            for card_id in self.display:
                actions.append(Action("place", seat, card_id))
        return actions

    def can_buy_anything(self, player: PlayerState) -> bool:
        """Whether selling everything could pay for some display card (RULES: buy step)."""
        if not self.display:
            return False
        budget = (player.ducats + JEWEL_PRICE * player.jewels
                  + CARD_PRICE * len(player.island_cards()))
        return min(CARDS[c].price for c in self.display) <= budget

    def can_fight_anything(self, player: PlayerState) -> bool:
        """Whether some card could be won now (enough sabres and a row that takes it)."""
        for card_id in self.fight_sources():
            card = CARDS[card_id]
            if card.fight_cost <= player.sabres and player.can_take(card):
                return True
        return False

    # --- doing it -----------------------------------------------------------------------

    def check(self, action: Action) -> None:
        """Raise ``IllegalMove`` unless the rules allow ``action`` now."""
        if self.phase == "ended":
            raise IllegalMove("the game has ended")
        if action.seat != self.current:
            raise IllegalMove("not your turn")
        player = self.players[action.seat]
        kind = action.kind
        need = {"sell_jewel": "buy", "sell_card": "buy", "buy": "buy", "fight": "fight",
                "pass": "fight", "place": "place"}
        if kind not in need:
            raise IllegalMove(f"unknown action {kind!r}")
        if need[kind] != self.step:
            raise IllegalMove(f"{kind} is not allowed in the {self.step} step")
        if kind == "sell_jewel" and player.jewels < 1:
            raise IllegalMove("no jewel to sell")
        if kind == "sell_card" and action.card not in player.island_cards():
            raise IllegalMove(f"{action.card} is not an island card of yours")
        if kind == "place" and action.card not in self.display:
            raise IllegalMove(f"{action.card} is not in the display")
        if kind == "buy" or kind == "fight":
            if action.card not in CARDS:
                raise IllegalMove(f"no card {action.card!r}")
            card = CARDS[action.card]
            if kind == "buy":
                if card.id not in self.display:
                    raise IllegalMove(f"{card.id} is not in the display")
                if card.price > player.ducats:
                    raise IllegalMove(f"{card.id} costs {card.price} ducats")
            else:
                if card.id not in self.fight_sources():
                    raise IllegalMove(f"{card.id} cannot be fought for")
                if card.fight_cost > player.sabres:
                    raise IllegalMove(f"{card.id} costs {card.fight_cost} sabres")
            if card.is_ship:
                if action.row != "alone" and action.row not in player.open_rows():
                    raise IllegalMove(f"a ship cannot join row {action.row!r}")
            elif action.row not in (None, card.color):
                raise IllegalMove(f"{card.id} can only join the {card.color} row")
            elif not player.can_take(card):
                raise IllegalMove(f"the {card.color} row is full")

    def apply(self, action: Action) -> None:
        """Check and apply one action, then every automatic step up to the next choice."""
        self.check(action)
        player = self.players[action.seat]
        kind = action.kind
        if kind == "sell_jewel":
            player.jewels -= 1
            player.ducats += JEWEL_PRICE
        elif kind == "sell_card":
            self.sell_card(player, action.card)  # type: ignore[arg-type]
        elif kind == "buy":
            card = CARDS[action.card]  # type: ignore[index]
            self.display.remove(card.id)
            player.ducats -= card.price
            self.add_card(player, card, action.row or card.color)  # type: ignore[arg-type]
            self.step = "fight"
        elif kind == "fight":
            card = CARDS[action.card]  # type: ignore[index]
            if card.id in self.pirate_table:
                self.pirate_table.remove(card.id)
            else:
                self.display.remove(card.id)
            player.sabres -= card.fight_cost
            self.add_card(player, card, action.row or card.color)  # type: ignore[arg-type]
            self.after_fight()
        elif kind == "pass":
            self.after_fight()
        elif kind == "place":
            self.display.remove(action.card)  # type: ignore[arg-type]
            self.pirate_table.append(action.card)  # type: ignore[arg-type]
            self.refill_and_end_turn()
        self.advance()

    def sell_card(self, player: PlayerState, card_id: str) -> None:
        """Sell an island card for 5 ducats; a row left with ships only dissolves."""
        color = CARDS[card_id].color
        row = player.rows[color]  # type: ignore[index]
        row.remove(card_id)
        player.ducats += CARD_PRICE
        if all(CARDS[c].is_ship for c in row):
            del player.rows[color]  # type: ignore[arg-type]
            player.lone_ships.extend(row)

    def add_card(self, player: PlayerState, card: Card, row: str) -> None:
        """Put a bought or won card into ``row`` (or alone) and pay the row out."""
        if row == "alone":
            player.lone_ships.append(card.id)
            return
        if row in player.rows:
            player.rows[row].append(card.id)
        else:  # a new row takes the lone ships along, oldest first, up to the limit
            joining = player.lone_ships[: ROW_LIMIT - 1]
            player.rows[row] = [card.id, *joining]
            player.lone_ships = player.lone_ships[len(joining):]
        for card_id in player.rows[row]:
            c = CARDS[card_id]
            player.sabres += c.sabres
            player.ducats += c.ducats
            player.jewels += c.jewels

    def after_fight(self) -> None:
        """A fight or pass ends a final-round turn; in a normal turn the place step follows."""
        if self.phase == "final_round":
            self.final_left -= 1
            if self.final_left == 0:
                self.scores = self.final_scores()
                self.phase = "ended"
            else:
                self.current = (self.current + 1) % len(self.players)
        else:
            self.step = "place"

    def refill_and_end_turn(self) -> None:
        """Refill the display from the deck (the first ship triggers the end), end the turn."""
        n = len(self.players)
        while len(self.display) < DISPLAY_SIZE and self.deck:
            card_id = self.deck.pop(0)
            self.display.append(card_id)
            if CARDS[card_id].is_ship and not self.end_triggered:
                self.end_triggered = True
                if self.end_rule == "one_more_turn":
                    self.turns_left = n
                    self.final_start = (self.current + 1) % n
                else:
                    self.turns_left = n - 1 - self.current
                    self.final_start = 0
        if self.end_triggered and self.turns_left == 0:
            self.phase = "final_round"
            self.step = "fight"
            self.current = self.final_start
            self.final_left = n
            return
        if self.end_triggered:
            self.turns_left -= 1
        self.current = (self.current + 1) % n
        self.step = "buy"

    def advance(self) -> None:
        """Skip the steps the rules skip automatically, until someone has a choice."""
        while self.phase != "ended":
            player = self.players[self.current]
            if self.phase == "final_round":
                if self.can_fight_anything(player):
                    return
                self.after_fight()
            elif self.step == "buy":
                if self.can_buy_anything(player):
                    return
                self.step = "fight"
            elif self.step == "fight":
                if self.can_fight_anything(player):
                    return
                self.step = "place"
            elif self.step == "place":
                if len(self.pirate_table) < PIRATE_TABLE_SIZE and self.display:
                    return
                self.refill_and_end_turn()

    # --- the end ------------------------------------------------------------------------

    def final_scores(self) -> dict[str, Any]:
        """CONTRACT §3's ``result``: per-seat scores and the winning seats."""
        chests = []
        for p in self.players:
            chests.append({color: sum(CARDS[c].chests for c in cards)
                           for color, cards in p.rows.items()})
        awards: list[dict[str, int]] = [{} for _ in self.players]
        for color in COLORS:
            counts = [ch.get(color, 0) for ch in chests]
            for seat, mine in enumerate(counts):
                rank = 1 + len([other for other in counts if other > mine])
                if mine > 0 and rank <= len(CHEST_AWARDS):
                    awards[seat][color] = CHEST_AWARDS[rank - 1]
        scores = []
        for seat, p in enumerate(self.players):
            from_sabres = 3 * p.sabres
            from_ducats = (p.ducats + from_sabres) // 5
            rows = len(p.rows)
            bonus = rows * (rows - 1) // 2 if self.color_bonus and rows >= 3 else 0
            scores.append({
                "seat": seat, "sabres": p.sabres, "ducats": p.ducats, "jewels": p.jewels,
                "ducats_from_sabres": from_sabres, "jewels_from_ducats": from_ducats,
                "chest_awards": awards[seat], "color_bonus": bonus,
                "total": p.jewels + from_ducats + sum(awards[seat].values()) + bonus})
        best = max(s["total"] for s in scores)
        return {"scores": scores, "winners": [s["seat"] for s in scores if s["total"] == best]}

    def is_over(self) -> bool:
        """True once final scoring is done."""
        return self.phase == "ended"


def random_game(players: list[str], seed: str, rng: random.Random, end_rule: str = "round",
                color_bonus: bool = False) -> tuple[PlainGame, int]:
    """Set up a game from ``seed`` and play it to the end, every seat picking
    ``legal[rng.randrange(len(legal))]`` (the engine's ``random_playout``); the finished
    game and the number of actions played."""
    game = PlainGame(players, seed, end_rule, color_bonus)
    actions = 0
    while not game.is_over():
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        actions += 1
    return game, actions
