"""An independent test oracle for Einauge, written from the specification alone.

Source: shared/RULES-einauge.md (the rules) and shared/CONTRACT-einauge.md
(section 1 records, section 2 shuffle, section 3 public view). It shares no code with
``engine/``: differential tests replay the same records through both and compare.

Deliberately plain: one mutable ``OracleGame`` object, a legal-action generator that lists
every action as a wire dict, and ``apply`` that accepts an action only when it equals one of
those dicts. Speed is secondary to being obviously right.

Public entry points:

- ``replay(record) -> OracleGame``: set up from a record and apply its actions; raises
  ``OracleReject`` (``index`` of the failing action, ``None`` for a malformed record).
- ``OracleGame.legal_actions(seat) -> list[dict]``: wire dicts of every legal action.
- ``OracleGame.view() -> dict``: the CONTRACT section 3 public view without ``seq``.
- ``shuffle_setup(seed, n_players, removed_colors) -> (colors, deck)``: CONTRACT section 2.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

COLORS: tuple[str, ...] = ("blue", "green", "red", "yellow", "purple", "orange", "brown", "gray")
SHIPS: tuple[str, ...] = tuple(f"ship-{i}" for i in range(1, 9))
SHIP_PRICE = 5
ROW_LIMIT = 7
PIRATE_LIMIT = 6
DISPLAY_SIZE = 6
COLORS_BY_PLAYERS = {2: 5, 3: 6, 4: 7, 5: 8}

# RULES "Reference card set": per color, (sabres, ducats, jewels, chests) for prices 2..8.
_TABLE: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    "blue": ((0, 1, 0, 1), (0, 2, 0, 0), (1, 1, 0, 2), (1, 2, 0, 0),
             (0, 0, 1, 2), (1, 0, 1, 0), (0, 0, 2, 1)),
    "green": ((1, 0, 0, 0), (0, 1, 0, 2), (0, 2, 0, 1), (1, 1, 0, 1),
              (0, 3, 0, 0), (0, 0, 1, 2), (1, 0, 2, 0)),
    "red": ((0, 0, 0, 2), (1, 0, 0, 0), (1, 1, 0, 1), (0, 2, 0, 2),
            (1, 0, 1, 0), (0, 2, 1, 1), (0, 0, 1, 3)),
    "yellow": ((0, 2, 0, 0), (0, 1, 0, 1), (1, 2, 0, 0), (0, 3, 0, 1),
               (1, 2, 0, 1), (0, 4, 1, 0), (0, 0, 2, 2)),
    "purple": ((0, 0, 0, 1), (1, 0, 0, 1), (1, 1, 0, 0), (0, 0, 1, 1),
               (2, 0, 0, 1), (1, 0, 1, 2), (1, 0, 2, 0)),
    "orange": ((0, 1, 0, 0), (0, 2, 0, 1), (1, 0, 0, 2), (1, 1, 0, 1),
               (0, 1, 1, 1), (0, 0, 2, 0), (1, 0, 1, 3)),
    "brown": ((1, 0, 0, 0), (1, 1, 0, 0), (0, 2, 0, 2), (1, 2, 0, 0),
              (2, 0, 0, 1), (0, 1, 1, 2), (0, 2, 2, 0)),
    "gray": ((0, 1, 0, 1), (0, 0, 1, 0), (1, 0, 0, 1), (0, 2, 0, 1),
             (1, 0, 1, 1), (0, 3, 0, 2), (1, 0, 1, 2)),
}

#: card id -> (sabres, ducats, jewels, chests); ships yield nothing.
CARDS: dict[str, tuple[int, int, int, int]] = {
    f"{color}-{price}": values
    for color, row in _TABLE.items()
    for price, values in zip(range(2, 9), row, strict=True)
}


class OracleReject(Exception):
    """A record the oracle refuses: ``index`` is the failing action (``None``: malformed)."""

    def __init__(self, index: int | None, reason: str) -> None:
        super().__init__(f"action {index}: {reason}")
        self.index = index
        self.reason = reason


def is_ship(card: str) -> bool:
    """True for ``ship-1`` … ``ship-8``."""
    return card.startswith("ship-")


def color_of(card: str) -> str:
    """The color of an island card."""
    return card.rsplit("-", 1)[0]


_PRICES = {**{card: int(card.rsplit("-", 1)[1]) for card in CARDS},
           **dict.fromkeys(SHIPS, SHIP_PRICE)}
_FIGHT_COSTS = {**{card: 4 if CARDS[card][0] > 0 else 3 for card in CARDS},
                **dict.fromkeys(SHIPS, 3)}


def price_of(card: str) -> int:
    """Ducats to buy ``card`` (ships cost 5)."""
    return _PRICES[card]


def fight_cost(card: str) -> int:
    """Sabres to win ``card``: 4 if it shows a sabre, else 3 (ships show none)."""
    return _FIGHT_COSTS[card]


# --- CONTRACT section 2 ------------------------------------------------------------------


def _stream(seed: str) -> Iterator[int]:
    seed_bytes = seed.encode("utf-8")
    k = 0
    while True:
        block = hashlib.sha256(seed_bytes + k.to_bytes(8, "big")).digest()
        for i in range(4):
            yield int.from_bytes(block[8 * i: 8 * i + 8], "big")
        k += 1


def _below(stream: Iterator[int], n: int) -> int:
    limit = 2**64 - (2**64 % n)
    while True:
        u = next(stream)
        if u < limit:
            return u % n


def _fisher_yates(items: list[str], stream: Iterator[int]) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = _below(stream, i + 1)
        items[i], items[j] = items[j], items[i]


def shuffle_setup(
    seed: str, n_players: int, removed_colors: Sequence[str] | None = None
) -> tuple[list[str], list[str]]:
    """Colors in play (canonical order) and the island deck (top first) for ``seed``."""
    stream = _stream(seed)
    in_play = COLORS_BY_PLAYERS[n_players]
    if removed_colors is not None:
        removed = set(removed_colors)
    elif in_play == len(COLORS):
        removed = set()
    else:
        shuffled = list(COLORS)
        _fisher_yates(shuffled, stream)
        removed = set(shuffled[: len(COLORS) - in_play])
    colors = [c for c in COLORS if c not in removed]
    deck = [f"{c}-{p}" for c in colors for p in range(2, 9)]
    _fisher_yates(deck, stream)
    return colors, deck


# --- the game ------------------------------------------------------------------------------


class Player:
    """One seat's holdings."""

    def __init__(self, seat: int, name: str) -> None:
        self.seat = seat
        self.name = name
        self.sabres = 2
        self.ducats = 20
        self.jewels = 1
        self.rows: dict[str, list[str]] = {}
        self.lone: list[str] = []

    def island_count(self) -> int:
        return sum(1 for row in self.rows.values() for c in row if not is_ship(c))

    def open_rows(self) -> list[str]:
        """Colors of rows a ship may join (fewer than 7 cards)."""
        return [c for c in COLORS if c in self.rows and len(self.rows[c]) < ROW_LIMIT]

    def fits(self, card: str) -> bool:
        if is_ship(card):
            return True  # "alone" always takes it
        row = self.rows.get(color_of(card))
        return row is None or len(row) < ROW_LIMIT

    def targets(self, card: str) -> list[str | None]:
        """Row choices for a card that fits: ``None`` for an island card."""
        if is_ship(card):
            return [*self.open_rows(), "alone"]
        return [None]

    def add(self, card: str, row: str | None) -> None:
        """Add ``card`` to its row (or ``row`` for a ship) and pay the row out."""
        if is_ship(card):
            if row == "alone":
                self.lone.append(card)
                return
            assert row is not None
            self.rows[row].append(card)
            self.pay_out(row)
            return
        color = color_of(card)
        if color in self.rows:
            self.rows[color].append(card)
        else:
            # RULES Ship cards: a new row takes up to 6 lone ships, in the order laid.
            joining = self.lone[: ROW_LIMIT - 1]
            self.lone = self.lone[ROW_LIMIT - 1:]
            self.rows[color] = [card, *joining]
        self.pay_out(color)

    def pay_out(self, color: str) -> None:
        for c in self.rows[color]:
            if not is_ship(c):
                s, d, j, _ = CARDS[c]
                self.sabres += s
                self.ducats += d
                self.jewels += j

    def sell(self, card: str) -> None:
        color = color_of(card)
        row = self.rows[color]
        row.remove(card)
        self.ducats += 5
        if not any(not is_ship(c) for c in row):
            # The row dissolves; its ships become lone ships.
            self.lone.extend(row)
            del self.rows[color]

    def view(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "sabres": self.sabres,
            "ducats": self.ducats,
            "jewels": self.jewels,
            "rows": {c: list(self.rows[c]) for c in COLORS if c in self.rows},
            "lone_ships": list(self.lone),
        }


