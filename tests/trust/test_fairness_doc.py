"""docs/fairness.md's test vector and example record agree with the engine."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from engine.chain import canonical, chained_form, genesis, link, name_commitment
from engine.einauge.cards import COLORS
from engine.einauge.game import EINAUGE
from engine.einauge.setup import shuffled_deck
from engine.shuffle import RandomStream, combine_seed, commitment
from engine.verify import verify_bytes
from tests.trust.records import example_record

ROOT = Path(__file__).resolve().parents[2]


def vector() -> dict:
    text = (ROOT / "docs" / "fairness.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- test-vector.*?-->\s*```json\n(.*?)```", text, re.S)
    assert block, "docs/fairness.md lost its test vector block"
    return json.loads(block.group(1))


def test_vector_values_are_what_the_engine_computes() -> None:
    v = vector()
    assert commitment(v["server_seed"]) == v["commitment"]
    seed = combine_seed(v["server_seed"], v["contributions"])
    assert seed == v["seed"]
    block = hashlib.sha256(seed.encode() + bytes(8)).hexdigest()
    assert block == v["block_0"]
    # The words are read through the shuffle's own stream: below(2^64 - 1) rejects none here
    # and returns the word itself unless it is 2^64 - 1.
    stream = RandomStream(seed)
    words = [format(stream.below((1 << 64) - 1), "016x") for _ in range(5)]
    assert words == v["first_words_hex"]
    assert block[:16] == words[0]
    stream = RandomStream(seed)
    colors, swaps = list(COLORS), []
    for i in range(len(colors) - 1, 0, -1):
        j = stream.below(i + 1)
        swaps.append([i, j])
        colors[i], colors[j] = colors[j], colors[i]
    assert swaps == v["color_swaps"] and colors == v["shuffled_colors"]
    assert colors[:2] == v["colors_out"]
    assert shuffled_deck(len(v["players"]), seed) == v["deck"]
    started = EINAUGE.start(v["players"], {}, seed)[0]
    assert started.to_dict()["deck"] == v["deck"]
    public = EINAUGE.project(started, None)
    assert canonical(public).decode() == v["event_1_canonical"]
    # The projection as §5 spells it out, built from the vector alone (what a verifier in
    # another language does): no deck; display, pirate table, deck count, colors in play.
    deck = v["deck"]
    spelled = {"type": "game_started", "players": v["players"],
               "options": {"end_rule": "round", "color_bonus": False},
               "display": deck[:6], "pirate_table": deck[6:7], "deck_count": len(deck) + 8 - 7,
               "colors": [c for c in COLORS if c not in v["colors_out"]]}
    assert json.dumps(spelled, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False) == v["event_1_canonical"]
    assert not [c for c in deck[7:] if f'"{c}"' in v["event_1_canonical"]]  # none face down
    h0 = genesis(v["table_id"], v["commitment"])
    assert h0.hex() == v["h0"]
    # Names are chained as salted commitments (§5, "Names"), spelled out here too.
    spelled_names = [hashlib.sha256(f"{salt}:{name}".encode()).hexdigest()
                     for salt, name in zip(v["name_salts"], v["players"], strict=True)]
    assert spelled_names == v["name_commitments"]
    assert [name_commitment(s, n) for s, n in zip(v["name_salts"], v["players"],
                                                   strict=True)] == v["name_commitments"]
    chained = chained_form(public, v["name_commitments"])
    assert canonical(chained).decode() == v["event_1_chained"]
    assert json.dumps({**spelled, "players": v["name_commitments"]}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False) == v["event_1_chained"]
    assert not any(name in v["event_1_chained"] for name in v["players"])
    assert link(h0, chained).hex() == v["h1"]
    assert hashlib.sha256(h0 + v["event_1_chained"].encode()).hexdigest() == v["h1"]


def test_example_record_matches_the_vector_and_verifies() -> None:
    v = vector()
    path = ROOT / "tests" / "trust" / "data" / "example-record.json"
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored == example_record(), "regenerate data/example-record.json from records.py"
    for key in ("server_seed", "commitment", "contributions", "seed", "deck", "players",
                "table_id", "name_salts", "name_commitments"):
        assert stored[key] == v[key]
    report = verify_bytes(path.read_bytes())
    assert report.ok, report.failed()
