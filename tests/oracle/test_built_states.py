"""Differential tests on built states: the rule cases that no record can reach.

docs/rules.md lists rules that real play never reaches (a row dissolved by a sale, 7 or
more lone ships, an empty display, a buy step skipped for poverty). Here random but
consistent game states are built in the oracle, handed to the engine through its public
determinization API (``engine.einauge.determinize.determinize`` of an ``Observation``, the
way the search bots build states), and both are compared: the public view, the legal
actions of every seat, the view after each legal action, and the verdict on illegal ones.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from engine.einauge import EINAUGE
from engine.einauge.determinize import determinize
from engine.einauge.game import ACTIONS
from engine.einauge.observation import Observation, PlayerObservation
from engine.einauge.view import public_view
from engine.game import IllegalAction
from tests.oracle import einauge_oracle as oracle
from tests.oracle.einauge_oracle import COLORS, SHIPS, OracleGame, Player

END_RULES = ("round", "one_more_turn")


def _view(state: Any) -> dict[str, Any]:
    view = public_view(state)
    view.pop("seq")
    return view


def _key(actions: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(a, sort_keys=True) for a in actions)


def _rows(rng: random.Random, islands: list[str], ships: list[str]) -> dict[str, list[str]]:
    """Rows of the given cards, ships after each row's first card, at most 7 a row."""
    rows: dict[str, list[str]] = {}
    for card in islands:
        rows.setdefault(oracle.color_of(card), []).append(card)
    for color in list(rows):
        rows[color] = rows[color][: oracle.ROW_LIMIT]
    for ship in ships:
        open_rows = [c for c in rows if len(rows[c]) < oracle.ROW_LIMIT]
        if not open_rows:
            break
        row = rows[rng.choice(open_rows)]
        row.insert(rng.randint(1, len(row)), ship)
    return rows


def build(rng: random.Random) -> OracleGame | None:
    """A random, consistent oracle game at a decision point (``None``: the attempt ended
    the game while settling)."""
    n = rng.randint(2, 5)
    options = {"end_rule": rng.choice(END_RULES), "color_bonus": rng.random() < 0.5}
    colors = sorted(rng.sample(COLORS, rng.randint(1, 8)), key=COLORS.index)
    islands = [f"{c}-{p}" for c in colors for p in range(2, 9)]
    rng.shuffle(islands)
    shown = rng.choice([0, 0, 1, 2, 3, 5, 8])  # ships revealed so far (ships lie last)
    in_deck = rng.randint(0, max(0, len(islands) - 7)) if shown == 0 else 0
    deck, out = islands[:in_deck], islands[in_deck:]
    ships_out = list(SHIPS[:shown])

    game = OracleGame.__new__(OracleGame)
    game.n = n
    game.end_rule = options["end_rule"]
    game.color_bonus = options["color_bonus"]
    game.deck = [*deck, *SHIPS[shown:]]
    game._skip_guard = 0
    game.result = None

    hoarder = rng.randrange(n)
    hoard = ships_out if shown >= 7 and rng.random() < 0.4 else []  # 7+ lone ships
    pool = out + [s for s in ships_out if s not in hoard]
    rng.shuffle(pool)
    display_size = 6 if game.deck else rng.randint(0, 6)
    game.display = pool[:display_size]
    pool = pool[display_size:]
    game.pirate = pool[: rng.randint(0, min(6, len(pool)))]
    pool = pool[len(game.pirate):]
    # The rest belongs to players or has been sold; favour few owners so rows grow long.
    owners = [rng.randrange(n) for _ in range(2)]
    game.players = []
    held: list[tuple[list[str], list[str]]] = [([], []) for _ in range(n)]
    for card in pool:
        if rng.random() < 0.15:
            continue  # sold
        seat = rng.choice(owners) if rng.random() < 0.7 else rng.randrange(n)
        held[seat][oracle.is_ship(card)].append(card)
    for seat in range(n):
        p = Player(seat, f"B{seat}")
        poor = rng.random() < 0.15
        p.sabres = rng.randint(0, 9)
        p.ducats = rng.randint(0, 3) if poor else rng.randint(0, 30)
        p.jewels = 0 if poor else rng.randint(0, 5)
        islands_held, ships_held = held[seat]
        into_rows = [s for s in ships_held if rng.random() < 0.5]
        if poor:
            islands_held = []
        p.rows = _rows(rng, islands_held, into_rows)
        placed = {c for row in p.rows.values() for c in row}
        p.lone = [s for s in ships_held if s not in placed]
        if seat == hoarder and hoard:
            p.lone = list(hoard)
        game.players.append(p)

    game.end_triggered = shown > 0
    game.revealer = rng.randrange(n) if shown else None
    game.remaining = None
    game.final_order = []
    game.phase = "turns"
    if not shown:
        game.seat = rng.randrange(n)
    else:
        final = rng.random() < 0.5 or (game.end_rule == "round" and game.revealer == n - 1)
        assert game.revealer is not None
        if game.end_rule == "round":
            start = 0
            if not final:
                game.seat = rng.randint(game.revealer + 1, n - 1)
        else:
            start = (game.revealer + 1) % n
            if not final:
                k = rng.randint(1, n)  # the k-th turn after the trigger turn
                game.seat = (game.revealer + k) % n
                game.remaining = n - k + 1
        if final:
            game.phase = "final_round"
            j = rng.randrange(n)
            game.final_order = [(start + i) % n for i in range(j, n)]
            game.seat = game.final_order[0]
    if game.phase == "turns":
        game.step = rng.choice(["buy", "buy", "fight", "place"])
    else:
        game.step = "fight"
    game._settle()
    return None if game.phase == "ended" else game


