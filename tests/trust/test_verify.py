"""``cardtable verify`` (engine/verify.py, cli/verify.py): fair, untampered records pass;
every tampering, down to a single changed byte, fails with a named check."""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import main
from engine.chain import heads, public_events
from engine.einauge.cards import COLORS
from engine.einauge.game import EINAUGE
from engine.einauge.setup import shuffled_deck
from engine.verify import CHECKS, FAIL, NOT_RUN, PASS, verify_bytes, verify_record
from tests.trust.records import compact, random_game, same_json, service_record

RECORD = service_record()
DATA = compact(RECORD)
ROOT = Path(__file__).resolve().parents[2]


def statuses(report) -> dict[str, str]:
    return {c.name: c.status for c in report.checks}


def failed(record) -> dict[str, str]:
    report = verify_record(record)
    assert not report.ok
    return {c.name: c.detail for c in report.failed()}


def test_service_record_passes_every_check() -> None:
    report = verify_record(copy.deepcopy(RECORD))
    assert report.ok
    assert [c.name for c in report.checks] == list(CHECKS)
    assert statuses(report) == dict.fromkeys(CHECKS, PASS)
    assert RECORD["result"] is not None and list(RECORD) == [
        "game", "players", "options", "seed", "deck", "actions", "server_seed", "commitment",
        "contributions", "table_id", "head", "result", "name_salts", "name_commitments"]


@pytest.mark.parametrize("players", [("A", "B", "C"), ("A", "B", "C", "D", "E")])
def test_records_of_other_sizes_and_options_pass(players) -> None:
    record = service_record(f"size-{len(players)}", players,
                            {"end_rule": "one_more_turn", "color_bonus": True})
    assert verify_record(record).ok


def test_plain_contract_record_is_replay_checked_and_says_what_did_not_run() -> None:
    plain = {k: RECORD[k] for k in ("game", "players", "options", "seed", "deck", "actions")}
    report = verify_record(plain)
    assert report.ok
    assert statuses(report) == {"fields": PASS, "commitment": NOT_RUN, "seed": NOT_RUN,
                                "deck": PASS, "replay": PASS, "result": NOT_RUN,
                                "names": NOT_RUN, "chain": NOT_RUN}
    no_deck = {k: v for k, v in plain.items() if k != "deck"}
    report = verify_record(no_deck)
    assert report.ok and statuses(report)["deck"] == NOT_RUN
    plain["actions"] = [*plain["actions"][:-1], {"seat": 9, "type": "pass"}]
    assert "replay" in failed(plain)


def test_removed_colors_are_used_by_the_deck_check() -> None:
    removed = list(COLORS[:3])
    seed = "removed-colors"
    deck = shuffled_deck(2, seed, removed)
    actions, _, state = random_game(["A", "B"], {"removed_colors": removed}, seed, "rc")
    record = {"game": "einauge", "players": ["A", "B"], "options": {"removed_colors": removed},
              "seed": seed, "deck": deck, "actions": [a.to_dict() for a in actions],
              "result": state.result}
    assert verify_record(record).ok
    record["options"] = {"removed_colors": list(COLORS[3:6])}
    assert "deck" in failed(record)


def test_tampered_server_seed_fails_the_commitment() -> None:
    r = copy.deepcopy(RECORD)
    r["server_seed"] = hashlib.sha256(b"chosen by a cheat").hexdigest()
    out = failed(r)
    assert "SHA-256(server_seed)" in out["commitment"] and "seed" in out


def test_tampered_contribution_fails_the_seed() -> None:
    r = copy.deepcopy(RECORD)
    r["contributions"][0] = "mine"
    assert set(failed(r)) == {"seed"}


def test_reordered_deck_fails_the_deck_and_the_chain() -> None:
    r = copy.deepcopy(RECORD)
    r["deck"][20], r["deck"][21] = r["deck"][21], r["deck"][20]
    out = failed(r)
    assert "card 20" in out["deck"]
    assert "deck" in out  # the replay may still be legal; the chain or result catch it too
    assert {"chain", "result", "replay"} & set(out)


def test_seed_and_deck_rebuilt_by_a_cheat_still_fail_the_commitment() -> None:
    """A service that picked another server seed after the commitment cannot hide it."""
    r = copy.deepcopy(RECORD)
    other = hashlib.sha256(b"other").hexdigest()
    r["server_seed"] = other
    r["seed"] = ":".join([other, *r["contributions"]])
    r["deck"] = shuffled_deck(2, r["seed"])
    assert "commitment" in failed(r)


def test_dropped_action_fails_result_and_chain() -> None:
    r = copy.deepcopy(RECORD)
    r["actions"].pop()
    out = failed(r)
    assert {"result", "chain"} <= set(out)


def replayed_events(record):
    events = list(EINAUGE.start(record["players"], record["options"], "", record["deck"]))
    state = EINAUGE.replay(events)
    for action in record["actions"]:
        events += EINAUGE.play(state, EINAUGE.actions.decode(action))
    return events


