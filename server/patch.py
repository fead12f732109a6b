"""View patches in RFC 6902 (JSON Patch): what a delta's ``patch`` holds.

A client holds the last view it was sent and applies each delta's patch with a JSON Patch
library (``fast-json-patch`` in client-web, ``jsonpatch`` in the tests), so a patch is
correct for any view shape: a key that disappears is a ``remove``, a new one an ``add``,
a changed one a ``replace`` of that value (``DEPTH`` levels down at most).

Patches stop ``DEPTH`` levels down on purpose: a full deep diff (``jsonpatch.make_patch``)
cost 1.2 ms per view of a 4-player table on the machine of docs/benchmarks.md (this
takes microseconds), and a changed value down there is small (a player, a pile). The
first patch of a viewer replaces the whole document (path ``""``), so folding the patches
1…k of a viewer from any document gives its view at k (the replay viewer relies on it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def escape(key: str) -> str:
    """``key`` as one JSON Pointer reference token (RFC 6901 §4: ``~`` → ``~0``,
    ``/`` → ``~1``)."""
    return key.replace("~", "~0").replace("/", "~1")


def whole(view: Any) -> list[dict[str, Any]]:
    """The patch that turns any document into ``view``."""
    return [{"op": "replace", "path": "", "value": view}]


DEPTH = 2
"""Levels a patch descends into before it replaces a value whole: ``/players/2`` rather
than ``/players``, so when one player's public holdings change every viewer who cannot
see that player's hand gets the same patch (and the same frame) as the spectators."""


def diff(before: Any, after: Any) -> list[dict[str, Any]]:
    """An RFC 6902 patch from ``before`` to ``after`` (``before`` ``None``: the viewer has
    no view yet, so the whole document). Per object: removed keys first, then changed
    and added keys in ``after``'s order; objects and equally long arrays are descended
    into ``DEPTH`` levels deep. Deterministic for equal inputs (every process computes
    the same frame)."""
    if before is None:
        return whole(after)
    ops: list[dict[str, Any]] = []
    _diff(before, after, "", DEPTH, ops)
    return ops


def _diff(before: Any, after: Any, path: str, depth: int, ops: list[dict[str, Any]]) -> None:
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        ops.extend({"op": "remove", "path": f"{path}/{escape(k)}"}
                   for k in before if k not in after)
        for k, value in after.items():
            where = f"{path}/{escape(k)}"
            if k not in before:
                ops.append({"op": "add", "path": where, "value": value})
            elif before[k] != value:
                _changed(before[k], value, where, depth, ops)
    elif (isinstance(before, list) and isinstance(after, list)
          and len(before) == len(after)):
        for i, (old, new) in enumerate(zip(before, after, strict=True)):
            if old != new:
                _changed(old, new, f"{path}/{i}", depth, ops)
    else:
        ops.append({"op": "replace", "path": path, "value": after})


def _changed(old: Any, new: Any, path: str, depth: int, ops: list[dict[str, Any]]) -> None:
    if depth > 1 and ((isinstance(old, Mapping) and isinstance(new, Mapping))
                      or (isinstance(old, list) and isinstance(new, list)
                      and len(old) == len(new))):
        _diff(old, new, path, depth - 1, ops)
    else:
        ops.append({"op": "replace", "path": path, "value": new})