def built(rng: random.Random, count: int) -> Iterator[OracleGame]:
    """``count`` games of ``build`` (its attempts that ended the game skipped)."""
    made = 0
    while made < count:
        game = build(rng)
        if game is not None:
            made += 1
            yield game


def to_engine(game: OracleGame) -> Any:
    """The engine state of ``game``, through the engine's determinization API."""
    assert game.seat is not None
    n = game.n
    turns_left = 0
    if game.phase == "turns" and game.end_triggered:
        if game.end_rule == "round":
            turns_left = n - 1 - game.seat
        else:
            assert game.remaining is not None
            turns_left = game.remaining - 1
    revealer = game.revealer
    final_start = 0
    if game.end_rule == "one_more_turn" and revealer is not None:
        final_start = (revealer + 1) % n
    order = [c for c in game.deck if not oracle.is_ship(c)]
    obs = Observation(
        seat=game.seat,
        options={"end_rule": game.end_rule, "color_bonus": game.color_bonus},
        colors=tuple(COLORS),
        phase=game.phase,
        step=game.step,
        current_seat=game.seat,
        end_triggered=game.end_triggered,
        revealer=revealer,
        turns_left=turns_left,
        final_start=final_start,
        final_left=len(game.final_order) if game.phase == "final_round" else 0,
        seq=0,
        display=tuple(game.display),
        pirate_table=tuple(game.pirate),
        players=tuple(
            PlayerObservation(p.name, p.sabres, p.ducats, p.jewels,
                              tuple((c, tuple(p.rows[c])) for c in COLORS if c in p.rows),
                              tuple(p.lone), 1)
            for p in game.players),
        unseen=tuple(sorted(order)),
        ships_in_deck=tuple(c for c in game.deck if oracle.is_ship(c)),
        legal=(),
    )
    return determinize(obs, order=order)


def _engine_apply(state: Any, action: dict[str, Any]) -> Any | None:
    """The state after ``action`` (``None`` if the engine refuses it)."""
    try:
        message = ACTIONS.decode(action)
        events = EINAUGE.decide(state, message)
    except IllegalAction:
        return None
    after = state.copy()
    for event in events:
        after = EINAUGE.evolve(after, event)
    return after


def _oracle_apply(game: OracleGame, action: dict[str, Any]) -> OracleGame | None:
    after = copy.deepcopy(game)
    try:
        after.apply(action)
    except ValueError:
        return None
    return after