class OracleGame:
    """A game of Einauge set up from a record's players, options and deck."""

    def __init__(self, players: Sequence[str], options: Mapping[str, Any], deck: Sequence[str]):
        self.n = len(players)
        self.end_rule = options.get("end_rule", "round")
        self.color_bonus = bool(options.get("color_bonus", False))
        self.players = [Player(i, name) for i, name in enumerate(players)]
        self.deck: list[str] = [*deck, *SHIPS]
        self.display: list[str] = [self.deck.pop(0) for _ in range(DISPLAY_SIZE)]
        self.pirate: list[str] = [self.deck.pop(0)]
        self.end_triggered = False
        self.revealer: int | None = None
        self.remaining: int | None = None  # one_more_turn: turns left after the trigger turn
        self.phase = "turns"
        self.step: str | None = "buy"
        self.seat: int | None = 0
        self.final_order: list[int] = []
        self.result: dict[str, Any] | None = None
        self._skip_guard = 0
        self._settle()

    # -- automatic steps --

    def _can_buy_something(self, p: Player) -> bool:
        if not self.display:
            return False
        wealth = p.ducats + 3 * p.jewels + 5 * p.island_count()
        return min(price_of(c) for c in self.display) <= wealth

    def _winnable(self, p: Player, cards: Sequence[str]) -> list[str]:
        return [c for c in cards if p.sabres >= fight_cost(c) and p.fits(c)]

    def _settle(self) -> None:
        """Run automatic steps until a player must decide or the game has ended."""
        while True:
            self._skip_guard += 1
            if self._skip_guard > 10_000:
                raise RuntimeError("oracle: no player can ever act (endless skipped turns)")
            if self.phase == "turns":
                assert self.seat is not None
                p = self.players[self.seat]
                if self.step == "buy" and not self._can_buy_something(p):
                    self.step = "fight"
                if self.step == "fight" and not self._winnable(p, self.pirate):
                    self.step = "place"
                if self.step == "place" and (len(self.pirate) >= PIRATE_LIMIT or not self.display):
                    self._end_turn()
                    continue
                return
            if self.phase == "final_round":
                assert self.seat is not None
                p = self.players[self.seat]
                if not self._winnable(p, self.pirate + self.display):
                    self._next_final()
                    continue
                return
            return

    def _end_turn(self) -> None:
        assert self.seat is not None
        triggered_now = False
        while len(self.display) < DISPLAY_SIZE and self.deck:
            card = self.deck.pop(0)
            self.display.append(card)
            if is_ship(card) and not self.end_triggered:
                self.end_triggered = True
                self.revealer = self.seat
                triggered_now = True
        seat = self.seat
        if self.end_rule == "round":
            if self.end_triggered and seat == self.n - 1:
                self._start_final(list(range(self.n)))
                return
        elif self.end_triggered:
            if triggered_now:
                self.remaining = self.n
            else:
                assert self.remaining is not None
                self.remaining -= 1
                if self.remaining == 0:
                    assert self.revealer is not None
                    start = self.revealer + 1
                    self._start_final([(start + i) % self.n for i in range(self.n)])
                    return
        self.seat = (seat + 1) % self.n
        self.step = "buy"

    def _start_final(self, order: list[int]) -> None:
        self.phase = "final_round"
        self.step = "fight"
        self.final_order = order
        self.seat = order[0]

    def _next_final(self) -> None:
        self.final_order.pop(0)
        if self.final_order:
            self.seat = self.final_order[0]
            return
        self.phase = "ended"
        self.step = None
        self.seat = None
        self.result = self._score()

    # -- scoring --

    def _score(self) -> dict[str, Any]:
        awards: list[dict[str, int]] = [{} for _ in self.players]
        for color in COLORS:
            counts = []
            for p in self.players:
                chests = sum(CARDS[c][3] for c in p.rows.get(color, []) if not is_ship(c))
                if chests > 0:
                    counts.append((p.seat, chests))
            for seat, chests in counts:
                rank = 1 + sum(1 for _, other in counts if other > chests)
                award = {1: 7, 2: 4, 3: 1}.get(rank, 0)
                if award:
                    awards[seat][color] = award
        scores = []
        for p in self.players:
            rows = len(p.rows)
            bonus = (rows - 1) * rows // 2 if self.color_bonus and rows >= 3 else 0
            from_sabres = 3 * p.sabres
            from_ducats = (p.ducats + from_sabres) // 5
            scores.append({
                "seat": p.seat,
                "sabres": p.sabres,
                "ducats": p.ducats,
                "jewels": p.jewels,
                "ducats_from_sabres": from_sabres,
                "jewels_from_ducats": from_ducats,
                "chest_awards": awards[p.seat],
                "color_bonus": bonus,
                "total": p.jewels + from_ducats + sum(awards[p.seat].values()) + bonus,
            })
        best = max(s["total"] for s in scores)
        return {"scores": scores, "winners": [s["seat"] for s in scores if s["total"] == best]}

    # -- decisions --

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """Every action ``seat`` may take now, as wire dicts (empty if not its turn)."""
        if self.phase == "ended" or seat != self.seat:
            return []
        p = self.players[seat]
        out: list[dict[str, Any]] = []

        def take(kind: str, cards: Sequence[str], pay: str) -> None:
            for card in dict.fromkeys(cards):
                cost = price_of(card) if pay == "ducats" else fight_cost(card)
                have = p.ducats if pay == "ducats" else p.sabres
                if cost > have or not p.fits(card):
                    continue
                for row in p.targets(card):
                    action = {"type": kind, "seat": seat, "card": card}
                    if row is not None:
                        action["row"] = row
                    out.append(action)

        if self.phase == "final_round":
            take("fight", self.pirate + self.display, "sabres")
            out.append({"type": "pass", "seat": seat})
        elif self.step == "buy":
            if p.jewels > 0:
                out.append({"type": "sell_jewel", "seat": seat})
            for color in COLORS:
                for card in p.rows.get(color, []):
                    if not is_ship(card):
                        out.append({"type": "sell_card", "seat": seat, "card": card})
            take("buy", self.display, "ducats")
        elif self.step == "fight":
            take("fight", self.pirate, "sabres")
            out.append({"type": "pass", "seat": seat})
        elif self.step == "place":
            for card in self.display:
                out.append({"type": "place", "seat": seat, "card": card})
        return out

    def apply(self, action: Mapping[str, Any]) -> None:
        """Apply one legal action (a wire dict); raises ``ValueError`` if it is not legal."""
        seat = action.get("seat") if isinstance(action, Mapping) else None
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise ValueError(f"malformed action {action!r}")
        action = dict(action)
        if "row" in action and action["row"] is None:
            # CONTRACT wire convention of the engine (docs/rules.md): a null field is absent.
            del action["row"]
        card = action.get("card")
        if isinstance(card, str) and card in CARDS and action.get("row") == color_of(card):
            # docs/rules.md decision: an island card may name its own color as its row.
            del action["row"]
        if action not in self.legal_actions(seat):
            raise ValueError(f"illegal action {dict(action)!r}")
        self._skip_guard = 0
        p = self.players[seat]
        kind = action["type"]
        row = action.get("row")
        if kind == "sell_jewel":
            p.jewels -= 1
            p.ducats += 3
            return
        if kind == "sell_card":
            p.sell(card)
            return
        if kind == "buy":
            p.ducats -= price_of(card)
            self.display.remove(card)
            p.add(card, row)
            self.step = "fight"
        elif kind == "fight":
            p.sabres -= fight_cost(card)
            (self.pirate if card in self.pirate else self.display).remove(card)
            p.add(card, row)
            if self.phase == "final_round":
                self._next_final()
            else:
                self.step = "place"
        elif kind == "pass":
            if self.phase == "final_round":
                self._next_final()
            else:
                self.step = "place"
        elif kind == "place":
            self.display.remove(card)
            self.pirate.append(card)
            self._end_turn()
        self._settle()

    def view(self) -> dict[str, Any]:
        """CONTRACT section 3 public view, without ``seq`` (not comparable)."""
        return {
            "game": "einauge",
            "phase": self.phase,
            "step": self.step,
            "current_seat": self.seat,
            "end_triggered": self.end_triggered,
            "display": list(self.display),
            "pirate_table": list(self.pirate),
            "deck_count": len(self.deck),
            "players": [p.view() for p in self.players],
            "result": self.result,
        }


