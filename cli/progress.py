"""Progress bars of the long commands (``tournament``, ``selfplay``, ``analyse``, the
ladder, the balance runs): tqdm on standard error, with the count, the rate and the time
left, shown only when standard error is a terminal (its last state stays there: the count,
the rate and the time taken), so a piped or redirected run prints
nothing but its summary."""

from __future__ import annotations

import sys
from typing import Any

from tqdm import tqdm


def bar(total: int | None, desc: str, unit: str = "it", **kwargs: Any) -> tqdm[Any]:
    """A progress bar over ``total`` steps (``None``: unknown) on stderr, labelled ``desc``
    and counting ``unit``; disabled unless stderr is a terminal. Use it as a context
    manager and call ``update(n)``; a disabled bar's calls do nothing."""
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=True,
                dynamic_ncols=True, disable=not _tty(), **kwargs)


def _tty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False