def _junk(game: OracleGame, rng: random.Random) -> dict[str, Any]:
    card = rng.choice([*oracle.CARDS, *SHIPS])
    action: dict[str, Any] = {
        "type": rng.choice(["buy", "fight", "place", "sell_card", "sell_jewel", "pass"]),
        "seat": game.seat if rng.random() < 0.8 else rng.randrange(game.n),
    }
    if action["type"] not in ("sell_jewel", "pass"):
        action["card"] = card
    if action["type"] in ("buy", "fight") and rng.random() < 0.6:
        action["row"] = rng.choice([*COLORS, "alone"])
    return action


def _coverage(game: OracleGame, action: dict[str, Any], after: OracleGame, seen: Counter[str]):
    seat = action["seat"]
    before, now = game.players[seat], after.players[seat]
    if action["type"] == "sell_card" and len(now.lone) > len(before.lone):
        seen["row_dissolved"] += 1
    if len(before.lone) > 6 and len(now.lone) < len(before.lone) and now.lone:
        seen["lone_surplus_kept"] += 1
    if after.phase == "ended":
        seen["game_ended"] += 1


def test_built_states_agree() -> None:
    rng = random.Random(2026)
    seen: Counter[str] = Counter()
    problems: list[str] = []
    for game in built(rng, 400):
        p = game.players[game.seat]
        if not game.display:
            seen["display_empty"] += 1
        if len(p.lone) > 6:
            seen["many_lone_ships"] += 1
        state = to_engine(game)
        if _view(state) != game.view():
            problems.append(f"transplant: {_view(state)} != {game.view()}")
            continue
        for seat in range(game.n):
            engine_legal = [a.to_dict() for a in EINAUGE.legal_actions(state, seat)]
            if _key(engine_legal) != _key(game.legal_actions(seat)):
                problems.append(f"legal seat {seat}: {engine_legal} vs "
                                f"{game.legal_actions(seat)} in {game.view()}")
        legal = game.legal_actions(game.seat)
        tries = rng.sample(legal, min(8, len(legal))) + [_junk(game, rng) for _ in range(4)]
        for action in tries:
            engine_after = _engine_apply(state, action)
            oracle_after = _oracle_apply(game, action)
            if (engine_after is None) != (oracle_after is None):
                problems.append(f"verdict on {action}: engine accepts={engine_after is not None}"
                                f" in {game.view()}")
                continue
            if engine_after is None or oracle_after is None:
                continue
            _coverage(game, action, oracle_after, seen)
            if _view(engine_after) != oracle_after.view():
                problems.append(f"after {action}: {_view(engine_after)} != "
                                f"{oracle_after.view()} from {game.view()}")
        if len(problems) > 5:
            break
    assert not problems, "\n".join(problems[:3])
    for case in ("row_dissolved", "lone_surplus_kept", "display_empty", "game_ended"):
        assert seen[case] > 0, (case, seen)


def test_poverty_skips_the_buy_step() -> None:
    """RULES: the buy step is skipped when ducats + 3·jewels + 5·island cards cannot pay
    for the cheapest display card; with one ducat more the player must buy."""
    deck = [f"{c}-{p}" for c in COLORS[:5] for p in range(2, 9)]
    deck.sort(key=lambda c: -oracle.price_of(c))  # dear cards first: a dear display
    for short in (1, 0):
        game = OracleGame(["A", "B"], {}, deck)
        game.seat, game.step = 1, "place"  # seat 1 ends its turn; seat 0 is poor
        poor = game.players[0]
        poor.sabres, poor.jewels = 0, 0
        place = {"type": "place", "seat": 1, "card": game.display[-1]}
        cheapest = min(oracle.price_of(c) for c in game.display if c != place["card"])
        cheapest = min(cheapest, oracle.price_of(game.deck[0]))  # the refill
        poor.ducats = cheapest - short
        state = to_engine(game)
        engine_after = _engine_apply(state, place)
        oracle_after = _oracle_apply(game, place)
        assert engine_after is not None and oracle_after is not None
        assert _view(engine_after) == oracle_after.view()
        assert oracle_after.seat == 0
        assert (oracle_after.step == "buy") == (short == 0)
