"""The Loot Island balance harness (bench/loot_island_balance.py): a small real run, and
its per-game bookkeeping checked against the games themselves."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import loot_island_balance as lb
from engine.loot_island import events as ev


def test_rotation_puts_the_single_policy_on_every_seat() -> None:
    assert [lb.seats_for("greedy-vs-random", 3, i) for i in range(4)] == [
        ["greedy", "random", "random"], ["random", "greedy", "random"],
        ["random", "random", "greedy"], ["greedy", "random", "random"]]
    assert lb.seats_for("random", 2, 5) == ["random", "random"]


def test_game_stats_agree_with_the_game() -> None:
    from engine.loot_island import LOOT_ISLAND as G
    from engine.selfplay import play_game
    seed = "smoke"
    policies = ["greedy", "random", "greedy"]
    bots = [lb._Seat(lb.POLICIES[p](s, seed)) for s, p in enumerate(policies)]
    played = play_game(G, ["a", "b", "c"], {}, seed, bots)
    g = lb.game_stats(played.events, policies)
    assert g["winners"] == played.state.result["winners"]
    used = [e for e in played.events if isinstance(e, ev.IsletUsed)]
    assert sum(v for _, _, v in g["uses"]) == len(used)
    assert sorted(g["aside"]) == sorted(played.state.aside)
    chosen = [e for e in played.events if isinstance(e, ev.HealerChosen)]
    assert [c["healer"] for c in g["healers"]] == [e.healer for e in chosen]
    for c in g["healers"]:
        assert c["healer"] in c["open"]
        if policies[c["seat"]] == "greedy":  # greedy takes the cheapest: nothing to save
            assert c["saving"] >= 0
    assert [r["round"] for r in g["rounds"]] == [1, 2, 3, 4, 5]
    offered = sum(len(e.cards) for e in played.events if isinstance(e, ev.LootOffered)
                  and not _final(played.events, e))
    assert sum(r["loot"] for r in g["rounds"]) == offered
    with pytest.raises(ValueError, match="not ended"):
        lb.game_stats(played.events[:-1], policies)


def _final(events: list, e: object) -> bool:
    i = events.index(e)
    return any(isinstance(x, ev.FinalExplorationStarted) for x in events[:i])


def test_a_small_run_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    assert lb.main(["--games", "4", "--players", "2", "3", "--lineups",
                    "greedy,greedy-vs-random", "--out", str(out)]) == 0
    text = out.read_text()
    assert "### Line-up `greedy`" in text and "### Line-up `greedy-vs-random`" in text
    assert "| `healer-14` |" in text and "| `islet-portage` |" in text
    assert "| `event-b12` |" in text and "--games 4" in text
    games = lb.run("greedy-vs-random", 3, 4, "balance", 1)
    m = lb.summary(games)
    assert m["games"] == 4 and sum(m["by_seat"]) == 4 - m["no_winner"]
    assert m["by_policy"]["greedy"][1] == 4 and m["by_policy"]["random"][1] == 8
    assert sum(h["available"] for h in m["healers"].values()) == 12
    assert lb.run("greedy-vs-random", 3, 4, "balance", 1) == games  # deterministic


def test_unknown_policies_are_refused() -> None:
    with pytest.raises(SystemExit):
        lb.main(["--games", "1", "--lineups", "chess"])


def test_mcts_is_a_policy_of_the_harness() -> None:
    games = lb.run("mcts-vs-greedy", 2, 2, "balance-mcts", 1)
    m = lb.summary(games)
    assert m["games"] == 2 and m["by_policy"]["mcts"][1] == 2
    assert lb.run("mcts-vs-greedy", 2, 2, "balance-mcts", 1) == games  # iterations: fixed
