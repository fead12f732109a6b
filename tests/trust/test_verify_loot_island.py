"""``verify`` on Loot Island records (engine/verify.py, CONTRACT-loot-island §1-2): a
record as the service writes it passes every check; changing any shuffled list (a setup
list, a reshuffle, even below the last card drawn), the server seed or the head fails the
check that covers it. The record is built here exactly as ``server/table/ending.py`` builds it
(``Game.setup_deck``, ``make_record`` with the trust fields, the chain over the spectator
projections); tests/server/test_loot_island_table.py takes one from a real server."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest

from engine.bots import make_bot
from engine.chain import heads, name_commitment, public_events
from engine.loot_island import LOOT_ISLAND as G
from engine.selfplay import play_game
from engine.shuffle import combine_seed, commitment
from engine.verify import CHECKS, FAIL, PASS, verify_record


def service_record(players: int, server_seed: str, events: bool = True) -> dict[str, Any]:
    contributions = [f"c{i}" if i % 2 else "" for i in range(players)]
    seed = combine_seed(server_seed, contributions)
    options = G.check_options({"events": events}, players)
    bots = [make_bot("random", f"{server_seed}/{s}", game=G) for s in range(players)]
    played = play_game(G, [f"p{i}" for i in range(players)], options, seed, bots)
    table_id, commit = f"t-{server_seed}", commitment(server_seed)
    names = [f"p{i}" for i in range(players)]
    salts = [hashlib.sha256(f"{server_seed}/salt/{i}".encode()).hexdigest()
             for i in range(players)]
    committed = [name_commitment(salt, name) for salt, name in zip(salts, names, strict=True)]
    head = heads(table_id, commit, public_events(G, played.events, committed))[-1].hex()
    return G.make_record(names, options, seed, G.setup_deck(played.events), played.actions,
                         server_seed=server_seed, commitment=commit,
                         contributions=contributions, table_id=table_id, head=head,
                         result=G.result(played.state), seat_changes=[], resigned=[],
                         name_salts=salts, name_commitments=committed)


def statuses(record: Any) -> dict[str, str]:
    return {c.name: c.status for c in verify_record(record).checks}


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    # Random play reshuffles the map deck at least once in this game (asserted below).
    return service_record(4, "verify-loot")


def test_a_service_record_passes_every_check(record: dict[str, Any]) -> None:
    assert record["orders"]["map_reshuffles"], "pick a game with a reshuffle"
    assert statuses(record) == dict.fromkeys(CHECKS, PASS)
    deck = next(c for c in verify_record(record).checks if c.name == "deck")
    assert "map_reshuffles as the seed gives them" in deck.detail
    for n, events in ((2, False), (5, True)):
        assert statuses(service_record(n, f"v{n}", events)) == dict.fromkeys(CHECKS, PASS)


@pytest.mark.parametrize("key", ["map", "loot_1", "loot_4", "healers", "events_a",
                                 "events_b"])
def test_a_changed_setup_list_fails_the_deck_check(record: dict[str, Any], key: str) -> None:
    r = copy.deepcopy(record)
    lst = r["orders"][key]
    lst[-1], lst[-2] = lst[-2], lst[-1]  # the bottom: often never seen in the game at all
    checks = {c.name: c for c in verify_record(r).checks}
    assert checks["deck"].status == FAIL and f"orders.{key}" in checks["deck"].detail


def test_a_changed_reshuffle_fails_even_where_no_card_was_drawn(
        record: dict[str, Any]) -> None:
    r = copy.deepcopy(record)
    entry = r["orders"]["map_reshuffles"][-1]
    entry[-1], entry[-2] = entry[-2], entry[-1]
    checks = {c.name: c for c in verify_record(r).checks}
    assert checks["deck"].status == FAIL and "map_reshuffles" in checks["deck"].detail
    # A reshuffle entry holding other cards than the discard pile is an illegal replay.
    r = copy.deepcopy(record)
    r["orders"]["map_reshuffles"][0] = r["orders"]["map_reshuffles"][0][1:]
    assert statuses(r)["replay"] == FAIL


def test_the_orders_are_required_and_typed_in_a_service_record(
        record: dict[str, Any]) -> None:
    r = {k: v for k, v in record.items() if k != "orders"}
    assert statuses(r)["fields"] == FAIL
    r = {**record, "orders": ["map-red-1a"]}
    assert statuses(r)["fields"] == FAIL


def test_commitment_and_chain_cover_the_trust_fields(record: dict[str, Any]) -> None:
    assert statuses({**record, "server_seed": "other"})["commitment"] == FAIL
    assert statuses({**record, "head": "0" * 64})["chain"] == FAIL
    wrong = copy.deepcopy(record)
    wrong["result"]["scores"][0]["total"] += 1
    assert statuses(wrong)["result"] == FAIL


def test_a_plain_record_checks_its_shuffles_against_its_seed() -> None:
    """No trust fields: the seed and the orders are still compared (CONTRACT §1)."""
    r = service_record(3, "plain")
    plain = {k: r[k] for k in ("game", "players", "options", "seed", "orders", "actions")}
    assert statuses(plain)["deck"] == PASS and verify_record(plain).ok
    seedless = {k: v for k, v in plain.items() if k != "seed"}
    assert statuses(seedless)["deck"] == "not run" and verify_record(seedless).ok
