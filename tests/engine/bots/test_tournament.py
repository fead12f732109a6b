"""The tournament command's statistics and seat rotation (cli/tournament.py)."""

from __future__ import annotations

import pytest

from cli.main import main
from cli.tournament import lineup, seating, wilson


def test_wilson_interval() -> None:
    lo, hi = wilson(95, 100)
    assert lo == pytest.approx(0.8882, abs=1e-4)
    assert hi == pytest.approx(0.9785, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        wilson(3, 0)
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_line_up_fills_seats_and_rotates() -> None:
    line = lineup(["greedy", "mcts"], 4)
    assert line == ["greedy", "mcts", "greedy", "mcts"]
    assert [seating(["a", "b", "c"], i) for i in range(3)] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    with pytest.raises(ValueError):
        lineup(["a", "b", "c"], 2)


def test_tournament_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--bots", "greedy,random", "--games", "4", "--seed", "t"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| greedy")
            or line.startswith("| random")]
    assert len(rows) == 2
    assert all(row.split("|")[2].strip() == "4" for row in rows)  # one seat per game each
    with pytest.raises(SystemExit):
        main(["tournament", "--bots", "greedy,chess", "--games", "2"])


def test_parallel_jobs_give_the_same_results(capsys: pytest.CaptureFixture[str]) -> None:
    def table(jobs: int) -> list[str]:
        main(["tournament", "--bots", "greedy,mcts", "--games", "2", "--iterations", "8",
              "--seed", "jobs", "--jobs", str(jobs)])
        lines = capsys.readouterr().out.splitlines()
        # bot, seat-games, win rate, interval, jewels, margin (not the timing columns)
        return ["|".join(line.split("|")[:7]) for line in lines if line.startswith("| ")]

    single = table(1)
    assert len(single) == 3  # header and two bots
    assert table(2) == single


def test_an_eliminated_player_without_a_total_counts_as_zero() -> None:
    """Loot Island leaves the total of a player eliminated by curses empty (``null``):
    game 180 of seed ``1`` (greedy against random) has one."""
    from cli.tournament import play_one
    from engine.bots import make_bot
    from engine.loot_island import LOOT_ISLAND
    from engine.selfplay import play_game

    options = LOOT_ISLAND.check_options({}, 2)
    i, line = 180, ["greedy", "random"]
    kinds = seating(line, i)
    bots = [make_bot(k, f"1-{i}/{s}", game=LOOT_ISLAND) for s, k in enumerate(kinds)]
    played = play_game(LOOT_ISLAND, [f"{k}{s}" for s, k in enumerate(kinds)], options,
                       f"1-{i}", bots)
    totals = [sc["total"] for sc in LOOT_ISLAND.result(played.state)["scores"]]
    assert None in totals
    r = play_one((i, "1", line, None, None, options, "loot-island"))
    assert r.totals == [t if t is not None else 0 for t in totals]
    assert r.margins == [r.totals[0] - r.totals[1], r.totals[1] - r.totals[0]]
