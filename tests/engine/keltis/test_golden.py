"""Golden games: fixed seeds must keep giving the same Keltis games, byte for byte.

Speed work on the engine must not change a single game. For each player count, 50 games
(seeds ``golden-<n>-<i>``, every seat picking ``legal[randrange(len(legal))]`` from one
``random.Random("golden-<n>")``) are played through the public API; the SHA-256 of every
event's wire form (sorted-key JSON, one line each) must equal the digest below, which the
engine wrote when these tests were added (checked against the rules by the other tests
of this directory). A change that alters any game (a rule fix, a new legal-action order)
fails here on purpose: if it is meant, print the new digests with
``.venv/bin/python -m tests.engine.keltis.test_golden`` and say so in the commit.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from engine.keltis import KELTIS
from engine.selfplay import random_playout

GAMES = 50
DIGESTS = {
    2: "3a87cf5c444eb498962ff08c3977fbbe8ae19b38a16881ef8977c552c7cfb89a",
    3: "80cc6cd4d499b090315731a40458407f4702a9bf083eb91ee2bde782f5ff479c",
    4: "e34c00674162ce25b6770659d9dd27d0e5326ad7dcb7e77230eabef8a1c75c0c",
}


def digest(n: int) -> str:
    h = hashlib.sha256()
    rng = random.Random(f"golden-{n}")
    for i in range(GAMES):
        events = KELTIS.start([f"p{k}" for k in range(n)], {}, f"golden-{n}-{i}")
        state = KELTIS.replay(events)
        random_playout(KELTIS, state, rng, None, events)
        for e in events:
            h.update(json.dumps(e.to_dict(), sort_keys=True).encode() + b"\n")
    return h.hexdigest()


@pytest.mark.parametrize("n", sorted(DIGESTS))
def test_golden_games(n: int) -> None:
    assert digest(n) == DIGESTS[n]


if __name__ == "__main__":
    for n in sorted(DIGESTS):
        print(n, digest(n))
