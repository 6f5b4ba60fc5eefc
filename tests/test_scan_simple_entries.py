"""The two-pass read of a labels/annotations map (``_simple_entries`` in krmlib/_yaml/scan.py)
answers as the line-by-line loop it shortcuts, on generated maps of kpt's layout and near it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krmlib._yaml import scan as _scan

LINES = st.sampled_from(
    [
        "      a: x",
        "      a: 'x'",
        '      b.io/c: "y-1"',
        "      d: ''",
        "      e: 012",
        "      f: 'true'",
        "      g: true",
        "      h: @x",
        "      i: :x",
        "      j: x # note",
        "      k:  x",
        "      l:",
        "      m: 'it''s'",
        "      n: a b",
        "       o: x",
        "     p: x",
        "      # a comment",
        "",
        "    name: x",
        "  spec:",
        "  # top comment",
        "        deeper: x",
        "      a: y",
    ]
)


def _item(lines: list[str]) -> str:
    return "- kind: ConfigMap\n  metadata:\n    labels:\n" + "".join(f"{line}\n" for line in lines)


def _by_the_loop(text: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(_scan, "_simple_entries", lambda *_args: None)
        return _scan.scan_metadata_map(text, True, "labels")


@settings(max_examples=2000, deadline=None)
@given(st.lists(LINES, max_size=8), st.booleans())
def test_the_two_passes_answer_as_the_loop(lines: list[str], last_newline: bool) -> None:
    text = _item(lines)
    if not last_newline:
        text = text.rstrip("\n")
    with pytest.MonkeyPatch.context() as monkeypatch:
        expected = _by_the_loop(text, monkeypatch)
    _scan._LAST_OPEN[0] = ("", False)
    assert _scan.scan_metadata_map(text, True, "labels") == expected, text


def test_the_common_map_takes_the_two_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _item(["      a: x", "      b.io/c: 'y'", '      d: "z"']) + "  spec: {}\n"
    asked: list[int] = []
    real = _scan._simple_entries

    def counted(*args: Any) -> Any:
        answer = real(*args)
        asked.append(answer is not None)
        return answer

    monkeypatch.setattr(_scan, "_simple_entries", counted)
    assert _scan.scan_metadata_map(text, True, "labels") == {"a": "x", "b.io/c": "y", "d": "z"}
    assert asked == [True]