# --- records -------------------------------------------------------------------------------


def setup_from_record(record: Mapping[str, Any], strict: bool = True) -> OracleGame:
    """Validate a record's header and set the game up; raises ``OracleReject(None, …)``.

    ``strict``: a given deck must hold whole colors, as many as the player count asks
    (CONTRACT: "the island cards in play"). Not strict follows the engine's documented
    leniency (docs/rules.md): any 7 or more distinct island cards.
    """
    if not isinstance(record, Mapping) or record.get("game") != "einauge":
        raise OracleReject(None, "not an einauge record")
    players = record.get("players")
    if (not isinstance(players, list) or not 2 <= len(players) <= 5
            or not all(isinstance(n, str) for n in players)):
        raise OracleReject(None, "players must be 2 to 5 names")
    options = record.get("options", {})
    if not isinstance(options, Mapping):
        raise OracleReject(None, "options must be an object")
    if options.get("end_rule", "round") not in ("round", "one_more_turn"):
        raise OracleReject(None, "bad end_rule")
    if not isinstance(options.get("color_bonus", False), bool):
        raise OracleReject(None, "bad color_bonus")
    in_play = COLORS_BY_PLAYERS[len(players)]
    deck = record.get("deck")
    removed = options.get("removed_colors")
    if deck is not None:
        if removed is not None:
            raise OracleReject(None, "removed_colors only without deck")
        if not isinstance(deck, list) or not all(isinstance(c, str) and c in CARDS for c in deck):
            raise OracleReject(None, "deck must list island cards")
        if len(set(deck)) != len(deck) or len(deck) < DISPLAY_SIZE + 1:
            raise OracleReject(None, "deck needs 7 or more distinct island cards")
        if not strict:
            return OracleGame(players, options, deck)
        colors = {color_of(c) for c in deck if isinstance(c, str) and c in CARDS}
        expected = sorted(f"{c}-{p}" for c in colors for p in range(2, 9))
        if sorted(c for c in deck if isinstance(c, str)) != expected or len(deck) != len(expected):
            raise OracleReject(None, "deck must hold whole colors of island cards, once each")
        if len(colors) != in_play:
            raise OracleReject(None, "wrong number of colors for the player count")
        return OracleGame(players, options, deck)
    seed = record.get("seed")
    if not isinstance(seed, str):
        raise OracleReject(None, "seed required without deck")
    if removed is not None and (
        not isinstance(removed, list) or len(set(removed)) != len(removed)
        or not set(removed) <= set(COLORS) or len(removed) != len(COLORS) - in_play
    ):
        raise OracleReject(None, "bad removed_colors")
    _, shuffled = shuffle_setup(seed, len(players), removed)
    return OracleGame(players, options, shuffled)


def replay(record: Mapping[str, Any], strict: bool = True) -> OracleGame:
    """Set up from ``record`` and apply its actions; raises ``OracleReject``."""
    game = setup_from_record(record, strict)
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise OracleReject(None, "actions must be a list")
    for index, action in enumerate(actions):
        if not isinstance(action, Mapping):
            raise OracleReject(index, "action must be an object")
        try:
            game.apply(action)
        except ValueError as exc:
            raise OracleReject(index, str(exc)) from None
    return game
