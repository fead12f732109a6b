"""Golden games: fixed seeds must keep giving the same Loot Island games, byte for byte.

Speed work on the engine must not change a single game. For each player count, 20 games
(seeds ``golden-<n>-<i>``, every seat picking ``legal[randrange(len(legal))]`` from one
``random.Random("golden-<n>")``) are played through the public API; the SHA-256 of every
event's wire form (sorted-key JSON, one line each) must equal the digest below, which the
engine wrote when these tests were added (checked against the rules by the other tests of
this directory). A change that alters any game (a rule fix, a new legal-action order)
fails here on purpose: if it is meant, print the new digests with
``.venv/bin/python -m tests.engine.loot_island.test_golden`` and say so in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from engine.loot_island import LOOT_ISLAND as G
from engine.selfplay import random_playout

GAMES = 20
DIGESTS = {
    2: "6e0b8a84bbdf3f4e92f9b36752d61a5ed650087931f0993d7e31babc9cb2bdbd",
    3: "bce8a733ec3e43101fef23a2fee625aa28352152a567f6c8b3fd249e70be4bfe",
    4: "b93f31a3fba34fb853d445ebde9cbdc593c4494adf6b816416233fbaa6dbb636",
    5: "973de5eb476048db11262efb557f5fc337cb48860604e8b2ff174940c6b2562c",  # minimum 5
}


def digest(n: int) -> str:
    h = hashlib.sha256()
    rng = random.Random(f"golden-{n}")
    for i in range(GAMES):
        events = G.start([f"p{k}" for k in range(n)], {}, f"golden-{n}-{i}")
        state = G.replay(events)
        random_playout(G, state, rng, None, events)
        for e in events:
            h.update(json.dumps(e.to_dict(), sort_keys=True).encode() + b"\n")
    return h.hexdigest()


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_golden_games(n: int) -> None:
    assert digest(n) == DIGESTS[n]


if __name__ == "__main__":
    for n in (2, 3, 4, 5):
        print(n, digest(n))
