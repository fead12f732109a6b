"""Names that cannot impersonate (docs/protocol.md §1, "Names"): the pure rules every
account name and seat name passes.

- ``normalise(name)``: the name as stored and shown: Unicode NFKC, stripped, runs of white
  space as one space. Raises ``ValueError`` (with a message fit for the player) for an
  invisible, control or bidirectional character anywhere in it.
- ``skeleton(name)``: the key two names share when they look alike in any case: NFKC,
  each character replaced by its prototype in Unicode's confusables table (UTS #39,
  "skeleton"; the data of the ``confusable_homoglyphs`` package, generated from Unicode's
  confusables.txt), then upper case and the prototype step again (a capital ``I`` looks
  like ``l``, a small ``i`` does not), then case folded and the step once more. So "Anna",
  "ANNA", "Аnna" (Cyrillic А) and "Αnna" (Greek Α) share a skeleton; "B0b" and "BOb";
  "AIice" and "Alice"; "admin" and "ADMIN". The price: a few different names collide
  ("ali" and "all", since "ALI" reads as "ALl"); such a name is refused, never taken.
- ``reserved(name)``: True for a name the service keeps for itself (admin, moderator,
  the bots' names: ``RESERVED`` and the names given to ``reserved_by``), by skeleton.

The table is read once, at import; no I/O after that.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from confusable_homoglyphs import confusables as _data

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")
"""Characters that reorder the text around them (Unicode bidi controls): in a seat list or
a log line a name could show as something else."""

# Characters that show nothing but are not format characters (Cf) in the Unicode
# categories: the combining grapheme joiner, the Hangul fillers, Khmer's inherent vowels,
# the Mongolian free variation selectors and the variation selectors (Unicode's
# Default_Ignorable_Code_Point property, which the standard library does not expose).
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u3164\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0)))
# Cc control, Cf format (zero-width space, word joiner, soft hyphen, BOM, joiners, bidi
# marks...), Cs surrogate, Co private use, Cn unassigned, Zl/Zp line/paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

RESERVED = frozenset({"admin", "administrator", "moderator", "mod", "system", "cardtable",
                      "root", "support", "staff"})
"""Names nobody may take (any case or look-alike): they would speak for the service."""

BOT_NAME = re.compile(r"\S+ bot \d+", re.IGNORECASE)
"""The service's names for bots at a table (``Random bot 2``)."""

_SPACES = re.compile(r"\s+")


def refused_character(name: str) -> str | None:
    """The first invisible, control or bidirectional character of ``name`` (after NFKC),
    or ``None``."""
    for ch in unicodedata.normalize("NFKC", name):
        if (unicodedata.category(ch) in _REFUSED_CATEGORIES or ch in BIDI_CONTROLS
                or ch in _INVISIBLE):
            return ch
    return None


def normalise(name: str) -> str:
    """``name`` in NFKC, stripped, inner white space runs as one space; raises
    ``ValueError`` naming the first refused character (``refused_character``)."""
    bad = refused_character(name)
    if bad is not None:
        what = ("a bidirectional control" if bad in BIDI_CONTROLS
                else "an invisible or control character")
        raise ValueError(f"names may not hold {what} (U+{ord(bad):04X})")
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", name)).strip()


def _strip_marks(s: str) -> str:
    # The package wraps right-to-left glyphs in LEFT-TO-RIGHT MARKs for display.
    return s.replace("\u200e", "")


@functools.cache
def _prototypes() -> dict[str, str]:
    """Character → its prototype (a string of one or more characters) from the confusables
    table: a source maps to the one prototype it lists; where two characters list only
    each other, the ASCII one (else the lower code point) is the prototype."""
    table = {_strip_marks(k): [_strip_marks(h["c"]) for h in v]
             for k, v in _data.confusables_data.items()}
    out: dict[str, str] = {}
    for key, glyphs in table.items():
        if len(key) != 1 or len(glyphs) != 1:
            continue  # a prototype listing its sources, or a sequence
        other = glyphs[0]
        if len(table.get(other, ())) == 1 and len(other) == 1:
            # Each lists only the other: choose one as the prototype.
            proto = min(key, other, key=lambda c: (not c.isascii(), ord(c)))
            if proto == key:
                continue
        out[key] = other
    return out


def _prototyped(s: str) -> str:
    protos = _prototypes()
    return unicodedata.normalize("NFD", "".join(protos.get(ch, ch) for ch in
                                                unicodedata.normalize("NFD", s)))


@functools.lru_cache(maxsize=4096)
def skeleton(name: str) -> str:
    """The look-alike key of ``name`` (module docstring); ``name`` is normalised first
    (raises ``ValueError`` as ``normalise``; a refused name is not remembered).

    Remembered for the last 4096 names: a join compares the new name with every seated
    one, so each seated name's key was computed at its own join (about 5 us each)."""
    return _prototyped(_prototyped(_prototyped(normalise(name)).upper()).casefold())


def lookalike(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that looks like ``name`` (same ``skeleton``), or ``None``.
    A name of ``others`` that no longer normalises (stored before these rules) is
    compared by its case-folded form."""
    mine = skeleton(name)
    for other in others:
        try:
            theirs = skeleton(other)
        except ValueError:
            theirs = other.casefold()
        if theirs == mine:
            return other
    return None


class Reserved:
    """The reserved names: ``RESERVED`` plus ``extra`` (the bots' rated names), matched by
    skeleton."""

    def __init__(self, extra: Iterable[str] = ()) -> None:
        self.skeletons = frozenset(skeleton(n) for n in (*RESERVED, *extra))

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            return skeleton(name) in self.skeletons
        except ValueError:
            return False


def reserved_seat_name(name: str) -> bool:
    """True when ``name`` looks like a name the service gives a bot at a table
    (``Random bot 2``) or one of ``RESERVED``."""
    return bool(BOT_NAME.fullmatch(normalise(name))) or name in _base()


@functools.cache
def _base() -> Reserved:
    return Reserved()
