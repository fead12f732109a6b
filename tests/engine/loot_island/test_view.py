"""Views and projections (CONTRACT §3, RULES "What is hidden and what is public").

The property test builds two games that differ only in one card the viewer has not seen
(another's hand or the map deck: two copies of the same value, so every rule treats them
alike; the loot deck; a set-aside versus an unused healer; a face-down versus an unused
event; two unused events) and plays the same actions in both. The viewer's views and
projections (and a seat's legal actions and bot observation) must be byte-identical until
one of the two cards appears in either game.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.game import Message
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import actions as ac
from engine.loot_island import events as ev
from engine.loot_island.data import MAP_INDEX
from engine.loot_island.setup import shuffled_orders
from engine.loot_island.state import State
from tests.engine.loot_island.helpers import Table, a_first

VIEW_KEYS = ["game", "seq", "round", "phase", "step", "current_seat", "ship", "start_seat",
             "min_cards", "event", "events_seen", "event_deck_count", "islets", "landings",
             "map_deck_count", "map_discard", "map_reshuffles", "loot_deck_count",
             "loot_deck_counts", "loot_discard", "offer", "healers", "players", "result"]
PLAYER_KEYS = ["seat", "name", "hand_count", "hand", "cubes", "loot", "discs_free", "passed",
               "healer", "eliminated"]


def test_view_has_the_contract_fields_in_order() -> None:
    t = Table(4, seed="view", orders={"events_a": a_first("event-a01")})
    v = t.view(1)
    assert list(v) == VIEW_KEYS
    assert list(v["players"][0]) == PLAYER_KEYS
    assert list(v["landings"]) == ["north-1", "north-2", "east-1", "east-2", "south-1",
                                   "south-2", "west-1", "west-2"]
    assert v["landings"]["north-1"] == {"colour": None, "cards": [], "discs": [], "count": 0,
                                        "chests": 0}
    assert (v["phase"], v["step"], v["current_seat"]) == ("actions", "act", 0)
    assert v["map_deck_count"] == 88 - 28 and v["loot_deck_count"] == 74
    assert v["offer"] is None and v["healers"] is None and v["result"] is None


def test_own_hand_only_in_canonical_order() -> None:
    t = Table(3, seed="view", orders={"events_a": a_first("event-a01")})
    for viewer in (None, 0, 1, 2):
        v = t.view(viewer)
        for i, p in enumerate(v["players"]):
            if i == viewer:
                assert p["hand"] == sorted(t.state.players[i].hand, key=MAP_INDEX.__getitem__)
            else:
                assert p["hand"] is None
            assert p["hand_count"] == 7
    spectator = json.dumps(t.view(None))
    for p in t.state.players:
        assert not any(f'"{c}"' in spectator for c in p.hand)
    assert not any(f'"{c}"' in spectator for c in t.state.map_deck)
    assert not any(f'"{c}"' in spectator for c in t.state.loot_deck)
    assert not any(f'"{h}"' in spectator for h in t.state.aside)


def test_project_hides_setup_draws_and_reshuffles() -> None:
    t = Table(2, seed="proj", orders={"events_a": ["event-a02", "event-a01", "event-a03",
                                                    "event-a04", "event-a05", "event-a06"]})
    start = t.events[0]
    for viewer in (None, 0, 1):
        d = G.project(start, viewer)
        assert d is not None and "orders" not in d and "seed" not in d
        dealt = t.events[0].orders["map"]  # type: ignore[attr-defined]
        assert d["hand"] == (None if viewer is None else sorted(
            dealt[7 * viewer:7 * viewer + 7], key=MAP_INDEX.__getitem__))
        assert d["hand_counts"] == [7, 7] and d["map_deck_count"] == 74
        assert d["event"] == "event-a02" and d["event_deck_count"] == 4
        assert d["loot_deck_counts"] == {"I": 21, "II": 16, "III": 16, "IV": 21}
        text = json.dumps(d)
        for i in range(2):
            assert all((f'"{c}"' in text) == (viewer == i) for c in dealt[7 * i:7 * i + 7])
        assert not any(f'"{c}"' in text for c in dealt[14:])
    drawn = t.of(ev.MapCardDrawn)[0]
    assert G.project(drawn, drawn.seat)["card"] == drawn.card  # type: ignore[attr-defined,index]
    assert "card" not in G.project(drawn, 1 - drawn.seat)  # type: ignore[attr-defined,operator]
    assert "card" not in G.project(drawn, None)  # type: ignore[operator]
    reshuffle = ev.MapDeckReshuffled(1, ["map-red-1a", "map-red-2a"])
    assert G.project(reshuffle, 0) == {"type": "map_deck_reshuffled", "reshuffle": 1,
                                       "count": 2}


def test_healers_hidden_until_the_healer_step_and_unused_ones_never() -> None:
    t = Table(2, seed="heal", options={"events": False})
    rng = random.Random(1)
    unused = t.events[0].orders["healers"][2:]  # type: ignore[attr-defined]
    while not G.is_over(t.state):
        text = json.dumps(t.view(None))
        revealed = t.state.phase in ("healers", "ended")
        assert any(f'"{h}"' in text for h in t.state.aside) == revealed
        assert not any(f'"{h}"' in text for h in unused)
        legal = t.legal()
        t.play(legal[rng.randrange(len(legal))])


# --- the property: an unseen card changes nothing the viewer gets -----------------------

def _twin(card: str) -> str:
    return card[:-1] + ("b" if card.endswith("a") else "a")


def _sigma(a: Message, x: str, y: str) -> Message:
    def m(c: Any) -> Any:
        return y if c == x else x if c == y else c
    d = a.to_dict()
    for key in ("cards",):
        if key in d:
            d[key] = [m(c) for c in d[key]]
    if d.get("values"):
        d["values"] = {m(k): v for k, v in d["values"].items()}
    for key in ("card", "healer"):
        if key in d:
            d[key] = m(d[key])
    return ac.ACTIONS.decode(d)


def _perturb(kind: str, orders: dict[str, list[str]], n: int, viewer: int | None,
             rng: random.Random) -> tuple[dict[str, list[str]], str, str] | None:
    o = {k: list(v) for k, v in orders.items()}
    if kind == "map":
        mine = range(viewer * 7, viewer * 7 + 7) if viewer is not None else range(0)
        hidden = [i for i in range(88) if i not in mine]
        i = rng.choice(hidden)
        x = o["map"][i]
        j = o["map"].index(_twin(x))
        if j in mine:
            return None
        o["map"][i], o["map"][j] = o["map"][j], o["map"][i]
        return o, x, o["map"][i]
    if kind == "loot":
        deck = rng.choice(["loot_1", "loot_2", "loot_3", "loot_4"])
        i, j = rng.sample(range(len(o[deck])), 2)
    elif kind == "healer":
        deck, i, j = "healers", rng.randrange(n), rng.randrange(n, 14)
    elif kind == "event_b":
        deck, i, j = "events_b", rng.randrange(4), rng.randrange(4, 12)
    elif kind == "event_b_unused":
        deck = "events_b"
        i, j = rng.sample(range(4, 12), 2)
    else:
        deck = "events_a"
        i, j = rng.sample(range(1, 6), 2)
    x, y = o[deck][i], o[deck][j]
    o[deck][i], o[deck][j] = y, x
    return o, x, y


def _shown(s: State, viewer: int | None, x: str, y: str) -> bool:
    """Whether the rules show ``x`` or ``y`` to ``viewer`` in ``s`` (RULES "What is hidden
    and what is public"), judged from the state, not from the view."""
    if s.phase == "ended":
        return True
    places: list[str] = [*s.map_discard, *s.loot_discard, *(s.offer or []), *s.events_seen]
    places += [c for x_ in s.landings for c in x_.cards]
    places += [c for p in s.players for c in p.loot]
    if viewer is not None:
        places += s.players[viewer].hand
    if s.phase == "healers":
        places += s.aside
    return x in places or y in places


def _shown_during(before: State, events: list[Message], viewer: int | None, x: str,
                  y: str) -> bool:
    """Whether ``_shown`` holds after some of ``events`` applied to ``before`` (a copy)."""
    s = before.copy()
    for e in events:
        s = G.evolve(s, e)
        if _shown(s, viewer, x, y):
            return True
    return False


def _dump(x: Any) -> str:
    return json.dumps(x, separators=(",", ":"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(min_size=1, max_size=8), n=st.integers(2, 5), viewer_pick=st.integers(-1, 4),
       kind=st.sampled_from(["map", "map", "map", "loot", "healer", "event_b",
                             "event_b_unused", "event_a_unused"]),
       play_seed=st.integers(0, 2**32), events=st.booleans())
def test_unseen_cards_change_no_view_or_projection_until_seen(
        seed: str, n: int, viewer_pick: int, kind: str, play_seed: int, events: bool) -> None:
    viewer = None if viewer_pick < 0 or viewer_pick >= n else viewer_pick
    rng = random.Random(play_seed)
    orders = shuffled_orders(seed, {})
    perturbed = _perturb(kind, orders, n, viewer, rng)
    if perturbed is None:
        return
    orders_b, x, y = perturbed
    opts = {"events": events}
    ta = Table(n, seed=seed, options=opts, orders=orders)
    tb = Table(n, seed=seed, options=opts, orders=orders_b)
    secrets = (f'"{x}"', f'"{y}"')

    def seen(*texts: str) -> bool:
        return any(s in t for s in secrets for t in texts)

    pa = _dump([G.project(e, viewer) for e in ta.events])
    pb = _dump([G.project(e, viewer) for e in tb.events])
    va, vb = _dump(ta.view(viewer)), _dump(tb.view(viewer))
    compared = 0
    never_visible = kind in ("event_b_unused", "event_a_unused") or (kind == "event_b"
                                                                     and not events)
    while not seen(pa, pb, va, vb):
        assert pa == pb and va == vb
        if viewer is not None:  # a seat's prompt and its bots' input: the same too
            assert _dump([a.to_dict() for a in G.legal_actions(ta.state, viewer)]) == _dump(
                [a.to_dict() for a in G.legal_actions(tb.state, viewer)])
            assert G.observation(ta.state, viewer) == G.observation(tb.state, viewer)
        compared += 1
        if G.is_over(ta.state):
            break
        legal = ta.legal()
        action = legal[rng.randrange(len(legal))]
        before = (ta.state.copy(), tb.state.copy())
        new_a = ta.play(action)
        new_b = tb.play(_sigma(action, x, y))
        pa = _dump([G.project(e, viewer) for e in new_a])
        pb = _dump([G.project(e, viewer) for e in new_b])
        va, vb = _dump(ta.view(viewer)), _dump(tb.view(viewer))
    if seen(pa, pb, va, vb):  # it appeared: the rules must have shown it to this viewer,
        # at some event of the last action (a card discarded face up may go back into the
        # map deck by a reshuffle within the same action)
        assert compared == 0 or any(_shown_during(b, new, viewer, x, y)
                                    for b, new in zip(before, (new_a, new_b), strict=True))
        assert compared > 0 or _shown(ta.state, viewer, x, y) or _shown(tb.state, viewer, x, y)
    if never_visible:  # compared through the whole game
        assert G.is_over(ta.state) and G.is_over(tb.state)
