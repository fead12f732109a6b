"""bench/analysis_quality.py on a few actions: it prints its table, one row per game, and
the agreement it reports is counted from the two analyses."""

from __future__ import annotations

from bench.analysis_quality import main, measure


def test_measure_counts_agreement_of_the_two_budgets() -> None:
    m = measure("keltis", "smoke", 6, 4.0, 8.0)
    assert m["actions"] == 6
    assert 0 <= m["agree"] <= m["judged"] <= 6
    same = measure("keltis", "smoke", 6, 4.0, 4.0)  # a budget against itself agrees
    assert same["agree"] == same["judged"] and same["loss"] == same["long_loss"]


def test_prints_a_row_per_game(capsys) -> None:
    main(["--actions", "3", "--budget-ms", "4", "--long-ms", "8", "--games", "keltis"])
    out = capsys.readouterr().out
    assert "machine:" in out and "load average at the end" in out
    assert sum(1 for line in out.splitlines() if line.startswith("| keltis |")) == 1
