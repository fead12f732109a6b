"""Loot Island prompt sizes: every action listed (the prompt before issue 20) against the
compact form (``Game.legal_form``), in bytes of the ``prompt`` frame.

Run from the repository root: ``.venv/bin/python -m bench.loot_island_prompt [--games N]``.
Plays ``--games`` uniform random games per player count (2-5) and measures, at every
decision, the prompt frame both ways, as msgpack (what the web client gets) and as compact
JSON; reports the largest per step, plus one arranged position: a 1, four printed cards and
both jokers of one colour at an empty board (the worst the listed form reached in tests).
Sizes only, no timing: any machine gives the same figures.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: import the project, not this file
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

import msgpack

from engine.loot_island import LOOT_ISLAND as G
from engine.loot_island.setup import CANONICAL

BIG_HAND = ["map-red-1a", "map-red-3a", "map-red-5b", "map-red-7a", "map-red-9b",
            "map-red-star-a", "map-red-star-b"]


def sizes(state: Any, seat: int) -> dict[str, int]:
    """Actions listed, and the frame's bytes listed and compact (msgpack and JSON)."""
    legal = [a.to_dict() for a in G.legal_actions(state, seat)]
    form = G.legal_form(state, seat)
    listed = {"t": "prompt", "seq": 0, "legal_actions": legal}
    compact = listed if form is None else {"t": "prompt", "seq": 0, "legal_form": form}
    return {"actions": len(legal),
            "listed_msgpack": len(msgpack.packb(listed)),
            "form_msgpack": len(msgpack.packb(compact)),
            "listed_json": len(json.dumps(listed, separators=(",", ":"))),
            "form_json": len(json.dumps(compact, separators=(",", ":")))}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=6)
    args = p.parse_args(argv)
    worst: dict[str, dict[str, int]] = {}
    for n in (2, 3, 4, 5):
        for g in range(args.games):
            rng = random.Random(f"{n}/{g}")
            s = G.replay(G.start([f"P{i}" for i in range(n)], {}, f"prompt-{n}-{g}", None))
            while not G.is_over(s):
                seat = G.to_move(s)[0]
                w = worst.setdefault(f"{s.phase}/{s.step}", {})
                for k, v in sizes(s, seat).items():
                    w[k] = max(w.get(k, 0), v)
                legal = G.legal_actions(s, seat)
                G.play(s, legal[rng.randrange(len(legal))])
    rest = [c for c in CANONICAL["map"] if c not in BIG_HAND]
    orders = {k: list(v) for k, v in CANONICAL.items()}
    orders["map"] = BIG_HAND + rest
    s = G.replay(G.start(["a", "b"], {}, "", orders))
    worst["arranged big hand (actions/act)"] = sizes(s, 0)
    print(json.dumps(worst, indent=1))


if __name__ == "__main__":
    main()
