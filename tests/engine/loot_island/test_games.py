"""Complete random games for 2-5 players: they end, their results equal an independent
recomputation, and they are deterministic and replayable."""

from __future__ import annotations

import random

import pytest

from engine import get_game
from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island import events as ev
from engine.loot_island.data import MAP_IDS
from engine.selfplay import random_playout
from tests.engine.loot_island.helpers import check_cards
from tests.engine.loot_island.oracle import LOOT as ORACLE_LOOT
from tests.engine.loot_island.oracle import require_rules, score


def _game(seed: str, n: int, options: dict | None = None) -> tuple[object, list, list]:
    events = G.start([f"P{i}" for i in range(n)], options or {}, seed)
    state = G.replay(events)
    actions: list = []
    random_playout(G, state, random.Random(seed), actions, events)
    return state, actions, events


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("k", range(4))
def test_random_games_end_with_scores_equal_to_an_independent_recomputation(n: int,
                                                                           k: int) -> None:
    require_rules()
    options = {"events": k != 3}
    state, actions, events = _game(f"games-{n}-{k}", n, options)
    assert G.is_over(state)
    check_cards(state)
    ps = state.players  # type: ignore[attr-defined]
    result = state.result  # type: ignore[attr-defined]
    curses = [p.cubes >= 13 for p in ps]
    want = score([p.loot for p in ps], [p.cubes for p in ps], [p.healer for p in ps], curses,
                 state.start_seat)  # type: ignore[attr-defined]
    assert [s["total"] if s["eliminated"] != "curses" else None
            for s in result["scores"]] == want["totals"]
    assert result["winners"] == want["winners"]
    assert [s["seat"] for s in result["scores"] if s["eliminated"] == "cannot_pay"] \
        == want["cannot_pay"]
    # every kept or discarded loot card came from the deck, once
    loot = [c for p in ps for c in p.loot] + state.loot_discard + state.loot_deck  # type: ignore[attr-defined]
    assert sorted(loot) == sorted(ORACLE_LOOT)
    # the cubes follow from the events
    cubes = [3] * n
    for e in events:
        if isinstance(e, ev.CubesTaken | ev.LootTaken):
            cubes[e.seat] += e.cubes
        elif isinstance(e, ev.CubesShed | ev.LootDiscarded):
            cubes[e.seat] -= e.cubes
    assert cubes == [p.cubes for p in ps] and min(cubes) >= 0
    assert sum(isinstance(e, ev.RoundStarted) for e in events) == 4
    assert len(actions) > 0


def test_games_are_deterministic_and_replay_to_the_same_state() -> None:
    s1, a1, e1 = _game("det", 4)
    s2, a2, e2 = _game("det", 4)
    assert [e.to_dict() for e in e1] == [e.to_dict() for e in e2] and a1 == a2
    assert G.view(s2, None) == G.view(s1, None)
    replayed = G.replay(e1)
    for viewer in (None, 0, 3):
        assert G.view(replayed, viewer) == G.view(s1, viewer)
    decoded = G.replay([G.events.decode(e.to_dict()) for e in e1])
    assert G.view(decoded, None) == G.view(s1, None)
    _, _, e3 = _game("det-other", 4)
    assert [e.to_dict() for e in e3] != [e.to_dict() for e in e1]


def test_decide_never_changes_the_state() -> None:
    rng = random.Random(3)
    events = G.start(["a", "b", "c"], {}, "pure")
    state = G.replay(events)
    while not G.is_over(state):
        seat = G.to_move(state)[0]
        legal = G.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        before = G.view(state, seat), G.view(state, None)
        new = G.decide(state, action)
        assert (G.view(state, seat), G.view(state, None)) == before
        assert G.play(state, action) == new


def test_registered_next_to_einauge() -> None:
    assert get_game("loot-island") is G and get_game("einauge").name == "einauge"
    assert (G.min_players, G.max_players, G.uniform_view) == (2, 5, False)
    assert len(MAP_IDS) == 88


def test_replay_matches_the_live_state_at_every_step_and_messages_round_trip() -> None:
    rng = random.Random(9)
    events = G.start(["a", "b", "c"], {}, "steps")
    state = G.replay(events)
    while not G.is_over(state):
        seat = G.to_move(state)[0]
        legal = G.legal_actions(state, seat)
        for a in legal[:50]:
            assert G.actions.decode(a.to_dict()) == a
        new = G.play(state, legal[rng.randrange(len(legal))])
        assert all(G.events.decode(e.to_dict()) == e for e in new)
        events.extend(new)
        replayed = G.replay(events)
        for viewer in (None, seat):
            assert G.view(replayed, viewer) == G.view(state, viewer)


def test_everyone_eliminated_means_no_winner() -> None:
    from tests.engine.loot_island.helpers import Table, to_round
    t = Table(2, seed="all-out", options={"events": False})
    to_round(t, 5)
    t.arrange(cubes=[13, 20])
    t.pass_all()
    assert G.is_over(t.state)
    assert t.state.result == {"scores": [
        {"seat": i, "eliminated": "curses", "cubes": c, **dict.fromkeys(
            ["healer", "gold", "jewels", "crosses", "crowns", "skulls", "books", "book_pairs",
             "amulets", "start_marker", "subtotal", "healer_cost", "total"])}
        for i, c in ((0, 13), (1, 20))], "winners": []}
    assert t.of(ev.HealersRevealed)[0].order == []  # type: ignore[attr-defined]


def test_the_shared_self_play_loop_and_random_bot_play_loot_island() -> None:
    from engine.bots.random_bot import RandomBot
    from engine.selfplay import play_game
    game = play_game(G, ["a", "b", "c", "d", "e"], {}, "selfplay",
                     [RandomBot(i) for i in range(5)])
    assert G.is_over(game.state) and game.events[-1].type == "game_ended"
    again = play_game(G, ["a", "b", "c", "d", "e"], {}, "selfplay",
                      [RandomBot(i) for i in range(5)])
    assert again.actions == game.actions