def tampered(public: dict) -> dict:
    """The public form of an event with one value changed (a card, a number, a name)."""
    out = copy.deepcopy(public)
    for key in sorted(out):
        value = out[key]
        if key == "type":
            continue
        if isinstance(value, bool):
            out[key] = not value
        elif isinstance(value, int):
            out[key] = value + 1
        elif isinstance(value, str):
            out[key] = value + "x"
        elif isinstance(value, list) and value:
            out[key] = value[1:]
        else:
            continue
        return out
    out["note"] = "added"
    return out


def test_a_log_with_any_event_changed_fails_the_chain() -> None:
    """The service showed a log in which one event differed (a revealed card, a price, a
    seat) and exported the head of that log: for every event, ``chain`` fails, and every
    head from that event on differs."""
    r = copy.deepcopy(RECORD)
    publics = public_events(EINAUGE, replayed_events(r), r["name_commitments"])
    honest = heads(r["table_id"], r["commitment"], publics)
    assert honest[-1].hex() == r["head"]
    for k in range(len(publics)):
        log = [*publics[:k], tampered(publics[k]), *publics[k + 1:]]
        shown = heads(r["table_id"], r["commitment"], log)
        assert shown[:k] == honest[:k]
        assert all(a != b for a, b in zip(shown[k:], honest[k:], strict=True)), k
        r["head"] = shown[-1].hex()
        out = failed(r)
        assert set(out) == {"chain"}, (k, out)
        assert "events chain to" not in out["chain"] and str(len(publics)) in out["chain"]


def test_the_chain_covers_each_revealed_card_and_not_the_deck_itself() -> None:
    """Heads follow the public log: another deck with the same cards revealed in the same
    order chains alike (which is why a head tells a spectator nothing), one revealed card
    moved changes them; the secret behind them is pinned by commitment, seed and deck."""
    r = copy.deepcopy(RECORD)
    events = replayed_events(r)
    started = events[0]
    publics = public_events(EINAUGE, events)
    assert "deck" not in publics[0] and "deck" in started.to_dict()
    assert publics[1:] == [e.to_dict() for e in events[1:]]  # the rest unchanged
    # Every island card of the deck is revealed in deck order in a finished game.
    shown = [*publics[0]["display"], *publics[0]["pirate_table"],
             *(p["card"] for p in publics if p["type"] == "card_revealed")]
    assert shown == r["deck"]
    # The same deck with the first two face-down cards of the setup swapped: the shuffle
    # check names it, and where the actions still replay the reveals differ, so the chain.
    swapped = copy.deepcopy(r)
    swapped["deck"][7], swapped["deck"][8] = swapped["deck"][8], swapped["deck"][7]
    out = failed(swapped)
    assert "card 7" in out["deck"]
    assert "replay" in out or "chain" in out, out


def test_a_head_over_the_full_events_fails_the_chain() -> None:
    """A record whose head chains the full events (``game_started`` with its deck: the
    chain before issue 13, which let spectators brute-force the deck) does not verify."""
    r = copy.deepcopy(RECORD)
    r["head"] = heads(r["table_id"], r["commitment"],
                      [e.to_dict() for e in replayed_events(r)])[-1].hex()
    assert set(failed(r)) == {"chain"}


def test_illegal_action_names_its_index() -> None:
    r = copy.deepcopy(RECORD)
    r["actions"][3] = {"seat": 1 - r["actions"][3]["seat"], "type": "pass"}
    assert failed(r)["replay"].startswith("action 3:")
    assert statuses(verify_record(r))["chain"] == NOT_RUN


def test_changed_result_names_the_field() -> None:
    r = copy.deepcopy(RECORD)
    r["result"]["scores"][1]["total"] += 1
    assert failed(r) == {"result": failed(r)["result"]}
    assert "result.scores[1].total" in failed(r)["result"]
    # JSON types count: 0 and false are different values, although Python says 0 == False.
    r = copy.deepcopy(RECORD)
    r["result"]["scores"][0]["color_bonus"] = False
    assert "result.scores[0].color_bonus is false" in failed(r)["result"]


@pytest.mark.parametrize("name", ["server_seed", "commitment", "contributions", "table_id",
                                  "head", "result", "deck", "seed", "game"])
def test_service_record_missing_a_field_fails(name) -> None:
    r = copy.deepcopy(RECORD)
    del r[name]
    assert name in failed(r)["fields"]


def test_not_a_record() -> None:
    for data, words in [(b"[1, 2]", "JSON object"), (b"\xff{}", "not UTF-8"),
                        (b'{"seed": NaN}', "NaN"), (b"{", "not JSON"),
                        (b"[" * 100_000, "nested too deeply")]:
        report = verify_bytes(data)
        assert not report.ok and words in report.checks[0].detail
        assert all(c.status == NOT_RUN for c in report.checks[1:])


