"""Shortcuts over text, each held to the general test it skips.

The emitter's for names, paths and condition types (krmlib/_yaml/emit.py, ``_NAME_CHARS``): a
string of ``[A-Za-z0-9_./-]`` that starts with a letter and is not all letters is written plain
without asking the patterns; the general test says the same of every such string, and YAML 1.1
and 1.2 readers read it back as that string. The input bounds' for control characters
(krmlib/_yaml/engines.py, ``_no_control``): certain, or the regex asked."""

from __future__ import annotations

import re

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from krmlib._yaml import emit
from krmlib._yaml import engines as _yaml
from krmlib._yaml.scalars import needs_quotes

NAME_CHARS = emit._NAME_CHARS


def _shortcut(value: str) -> bool:
    return value[0] in emit._LETTERS and not value.strip(NAME_CHARS) and not value.isalpha()


def _general(value: str) -> bool:
    """The general test: written plain."""
    return emit._plain_allowed(value) and (
        value[0] not in emit._AMBIGUOUS_FIRST or not needs_quotes(value)
    )


@settings(max_examples=2000)
@given(st.text(NAME_CHARS, min_size=1, max_size=12))
@example("n4-000001-ip-a1b2c3")
@example("no-")
@example("y.")
@example("Null_")
@example("on1")
@example("e1")
@example("inf.")
@example("nan/")
@example("x...")
@example("a---")
def test_the_shortcut_writes_plain_only_what_the_general_test_writes_plain(value: str) -> None:
    if not _shortcut(value):
        return
    assert _general(value)
    assert emit._scalar_text(value) == value
    text = f"key: {value}\n"
    assert yaml.safe_load(text) == {"key": value}  # YAML 1.1 (PyYAML)
    assert _yaml.load_plain(text) == {"key": value}  # krmlib's reader


def test_words_and_numbers_are_not_taken_by_the_shortcut() -> None:
    for value in ("no", "Yes", "null", "true", "1e3", "0x1f", ".inf", "2024-01-02", "off"):
        assert not _shortcut(value)
        assert emit._scalar_text(value) != value  # quoted


@settings(max_examples=1000)
@given(
    st.text(
        st.one_of(
            st.sampled_from("\x00\x07\x08\t\n\x0b\x0c\r\x0e\x1f\x7f\x80\ufffe\uffff a:-"),
            st.characters(max_codepoint=0x7F),
        ),
        max_size=40,
    )
)
@example("")
@example("a" * 70000 + "\x01")  # past the first chunk
def test_the_control_shortcut_is_certain(text: str) -> None:
    """krmlib/_yaml/engines.py ``_no_control``: True only where the regex finds nothing; on
    ASCII text, exactly the regex's answer."""
    found = re.search(_yaml._CONTROL, text) is not None
    if _yaml._no_control(text):
        assert not found
    elif text.isascii():
        assert found
