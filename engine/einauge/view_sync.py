"""Keeping a client view in step with the state, and the JSON Patch that does it.

After every action the server sends each viewer an RFC 6902 patch from the view it holds to
the view now. Building the whole client view (``view.client_view``) and diffing it against
the last one took 13 % of a saturated server's CPU (py-spy, 200 tables; docs/benchmarks.md,
"CPU per action, part 8"); ``sync_view`` instead compares the state with the view field by
field, changes the view in place where they differ and returns the ops for exactly those
changes.

The result is exactly ``client_view(state)`` (equal as JSON; the tests fold these patches
over seeded games of every size and option and compare with a fresh view each time). Op
values are always fresh objects, never the view's or the state's, so a caller may keep the
ops (frames are encoded lazily) while both go on changing.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.einauge.cards import CARDS, CHESTS, COLORS, FIGHT_COST
from engine.einauge.state import State
from engine.einauge.view import client_view, turns_begun

Op = dict[str, Any]


def sync_view(v: dict[str, Any], s: State) -> list[Op]:
    """Change ``v`` (a ``client_view`` of this game, owned by the caller) into
    ``client_view(s)`` in place; return the ops that turn a copy of the old ``v`` into it:
    ``replace`` of changed top-level values, per-key ``add``/``remove`` in ``fight_costs``
    and per player, a row's new card as an element ``add``, any other changed list whole."""
    ops: list[Op] = []
    if len(v["players"]) != len(s.players):  # the start (or a view of another game)
        fresh = client_view(s, None)
        ops.extend({"op": "replace", "path": f"/{k}", "value": copy.deepcopy(value)}
                   for k, value in fresh.items() if v.get(k) != value)
        v.clear()
        v.update(fresh)
        return ops
    _scalars(v, ops, (("seq", s.seq), ("phase", s.phase), ("step", s.step),
                      ("current_seat", s.current_seat), ("end_triggered", s.end_triggered)))
    deck_count = len(s.deck) - s.deck_pos
    if v["deck_count"] != deck_count:  # a card revealed: the islands left may be fewer
        _scalars(v, ops, (("deck_count", deck_count), ("islands_in_deck", len(
            [c for c in s.deck[s.deck_pos:] if CARDS[c].color]))))
    shown = v["display"] != s.display or v["pirate_table"] != s.pirate_table
    for key, cards in (("display", s.display), ("pirate_table", s.pirate_table)):
        if v[key] != cards:
            v[key] = cards[:]
            ops.append({"op": "replace", "path": f"/{key}", "value": cards[:]})
    for i, (e, p) in enumerate(zip(v["players"], s.players, strict=True)):
        # Most actions change one player: the others are passed after one comparison each.
        if (e["ducats"] != p.ducats or e["sabres"] != p.sabres or e["jewels"] != p.jewels
                or e["turns"] != p.turns or e["rows"] != p.rows
                or e["lone_ships"] != p.lone_ships or e["name"] != p.name):
            _player(e, p, f"/players/{i}", ops)
    if v["result"] != s.result:
        v["result"] = copy.deepcopy(s.result)
        ops.append({"op": "replace", "path": "/result", "value": copy.deepcopy(s.result)})
    if v["options"] != s.options:
        v["options"] = dict(s.options)
        ops.append({"op": "replace", "path": "/options", "value": dict(s.options)})
    if tuple(v["colors"]) != s.colors:
        v["colors"] = list(s.colors)
        ops.append({"op": "replace", "path": "/colors", "value": list(s.colors)})
    if shown:
        old = v["fight_costs"]
        new = {c: FIGHT_COST[c] for c in (*s.pirate_table, *s.display)}
        ops.extend({"op": "remove", "path": f"/fight_costs/{c}"} for c in old if c not in new)
        ops.extend({"op": "add", "path": f"/fight_costs/{c}", "value": cost}
                   for c, cost in new.items() if c not in old)
        v["fight_costs"] = new
    _scalars(v, ops, (("turn", turns_begun(s)),))
    return ops


def _scalars(v: dict[str, Any], ops: list[Op], pairs: tuple[tuple[str, Any], ...],
             path: str = "") -> None:
    for key, value in pairs:
        if v[key] != value:
            v[key] = value
            ops.append({"op": "replace", "path": f"{path}/{key}", "value": value})


def _player(e: dict[str, Any], p: Any, path: str, ops: list[Op]) -> None:
    # ``e``: the view's entry of player ``p`` (``view._view``): seat, name, tokens, rows,
    # lone ships, chests per row, turns.
    _scalars(e, ops, (("name", p.name), ("sabres", p.sabres), ("ducats", p.ducats),
                      ("jewels", p.jewels)), path)
    rows, shown, chests = p.rows, e["rows"], e["chests"]
    if shown.keys() != rows.keys() or any(shown[c] != cards for c, cards in rows.items()):
        gone = [c for c in shown if c not in rows]
        for c in gone:
            ops.append({"op": "remove", "path": f"{path}/rows/{c}"})
            ops.append({"op": "remove", "path": f"{path}/chests/{c}"})
        new_rows: dict[str, list[str]] = {}
        new_chests: dict[str, int] = {}
        for c in COLORS:
            cards = rows.get(c)
            if cards is None:
                continue
            count = sum([CHESTS[card] for card in cards])
            old = shown.get(c)
            if old is None:
                ops.append({"op": "add", "path": f"{path}/rows/{c}", "value": cards[:]})
                ops.append({"op": "add", "path": f"{path}/chests/{c}", "value": count})
            elif old != cards:
                if len(cards) == len(old) + 1 and cards[:-1] == old:  # a card joined it
                    ops.append({"op": "add", "path": f"{path}/rows/{c}/{len(old)}",
                                "value": cards[-1]})
                else:
                    ops.append({"op": "replace", "path": f"{path}/rows/{c}",
                                "value": cards[:]})
                if chests[c] != count:
                    ops.append({"op": "replace", "path": f"{path}/chests/{c}", "value": count})
            new_rows[c] = cards[:]
            new_chests[c] = count
        e["rows"], e["chests"] = new_rows, new_chests
    if e["lone_ships"] != p.lone_ships:
        e["lone_ships"] = p.lone_ships[:]
        ops.append({"op": "replace", "path": f"{path}/lone_ships", "value": p.lone_ships[:]})
    _scalars(e, ops, (("turns", p.turns),), path)