def test_cli_prints_each_check_and_sets_the_exit_code(tmp_path, capsys) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(DATA)
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert all(f"pass     {name}" in out for name in CHECKS) and "verified:" in out
    bad = tmp_path / "bad.json"
    bad.write_bytes(DATA.replace(RECORD["head"].encode(), b"0" * 64))
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "FAIL     chain" in out and "NOT verified" in out and "failed: chain" in out
    assert main(["verify", "--json", str(bad)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["checks"][-1]["status"] == FAIL
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cli_does_not_call_a_record_without_commitment_verified(tmp_path, capsys) -> None:
    """A self-play record replays legally but carries no commitment, seed or chain: the
    summary must not read as a proof of a fair shuffle."""
    assert main(["selfplay", "--games", "1", "--players", "3", "--records",
                 str(tmp_path)]) == 0
    [path] = tmp_path.glob("*.json")
    capsys.readouterr()
    assert main(["verify", str(path)]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith(f"replayed, not fully verified: {path}: not run: commitment"), last
    assert not last.startswith("verified")


def test_installed_command_runs(tmp_path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(DATA)
    done = subprocess.run([sys.executable, "-m", "cli", "verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(f"verified: {path}")


MASKS = (0x01, 0x20, 0x80)


def classify(data: bytes) -> str:
    """``unchanged`` (the bytes parse to the same JSON value), or the name of the first
    failed check; asserts that a changed record fails with a message."""
    report = verify_bytes(data)
    try:
        parsed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        parsed = None
    if parsed is not None and same_json(parsed, RECORD):
        assert report.ok
        return "unchanged"
    assert not report.ok, data
    bad = report.failed()
    assert bad and all(c.detail for c in bad)
    if bad[0].name == "fields" and bad[0].detail.startswith(("not JSON", "not UTF-8")):
        return bad[0].detail.split(":")[0]
    return bad[0].name


def test_every_single_byte_change_fails_with_a_named_check() -> None:
    """Every byte of the record's compact JSON, flipped by each of three bit masks (one of
    them makes invalid UTF-8 out of ASCII): the result is unparseable (a clear error) or
    fails a named check, unless it parses to the same JSON value."""
    outcomes: Counter[str] = Counter()
    for i in range(len(DATA)):
        for mask in MASKS:
            mutated = bytearray(DATA)
            mutated[i] ^= mask
            outcomes[classify(bytes(mutated))] += 1
    assert sum(outcomes.values()) == len(DATA) * len(MASKS)
    assert outcomes["unchanged"] == 0, outcomes
    # Every kind of check is reached by some single byte, not only the parser.
    assert set(outcomes) == {"not JSON", "not UTF-8", "fields", "commitment", "seed", "deck",
                             "replay", "chain", "result", "names"}, outcomes
    print(f"\n{sum(outcomes.values())} single-byte mutations: {dict(outcomes)}")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.integers(0, len(DATA) - 1), value=st.integers(0, 255),
       delete=st.booleans())
def test_any_byte_changed_or_deleted_fails(position: int, value: int, delete: bool) -> None:
    mutated = bytearray(DATA)
    if delete:
        del mutated[position]
    elif mutated[position] == value:
        return
    else:
        mutated[position] = value
    classify(bytes(mutated))


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=15)


def leaves(value, path=()):
    """Every (path, leaf) of a JSON value, and every container path too."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, (*path, i))


PATHS = list(leaves(RECORD))[1:]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(PATHS), value=json_values)
def test_any_field_replaced_by_any_value_fails_or_is_equal(path, value) -> None:
    """Replace any field, list item or nested value with any JSON value: the verifier never
    raises, and the record fails unless the value is the same."""
    record = copy.deepcopy(RECORD)
    node = record
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    report = verify_record(record)
    assert [c.name for c in report.checks] == list(CHECKS)
    if same_json(record, RECORD):
        assert report.ok
    else:
        assert not report.ok and all(c.detail for c in report.failed())


@settings(max_examples=100, deadline=None)
@given(value=json_values)
def test_any_json_value_is_reported_not_raised(value) -> None:
    report = verify_record(value)
    assert not report.ok and len(report.checks) == len(CHECKS)


def test_service_record_must_write_options_and_actions_as_the_service_does() -> None:
    """``{}`` means the default options and ``"row": null`` means no row: the same game,
    the same chain, but not what the service wrote, so a service record fails."""
    r = copy.deepcopy(RECORD)
    r["options"] = {}
    assert "options are {}" in failed(r)["replay"]
    r = copy.deepcopy(RECORD)
    r["actions"][1] = {**r["actions"][1], "row": None}
    assert failed(r)["replay"].startswith("action 1:")
    plain = {k: v for k, v in copy.deepcopy(RECORD).items()
             if k in ("game", "players", "options", "seed", "deck", "actions")}
    plain["options"] = {}
    assert verify_record(plain).ok  # CONTRACT §1 lets a plain record rely on defaults
