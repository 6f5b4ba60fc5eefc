"""The scans' regular expressions take memory bounded by the text, not by its characters.

``OPEN_SCALAR`` (krmlib/_yaml/scan.py) was written ``"(?:[^"\\\n]|\\[^\n])*``: Python's engine keeps
one backtracking entry per character of such a repeat, and a 100 MB quoted scalar took 12 GB
(the ``huge-scalar`` bad input, found with peak RSS, round four). The unrolled form must answer
exactly as the old one did, on every line.
"""

from __future__ import annotations

import re
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

from krmlib._yaml import scan as _scan

# The form before the fix, kept here as the oracle of what the answer must be.
OLD = re.compile(r""" (?:"(?:[^"\\\n]|\\[^\n])*\\?\n|'(?:[^'\n]|'')*\n|[\[{][^\n]*(?<![\]}])\n)""")

PIECES = st.sampled_from([" ", '"', "'", "\\", "\n", "a", "[", "]", "{", "}", "''", '\\"', "#"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(PIECES, max_size=40).map("".join))
def test_the_unrolled_form_answers_as_the_old_one(text: str) -> None:
    old = OLD.search(text)
    new = _scan.OPEN_SCALAR.search(text)
    assert (old is None) == (new is None), repr(text)
    if old is not None and new is not None:
        assert old.span() == new.span(), repr(text)


def _peak_of_search(text: str) -> int:
    tracemalloc.start()
    try:
        _scan.OPEN_SCALAR.search(text)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_long_quoted_scalar_takes_no_memory_per_character() -> None:
    size = 4 * 1024 * 1024
    for quote in ('"', "'"):
        text = f"kind: ConfigMap\ndata:\n  big: {quote}{'x' * size}{quote}\n  b: {quote}open\n"
        assert _scan.OPEN_SCALAR.search(text) is not None  # the last line's scalar is open
        # The old form: about 120 bytes a character (480 MB here); bounded: a few KB.
        assert _peak_of_search(text) < size // 64, quote
