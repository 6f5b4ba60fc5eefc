"""Bounded memos: a plain ``dict`` of answers worked out before, emptied when it is full.

The scalar writer and readers keep what a string was written as, or read as, because thousands
of items repeat a few values ("v1", a label). Looking up stays the dict's own ``get``, ``in`` or
``[]`` at the call site (the hottest lines of every function: no Python call there); only a new
answer goes through :func:`remember`, which empties the memo when it holds ``limit`` entries, so
unique values (names) never pile up. Each caller names its limit beside its memo, with why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the checker only: two type variables cost ~0.1 M instructions at start
    from typing import TypeVar

    _K = TypeVar("_K")
    _V = TypeVar("_V")


def remember(memo: dict[_K, _V], key: _K, value: _V, limit: int) -> _V:
    """Keep ``value`` for ``key`` in ``memo`` (emptied first when it holds ``limit`` entries or
    more) and give it back, so the caller can ``return remember(...)``."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value
