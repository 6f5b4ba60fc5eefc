"""``may_mention`` on items of one input: a word absent from the whole input is looked for once,
not in each item (issue 37: ten thousand finds at every start); the answer per item is the
same as a find in the item's own text."""

from __future__ import annotations

import pytest

from krmlib import ResourceList

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def _item(name: str, extra: str = "") -> str:
    return f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n{extra}"


@pytest.mark.parametrize(
    "tail",
    ["", "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    k: 'a\\b'\n"],
    ids=["no-backslash", "backslash-elsewhere"],
)
def test_each_item_answers_as_a_find_in_its_own_text(tail: str) -> None:
    items = [_item(f"c{i}") for i in range(5)]
    items[3] = _item("c3", "  data:\n    word: zebra\n")
    rl = ResourceList.parse(HEAD + "".join(items) + tail)
    for word in ("zebra", "giraffe", "c3", "ConfigMap"):
        for obj, text in zip(rl.items, items, strict=True):
            assert obj.may_mention(word) == (word in text or "\\" in text), (word, obj.name)


def test_a_new_input_is_asked_anew() -> None:
    first = ResourceList.parse(HEAD + _item("a"))
    assert not first.items[0].may_mention("zebra")
    second = ResourceList.parse(HEAD + _item("b", "  data:\n    word: zebra\n"))
    assert second.items[0].may_mention("zebra")
    assert not first.items[0].may_mention("zebra")  # the first input asked again: still absent
    escaped = ResourceList.parse(HEAD + _item("c", '  data:\n    word: "z\\u0065bra"\n'))
    assert escaped.items[0].may_mention("zebra")  # an escape could spell it: unsure
