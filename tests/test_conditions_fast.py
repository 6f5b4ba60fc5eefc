"""krmlib._model.conditions_fast: a condition's entry in one pass, exactly the emitter's text."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krmlib._model.conditions_fast import _AMBIGUOUS_FIRST, condition_entry
from krmlib._yaml.emit import seq_entry
from krmlib._yaml.scalars import _AMBIGUOUS, needs_quotes

# Strings the emitter writes plain, quoted, or refuses (then both answer None).
AWKWARD = [
    "True", "False", "Unknown", "true", "yes", "no", "on", "null", "~", "1", "0x1f", "1e3",
    "1.10", "", " lead", "trail ", "a: b", "a #b", "#a", "-a", "- a", "?a", ":a", "a:", "---x",
    "...x", "x---", "'q'", '"q"', "it's", "a  b", "tab\there", "new\nline", "é", "€uro",
    "ipam-nephio-org-v1alpha1-ipallocation-n4-000002-ip-cb7d3c",
    "IPAllocation n4-000002-ip-cb7d3c created; waiting for allocation",
    "Interface n4 needs a NetworkAttachmentDefinition; waiting for a NAD generator",
    "a,b", "(x)", "x=y", "a/b.c", "%x", "@x", "`x", "!x", "&x", "*x", "|x", ">x", "{x", "[x",
]  # fmt: skip


@pytest.mark.parametrize("value", AWKWARD)
@pytest.mark.parametrize("key", ["type", "status", "reason", "message"])
@pytest.mark.parametrize("indent", [0, 2, 4])
def test_entry_is_the_emitters(value: str, key: str, indent: int) -> None:
    values = {"type": "t", "status": "False", "reason": "r", "message": "m"}
    values[key] = value
    assert condition_entry(values, indent) == seq_entry(values, indent)


@pytest.mark.parametrize(
    "values",
    [
        {},
        {"type": "t", "status": "True"},
        {"status": "Unknown", "type": "t"},
        {"type": "t", "status": "False", "extra": "x"},
        {"type": "t", "status": True},
        {"type": "t", "status": "False", "reason": None},
        {"type": 1, "status": "False"},
        {"type": "t", "status": "False", "message": {"a": "b"}},
    ],
)
def test_other_shapes_are_the_emitters(values: dict[str, Any]) -> None:
    assert condition_entry(values, 2) == seq_entry(values, 2)


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["type", "status", "reason", "message"]),
        st.one_of(st.text(max_size=30), st.sampled_from(AWKWARD)),
        min_size=1,
    ),
    st.sampled_from([0, 2, 6]),
)
def test_any_condition_is_the_emitters(values: dict[str, str], indent: int) -> None:
    assert condition_entry(values, indent) == seq_entry(values, indent)


@settings(max_examples=500, deadline=None)
@given(st.from_regex(re.compile(_AMBIGUOUS, re.X)))
def test_every_string_needing_quotes_starts_with_a_listed_character(value: str) -> None:
    # the one-pass entry skips the quoting check of a printable string starting otherwise
    # ("\n" matches too: "$" before a final newline; it is not printable)
    assert needs_quotes(value)
    assert value == "" or not value.isprintable() or value[0] in _AMBIGUOUS_FIRST
