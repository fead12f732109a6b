"""View patches in RFC 6902 (JSON Patch): what a delta's ``patch`` holds.

A client holds the last view it was sent and applies each delta's patch with a JSON Patch
library (``fast-json-patch`` in client-web, ``jsonpatch`` in the tests), so a patch is
correct for any view shape: a key that disappears is a ``remove``, a new one an ``add``,
a changed one a ``replace`` of that value (``DEPTH`` levels down at most).

Patches stop ``DEPTH`` levels down on purpose: a full deep diff (``jsonpatch.make_patch``)
cost 1.2 ms per view of a 4-player table on the machine of docs/benchmarks.md (this
takes microseconds), and a changed value down there is small (a row of cards, a count).
A list that grew or shrank is patched at its ends when little changed (a card taken from
the display, cards revealed into it: a ``remove`` and two ``add``s, not the whole list).
The first patch of a viewer replaces the whole document (path ``""``), so folding the
patches 1…k of a viewer from any document gives its view at k (the replay viewer relies
on it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def escape(key: str) -> str:
    """``key`` as one JSON Pointer reference token (RFC 6901 §4: ``~`` → ``~0``,
    ``/`` → ``~1``)."""
    if "~" not in key and "/" not in key:  # nearly every key: no copies
        return key
    return key.replace("~", "~0").replace("/", "~1")


_NOT_MAPS = frozenset((list, str, int, float, bool, type(None)))
_SCALARS = frozenset((str, int, float, bool, type(None)))
"""The types of a view's leaves: a changed one is replaced, nothing to descend into."""
_LIST_SCALARS = frozenset((str, int))
"""The element types of a list patched element by element (``_scalars``)."""


def _is_map(value: Any) -> bool:
    # Views are plain dicts, lists and scalars: exact type checks spare them the ABC
    # machinery of ``isinstance(value, Mapping)`` (a third of a diff's time); any other
    # mapping still counts as one.
    t = type(value)
    return t is dict or (t not in _NOT_MAPS and isinstance(value, Mapping))


def whole(view: Any) -> list[dict[str, Any]]:
    """The patch that turns any document into ``view``."""
    return [{"op": "replace", "path": "", "value": view}]


DEPTH = 4
"""Levels a patch descends into before it replaces a value whole: ``/players/2/rows/red``
rather than ``/players/2``. Below a player's entry the ops of the viewers who cannot see
that player's hand are still the spectators' ops, so they share the spectators' frame."""

LIST_OPS = 4
"""At most this many element ops patch a list whose length changed; more: the list whole."""


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
    if (type(before) is dict and type(after) is dict) or (_is_map(before) and _is_map(after)):
        first = len(ops)
        added = 0
        for k, value in after.items():
            if k not in before:
                added += 1
                ops.append({"op": "add", "path": f"{path}/{escape(k)}", "value": value})
                continue
            old = before[k]
            if old != value:  # most keys are unchanged: no path built for them
                key = k if "~" not in k and "/" not in k else escape(k)
                if type(old) in _SCALARS:  # a count, a name, a flag: most changes
                    ops.append({"op": "replace", "path": f"{path}/{key}", "value": value})
                else:
                    _changed(old, value, f"{path}/{key}", depth, ops)
        if len(before) + added != len(after):
            # Keys of ``before`` are gone (it has more than ``after`` shares with it): their
            # removals go first, as the patch applies in order.
            ops[first:first] = [{"op": "remove", "path": f"{path}/{escape(k)}"}
                                for k in before if k not in after]
    elif isinstance(before, list) and isinstance(after, list):
        if len(before) == len(after) and not _scalars(before, after):
            for i, (old, new) in enumerate(zip(before, after, strict=True)):
                if old != new:
                    _changed(old, new, f"{path}/{i}", depth, ops)
        else:
            ops.extend(_edits(before, after, path))
    else:
        ops.append({"op": "replace", "path": path, "value": after})


def _scalars(before: list[Any], after: list[Any]) -> bool:
    # True when every element of both is exactly a str or an int (a bool is not). Sets of
    # the types: one comprehension each, not a generator step per element.
    return {type(x) for x in before} <= _LIST_SCALARS and {
        type(x) for x in after} <= _LIST_SCALARS


def _edits(before: list[Any], after: list[Any], path: str) -> list[dict[str, Any]]:
    """Element ops turning the list of scalars ``before`` into ``after``, if at most
    ``LIST_OPS`` do it, else the list whole. After their common head: one element taken
    out (or none) and the rest shifted up, new ones at the end (a card bought from the
    display and others revealed: a ``remove`` and ``add``s); else the elements between
    the common head and tail replaced, removed or added."""
    whole_list = [{"op": "replace", "path": path, "value": after}]
    if not _scalars(before, after):
        return whole_list
    head = 0
    for old, new in zip(before, after, strict=False):
        if old != new:
            break
        head += 1
    for taken in (0, 1):
        rest = before[head + taken:]
        at = head + len(rest)
        if taken <= len(before) - head and after[head:at] == rest:
            if taken + len(after) - at > LIST_OPS:
                break
            return ([{"op": "remove", "path": f"{path}/{head}"}] * taken
                    + [{"op": "add", "path": f"{path}/{i}", "value": after[i]}
                       for i in range(at, len(after))])
    tail = 0
    while (tail < min(len(before), len(after)) - head
           and before[-1 - tail] == after[-1 - tail]):
        tail += 1
    old_mid, new_mid = len(before) - head - tail, len(after) - head - tail
    if max(old_mid, new_mid) > LIST_OPS:
        return whole_list
    common = min(old_mid, new_mid)
    ops = [{"op": "replace", "path": f"{path}/{head + i}", "value": after[head + i]}
           for i in range(common)]
    at = head + common
    ops.extend({"op": "remove", "path": f"{path}/{at}"} for _ in range(old_mid - new_mid))
    ops.extend({"op": "add", "path": f"{path}/{at + i}", "value": after[at + i]}
               for i in range(new_mid - old_mid))
    return ops


def _changed(old: Any, new: Any, path: str, depth: int, ops: list[dict[str, Any]]) -> None:
    if type(old) in _SCALARS:  # a count, a name, a flag (most changes): no type tests
        ops.append({"op": "replace", "path": path, "value": new})
        return
    lists = isinstance(old, list) and isinstance(new, list)
    if ((lists and (depth > 1 or _scalars(old, new)))
            or (depth > 1 and ((type(old) is dict and type(new) is dict)
                               or (_is_map(old) and _is_map(new))))):
        _diff(old, new, path, depth - 1, ops)
    else:
        ops.append({"op": "replace", "path": path, "value": new})
