"""``pytest --update-golden`` writes an expected file with krmlib's atomic writer: the output's
bytes exactly (a final newline too, where the old file had none), nothing left beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from krmlib.testing import UPDATE_ENV, assert_same_text


@pytest.mark.parametrize("old", [None, "items: []", "items: []\n", "stale: true\n"])
def test_an_update_writes_the_output_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str | None
) -> None:
    expected = tmp_path / "case" / "expected" / "output.yaml"
    if old is not None:
        expected.parent.mkdir(parents=True)
        expected.write_text(old)
    actual = "items:\n- kind: A # kept\n"
    monkeypatch.setenv(UPDATE_ENV, "1")
    assert_same_text(actual, expected)
    assert expected.read_bytes() == actual.encode()
    assert sorted(p.name for p in expected.parent.iterdir()) == ["output.yaml"]
    monkeypatch.delenv(UPDATE_ENV)
    assert_same_text(actual, expected)  # the next run compares equal
    with pytest.raises(AssertionError, match=r"output\.yaml"):
        assert_same_text(actual + "- kind: B\n", expected)
