"""Is the stored stream the one this process cached? (docs/reliability.md, "Redis lost writes")

A process caches each table it serves as the fold of the events it has seen (its seq and
chain head). If Redis loses recent writes (restarted from an older append-only file or
without one, or a replica that lagged was promoted), the stored stream is shorter than the
cache, or another one that reuses its seqs. Every chain head commits to the whole history
before it, so two streams are the same up to seq ``n`` exactly when their heads at ``n``
are equal. These pure functions compare what the process holds with what Redis or a
published message says; on anything but a match the caller syncs with Redis, and a sync
that sees another stream rebuilds the table from Redis and resends every socket a welcome.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

Published = Literal["apply", "old", "check"]


def published(seq: int, head_at: Callable[[int], str | None], first: int, prev: str | None,
              heads: Sequence[str]) -> Published:
    """What to do with a published message of entries ``first …`` (``heads``: each
    entry's chain head, hex; ``prev``: the head the appender built on, if it said) for a
    table cached at ``seq`` whose head after seq ``n`` is ``head_at(n)`` (``None`` when
    no longer known).

    ``apply``: the entries continue the cached stream (the first one follows ``seq`` and
    was built on the cached head, or an older entry's head matches). ``old``: every entry
    is at or before ``seq`` and the heads known match (the echo of this process's own
    append). ``check``: a gap, a head that differs, or nothing to compare with: sync with
    Redis, which decides (``stored``)."""
    last = first + len(heads) - 1
    if not heads or first > seq + 1:
        return "check"
    compared = False
    for n in range(first, min(last, seq) + 1):
        known = head_at(n)
        if known is None:
            continue
        if known != heads[n - first]:
            return "check"
        compared = True
    if last <= seq:
        return "old" if compared else "check"
    if first == seq + 1:
        # Nothing overlaps: the message must say it was built on the cached head.
        return "apply" if prev is not None and prev == head_at(seq) else "check"
    return "apply"  # the entry at ``seq`` itself matched (``head_at(seq)`` is always known)


Stored = Literal["same", "ahead", "other"]


def stored(seq: int, head: str, stored_seq: int, stored_head: str) -> Stored:
    """Compare the cached ``seq``/``head`` with the stored meta's. ``same``: nothing new;
    ``ahead``: Redis holds more (the caller checks the stored entry at ``seq`` with
    ``continues``); ``other``: Redis holds less, or another stream at the same seq."""
    if stored_seq > seq:
        return "ahead"
    if stored_seq == seq and stored_head == head:
        return "same"
    return "other"


def continues(seq: int, head: str, entry_heads: Sequence[str]) -> bool:
    """True when the stored heads ``entry_heads`` (from seq ``seq`` on, or from seq 1 when
    ``seq`` is 0) start with the cached ``head`` at ``seq``: the stored stream extends the
    cached one."""
    if seq == 0:
        return True
    return bool(entry_heads) and entry_heads[0] == head
