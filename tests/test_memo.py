"""The bounded memos (``krmlib._base.memo.remember``): a memo never holds more than its limit,
and the answer just stored is kept across the clear that makes room for it. The five memos of
the scalar writer and readers are driven past their limits through their own functions: each
stays bounded and gives the answer worked out afresh."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from krmlib._base.memo import remember
from krmlib._yaml import blockread, emit, scan, splice


def test_the_limit_is_kept_and_the_new_answer_stays() -> None:
    memo: dict[int, str] = {}
    for key in range(50):
        assert remember(memo, key, f"v{key}", 8) == f"v{key}"
        assert len(memo) <= 8
        assert memo[key] == f"v{key}"  # answers right after a clear too
    assert memo == {key: f"v{key}" for key in range(48, 50)}  # cleared at 40 and at 48


def test_a_full_memo_is_emptied_before_the_new_entry() -> None:
    memo = {"a": 1, "b": 2, "c": 3}
    assert remember(memo, "d", 4, 3) == 4
    assert memo == {"d": 4}
    assert remember(memo, "e", 5, 3) == 5
    assert memo == {"d": 4, "e": 5}  # below the limit: added, nothing dropped


def test_an_answer_of_none_is_kept() -> None:
    memo: dict[str, str | None] = {}
    assert remember(memo, "x", None, 2) is None
    assert "x" in memo and memo["x"] is None


def _edit(number: int) -> Any:
    text = "x" * 10
    new = splice._edited(text, number % 10, 1, f"e{number}")
    return splice.last_edit(text, new)


# memo, its limit, a function asked the ``n``th distinct question, the answer worked out afresh.
MEMOS: dict[str, tuple[dict[Any, Any], int, Callable[[int], Any], Callable[[int], Any]]] = {
    "emit strings": (
        emit._STRINGS,
        emit._MEMO_LIMIT,
        lambda n: emit._scalar(f"name-{n}"),
        lambda n: emit._scalar_text(f"name-{n}"),
    ),
    "emit keys": (
        emit._KEYS,
        emit._MEMO_LIMIT,
        lambda n: emit._key(f"key{n}"),
        lambda n: f"key{n}",
    ),
    "splice entry values": (
        splice._ENTRY_VALUES,
        splice._ENTRY_VALUES_LIMIT,
        lambda n: splice._entry_value("labels", "app", f"v{n}"),
        lambda n: (f"v{n}", f"    labels:\n      app: v{n}\n", f"      app: v{n}\n"),
    ),
    "splice edits": (splice._EDITS, splice._EDITS_LIMIT, _edit, lambda n: (n % 10, 1, f"e{n}")),
    "scan clean": (
        scan._CLEAN,
        scan._CLEAN_LIMIT,
        lambda n: scan._clean_kept(f" 'ns-{n}'"),
        lambda n: f"ns-{n}",
    ),
    "blockread known": (
        blockread._KNOWN,
        blockread._KNOWN_MAX,
        lambda n: blockread._scalar(f'"value {n}"'),
        lambda n: f"value {n}",
    ),
}


@pytest.fixture
def kept_memos() -> Iterator[None]:
    """The memos as they were before the test (they are caches: only their bounds are tested)."""
    saved = [(memo, dict(memo)) for memo, *_ in MEMOS.values()]
    yield
    for memo, contents in saved:
        memo.clear()
        memo.update(contents)


@pytest.mark.usefixtures("kept_memos")
@pytest.mark.parametrize("name", sorted(MEMOS))
def test_each_memo_stays_bounded_and_answers(name: str) -> None:
    memo, limit, ask, fresh = MEMOS[name]
    memo.clear()
    for number in range(limit + 10):
        assert ask(number) == fresh(number)
        assert len(memo) <= limit
    assert len(memo) == 10  # cleared once, at the limit, then the last ten kept
    for number in range(limit, limit + 10):
        assert ask(number) == fresh(number)  # asked again: answered from the memo
    assert len(memo) == 10
