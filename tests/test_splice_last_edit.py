"""The splicer's edit placed as the span's patch (``krmlib._yaml.splice.last_edit``): the item
reads and is written exactly as the whole new text would be, and only the very strings of the
last splice get an answer."""

from __future__ import annotations

import pytest

from krmlib import ResourceList
from krmlib._io.resourcelist import piece_text
from krmlib._model.storage import of
from krmlib._yaml import splice

KEYS = ("metadata", "labels", "app.kubernetes.io/part-of")
ITEMS = [
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  data:\n    k: v\n",
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels:\n"
    "      x: y\n  data:\n    k: v\n",
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels:\n"
    "      app.kubernetes.io/part-of: old\n      x: y\n  data: {}\n",
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n    labels:\n"
    "      app.kubernetes.io/part-of: 'old'\n",
]


@pytest.mark.parametrize("item", ITEMS)
@pytest.mark.parametrize("value", ["new", "applyset-x-v1", "1.0"])
def test_the_patched_span_is_the_spliced_text(item: str, value: str) -> None:
    text = f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{item}{item}"
    rl = ResourceList.parse(text)
    first, second = rl.items
    store = of(first)
    before = store.src
    expected = splice.splice_set(before, True, KEYS, value)
    assert expected is not None
    assert first.set(KEYS, value) or expected == before
    assert store.src == expected
    assert first.to_item() == expected
    assert first.labels["app.kubernetes.io/part-of"] == value
    assert second.to_item() == item  # the other span untouched
    assert "".join(map(piece_text, rl.pieces())).count(expected) == 1


def test_only_the_last_splice_answers() -> None:
    text = ITEMS[0]
    new = splice.splice_set(text, True, ("metadata", "labels", "a"), "b")
    assert new is not None
    assert splice.last_edit(text, new) is not None
    assert splice.last_edit(text, "".join(list(new))) is None  # an equal string, not the one
    other = splice.splice_set(ITEMS[1], True, ("metadata", "labels", "a"), "b")
    assert other is not None
    assert splice.last_edit(text, new) is None  # another splice came since
