"""New objects (``KubeObject.from_dict``) read back as the same values, in YAML 1.2 and 1.1."""

from __future__ import annotations

import pytest
import yaml

from krmlib import KubeObject

TRICKY = [
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "n",
    "true",
    "False",
    "null",
    "~",
    "",
    "012",
    "0o12",
    "0x1F",
    "1e3",
    "1_000",
    ".5",
    "-1",
    "+1",
    "12:30",
    "2023-01-01",
    ".inf",
    ".NaN",
    "a: b",
    "a #b",
    "#x",
    "- x",
    "x-",
    "ünïcode",
    "'q'",
    '"dq"',
    "a\nb",
    "*alias",
    "&anchor",
    "!tag",
    "%x",
    "@x",
    "`x",
    "{x}",
    "[x]",
    "vpc-internet",
    "req.nephio.org/v1alpha1.Interface.n3",
]


@pytest.mark.parametrize("value", TRICKY)
def test_new_objects_read_back_as_the_same_strings(value: str) -> None:
    document = {
        "apiVersion": "v1",
        "kind": "X",
        "metadata": {"name": "x", "annotations": {value or "k": value}},
        "spec": {"list": [{"a": value, "b": [value, 1]}], "empty": {}, "n": 7, "items": []},
    }
    text = KubeObject.from_dict(document).to_yaml()
    assert KubeObject.from_yaml(text).to_dict() == document
    assert yaml.safe_load(text) == document  # a YAML 1.1 reader agrees


def test_new_objects_use_block_style_with_compact_lists() -> None:
    text = KubeObject.from_dict({"a": {"b": [{"c": 1, "d": {"e": "f"}}, "g"]}, "h": {}}).to_yaml()
    assert text == "a:\n  b:\n  - c: 1\n    d:\n      e: f\n  - g\nh: {}\n"
