"""The CLI for any game: ``selfplay --game``, ``record play FILE [--seat N]`` and
``verify FILE`` pick the game from the record's ``game`` field (CONTRACT-keltis §3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from engine.bots import RandomBot
from engine.keltis import KELTIS
from engine.selfplay import play_game
from engine.shuffle import combine_seed, commitment


def test_selfplay_keltis_records_replay_per_seat(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    folder = tmp_path / "k"
    assert main(["selfplay", "--game", "keltis", "--players", "3", "--games", "3",
                 "--seed", "ks", "--records", str(folder)]) == 0
    summary = capsys.readouterr().out
    assert "game: keltis" in summary and "win share" in summary
    files = sorted(folder.glob("*.json"))
    assert len(files) == 3
    for i, f in enumerate(files):
        record = json.loads(f.read_text())
        assert record["game"] == "keltis" and record["options"] == {}
        played = play_game(KELTIS, record["players"], {}, f"ks-{i}",
                           [RandomBot(f"ks-{i}/{s}") for s in range(3)])
        assert main(["record", "play", str(f)]) == 0
        assert json.loads(capsys.readouterr().out) == KELTIS.public_view(played.state)
        assert main(["record", "play", str(f), "--seat", "2"]) == 0
        assert json.loads(capsys.readouterr().out) == KELTIS.public_view(played.state, 2)
        assert main(["record", "play", str(f), "--seat", "3"]) == 1
        out, err = capsys.readouterr()
        assert out == "" and "seat must be 0..2" in err


def test_unfinished_keltis_record_shows_only_the_seats_hand(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture
                                                            ) -> None:
    played = play_game(KELTIS, ["a", "b"], {}, "u", [RandomBot("u0"), RandomBot("u1")])
    record = KELTIS.make_record(["a", "b"], {}, "u", KELTIS.setup_deck(played.events),
                                played.actions[:6])
    path = tmp_path / "u.json"
    path.write_text(json.dumps(record))
    views = []
    for seat in ("0", "1"):
        assert main(["record", "play", str(path), "--seat", seat]) == 0
        views.append(json.loads(capsys.readouterr().out))
    assert main(["record", "play", str(path)]) == 0
    spectator = json.loads(capsys.readouterr().out)
    hands = [[p.get("hand") for p in v["players"]] for v in (*views, spectator)]
    assert hands[0][0] and hands[0][1] is None  # seat 0 sees its hand, not seat 1's
    assert hands[1][1] and hands[1][0] is None
    assert hands[2] == [None, None]


def test_selfplay_refuses_another_games_option(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as e:
        main(["selfplay", "--game", "keltis", "--players", "2", "--games", "1",
              "--color-bonus"])
    assert "unknown option" in str(e.value)
    with pytest.raises(SystemExit) as e:
        main(["selfplay", "--game", "keltis", "--players", "5", "--games", "1"])
    assert "2-4" in str(e.value)


def _service_record(seed_words: list[str]) -> dict:
    server_seed = "ab" * 32
    seed = combine_seed(server_seed, seed_words)
    players = [f"p{i}" for i in range(len(seed_words))]
    played = play_game(KELTIS, players, {}, seed,
                       [RandomBot(f"v{s}") for s in range(len(players))])
    from engine.chain import heads, name_commitment, public_events

    salts = [f"{i:064x}" for i in range(len(players))]
    names = [name_commitment(s, p) for s, p in zip(salts, players, strict=True)]
    head = heads("tid", commitment(server_seed),
                 public_events(KELTIS, played.events, names))[-1]
    return KELTIS.make_record(players, {}, seed, KELTIS.setup_deck(played.events),
                              played.actions, server_seed=server_seed,
                              commitment=commitment(server_seed),
                              contributions=seed_words, table_id="tid", head=head.hex(),
                              result=KELTIS.result(played.state), name_salts=salts,
                              name_commitments=names)


def test_verify_keltis_record(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    record = _service_record(["x", "", "y"])
    path = tmp_path / "k.json"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and {c["name"]: c["status"] for c in report["checks"]} == {
        n: "pass" for n in ("fields", "commitment", "seed", "deck", "replay", "result",
                            "names", "chain")}
    assert "a Keltis record" in report["checks"][0]["detail"]
    # Two cards of the deck swapped: the shuffle check names the first difference.
    record["deck"][3], record["deck"][4] = record["deck"][4], record["deck"][3]
    path.write_text(json.dumps(record))
    assert main(["verify", str(path), "--json"]) == 1
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["deck"]["status"] == "fail" and "card 3" in checks["deck"]["detail"]
    # A Keltis record that claims to be Einauge's does not verify.
    record = _service_record(["x", "y"])
    record["game"] = "einauge"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path), "--json"]) == 1
    assert not json.loads(capsys.readouterr().out)["ok"]
    # The chain: one action less and the head no longer matches.
    record = _service_record(["x", "y"])
    record["actions"] = record["actions"][:-1]
    record["result"] = None
    path.write_text(json.dumps(record))
    assert main(["verify", str(path), "--json"]) == 1
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["chain"]["status"] == "fail"


def test_selfplay_without_game_plays_the_default_game_setting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("CARDTABLE_DEFAULT_GAME", "keltis")
    assert main(["selfplay", "--players", "2", "--games", "1", "--seed", "d",
                 "--records", str(tmp_path)]) == 0
    assert "game: keltis" in capsys.readouterr().out
    assert json.loads(next(tmp_path.glob("*.json")).read_text())["game"] == "keltis"
    monkeypatch.setenv("CARDTABLE_DEFAULT_GAME", "chess")
    with pytest.raises(SystemExit, match="selfplay: CARDTABLE_DEFAULT_GAME='chess'"):
        main(["selfplay", "--players", "2", "--games", "1"])


def test_the_former_command_name_still_runs_and_names_the_new_one(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    from cli.main import legacy_main

    monkeypatch.setattr("sys.argv", ["einauge", "selfplay", "--players", "2", "--games", "1"])
    assert legacy_main() == 0
    out, err = capsys.readouterr()
    assert "win share" in out
    assert err.startswith("einauge: the command is called cardtable now")
