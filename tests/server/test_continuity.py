"""server/table/continuity.py: when a published message or the stored meta continues the cached
stream, and when it does not (Redis lost writes): pure, without Redis."""

from __future__ import annotations

from server.table.continuity import continues, published, stored


def heads(tag: str, first: int, last: int) -> list[str]:
    """Stand-in chain heads of seqs ``first … last`` of stream ``tag``."""
    return [f"{tag}{n}" for n in range(first, last + 1)]


def cached(tag: str, seq: int, kept: int = 256):
    """``head_at`` of a table cached at ``seq`` on stream ``tag`` keeping ``kept`` heads."""
    return lambda n: f"{tag}{n}" if seq - kept < n <= seq else None


def test_the_next_entries_built_on_the_cached_head_apply():
    assert published(10, cached("a", 10), 11, "a10", heads("a", 11, 13)) == "apply"


def test_the_next_entries_built_on_another_head_are_checked():
    # Redis came back behind at 7 and another process appended 8 … 11: at 11 it says
    # "from 11", but it was built on stream b's head.
    assert published(10, cached("a", 10), 11, "b10", heads("b", 11, 12)) == "check"
    assert published(10, cached("a", 10), 11, None, heads("a", 11, 12)) == "check"


def test_an_echo_of_entries_already_applied_is_old_when_its_heads_match():
    assert published(12, cached("a", 12), 9, "a8", heads("a", 9, 11)) == "old"
    assert published(12, cached("a", 12), 12, "a11", heads("a", 12, 12)) == "old"


def test_older_entries_of_another_stream_are_checked():
    # The stored stream went on from 7 (Redis lost 8 … 12): its 8 is not our 8.
    assert published(12, cached("a", 12), 8, "a7", heads("b", 8, 9)) == "check"


def test_overlapping_entries_apply_only_when_the_cached_seq_matches():
    assert published(10, cached("a", 10), 9, "a8", heads("a", 9, 12)) == "apply"
    assert published(10, cached("a", 10), 9, "a8", heads("a", 9, 9) + heads("b", 10, 12)) \
        == "check"


def test_a_gap_or_nothing_to_compare_is_checked():
    assert published(10, cached("a", 10), 13, "a12", heads("a", 13, 13)) == "check"
    # Older than the heads kept: cannot tell, so ask Redis.
    assert published(500, cached("a", 500, kept=4), 3, "a2", heads("a", 3, 4)) == "check"
    assert published(10, cached("a", 10), 11, "a10", []) == "check"


def test_the_stored_meta_against_the_cache():
    assert stored(10, "a10", 10, "a10") == "same"
    assert stored(10, "a10", 14, "a14") == "ahead"
    assert stored(10, "a10", 7, "a7") == "other"  # Redis lost 8 … 10
    assert stored(10, "a10", 10, "b10") == "other"  # as many events, another stream


def test_stored_entries_continue_the_cache_only_from_its_head():
    assert continues(10, "a10", heads("a", 10, 14))
    assert not continues(10, "a10", heads("b", 10, 14))
    assert not continues(10, "a10", [])
    assert continues(0, "genesis", heads("a", 1, 3))
