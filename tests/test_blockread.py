"""An item's values read from its text (krmlib._yaml.blockread, issue 37; first the preparer's):
every answer it gives is the full parse's, on generated layouts, hand-made edge cases and every
item of the repository's packages; where it is unsure it gives way (None), and
``KubeObject.to_dict`` parses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from krmlib import KubeObject, ResourceList
from krmlib._model import storage as _storage
from krmlib._model.trees import item_to_doc
from krmlib._yaml import engines
from krmlib._yaml.blockread import read_item
from tests.test_layout_properties import SETTINGS, layouts, parse, same

ROOT = Path(__file__).resolve().parent.parent


def full(text: str) -> Any:
    """The full parse (what ``to_dict`` gives when the text is not read here)."""
    return engines.to_plain(engines.load_plain(item_to_doc(text)))


@SETTINGS
@given(layouts())
def test_a_certain_answer_is_the_full_parse(case: tuple[str, bool, dict[str, Any]]) -> None:
    text, item_form, _ = case
    if not item_form:
        return
    got = read_item(text)
    if got is not None:
        assert same(got, parse(text, True)), text


def _item(body: str) -> str:
    return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n" + body


READ = [
    "  data:\n    a: b\n",
    "  data:\n    a: b # note\n    c: 'it''s'\n    d: \"x y\"\n",
    "  data:\n    script: |\n      #!/bin/sh\n      echo hi\n",
    "  data:\n    script: |-\n      echo hi\n    next: x\n",
    "  data:\n    script: |+\n      echo hi\n",
    "  data:\n    script: |\n      echo hi",  # no line break at the end: clipped to none
    "  data:\n    script: |\n        deeper\n        lines\n",
    "  data:\n    n: 8080\n    t: true\n    f: FALSE\n    z: null\n    e:\n    s: yes\n",
    "  data: {}\n  list: []\n",
    "  spec:\n    ports:\n    - name: a\n      port: 1\n    - port: 2\n    selector:\n      app: web\n",
    "  spec:\n    ports:\n      - name: a\n        port: 1\n",
    "  spec:\n    list:\n    - a\n    - 'b'\n    - \n    - c # d\n",
    "# a comment\n  data:\n  # between\n    a: b\n\n",
    "  data:\n    url: http://x/a#b\n    odd: a  b\n",
    "  status:\n    prefix: 10.0.0.10/24\n    v6: 2001:db8::1/64\n    d: -foo\n    p: +\n    ip: 10.0.0.1\n    v: 1.2.3\n",
]

GIVE_WAY = [
    "  data:\n    a: b\n    a: c\n",  # duplicate key
    "  data:\n    a: b\n      c\n",  # a continuation line
    "  data:\n    a: 1.5\n",  # a float
    "  data:\n    a: -1\n",  # a sign
    "  data:\n    a: 0x1F\n",
    "  data:\n    a: 10.5\n",
    "  data:\n    a: 1.5e3\n",
    "  data:\n    a: 1.x\n",  # a string, but looks like a number
    "  data:\n    a: .inf\n",
    "  data:\n    a: +1\n",
    "  data:\n    a: -\n",
    "  data:\n    a: ~\n",
    "  data:\n    a: &x b\n",
    "  data:\n    a: *x\n",
    "  data:\n    a: !!str b\n",
    "  data:\n    a: >\n      folded\n",
    "  data:\n    a: |2\n      indicated\n",
    "  data:\n    a: |\n      one\n\n      two\n",  # a blank line in the block
    "  data:\n    a: 'open\n      quote'\n",
    '  data:\n    a: "esc\\n"\n',
    "  data:\n    a: ünï\n",
    "  data:\n    'q': b\n",
    "  data:\n    true: b\n",
    "  data:\n    a: {b: c}\n",
    "  data:\n    a: b: c\n",
    "  data:\n\ta: b\n",
    "  data:\r\n    a: b\r\n",
    "  spec:\n    list:\n    - - nested\n",
    "  spec:\n    list:\n    -\n",  # a dash alone
    "  spec:\n    a: b\n  - c\n",
]


@pytest.mark.parametrize("body", READ)
def test_the_layouts_read_give_the_full_parse(body: str) -> None:
    text = _item(body)
    got = read_item(text)
    assert got is not None, text
    assert same(got, full(text)), (got, full(text))


@pytest.mark.parametrize("body", GIVE_WAY)
def test_other_layouts_give_way(body: str) -> None:
    assert read_item(_item(body)) is None


def test_documents_and_deeper_items_give_way() -> None:
    assert read_item("apiVersion: v1\nkind: ConfigMap\n") is None
    assert read_item("  - apiVersion: v1\n    kind: ConfigMap\n") is None
    assert read_item("- a\n") is None  # not a map
    assert read_item("") is None


def _inputs() -> list[Path]:
    found = [
        *ROOT.glob("testdata/**/*.yaml"),
        *ROOT.glob("examples/**/*.yaml"),
    ]
    return sorted(p for p in found if p.is_file() and p.stat().st_size < 2_000_000)


def test_every_item_of_the_repository_reads_as_the_full_parse() -> None:
    read = compared = 0
    for path in _inputs():
        text = path.read_text(encoding="utf-8", errors="replace")
        if "kind: ResourceList" not in text:
            continue
        try:
            rl = ResourceList.parse(text)
        except Exception:  # input that the functions refuse: not an item source
            continue
        for obj in rl.items:
            item = obj.to_item()
            got = read_item(item)
            compared += 1
            if got is not None:
                read += 1
                assert same(got, full(item)), (path, item)
                assert same(obj.to_dict(), got)
    assert compared > 100 and read > compared // 2, (read, compared)


def test_a_value_read_again_is_the_same_and_empty_collections_are_never_shared() -> None:
    text = _item("  data:\n    a: web\n  spec:\n    x: {}\n    y: []\n")
    first, second = read_item(text), read_item(text)
    assert first is not None and second is not None
    assert same(first, second) and same(first, full(text))
    assert first["spec"]["x"] is not second["spec"]["x"]
    assert first["spec"]["y"] is not second["spec"]["y"]


def test_to_dict_reads_the_layout_from_the_text_and_keeps_no_parse() -> None:
    """``KubeObject.to_dict`` uses the read (the storage's ``plain_copy``): a new dict each time,
    no parse kept on the item, an edit spliced into the text seen, and another layout parsed."""
    text = _item("  data:\n    a: web\n")
    obj = KubeObject.from_item(text)
    first = obj.to_dict()
    first["data"]["a"] = "changed by the caller"
    assert obj.to_dict() == {**full(text), "data": {"a": "web"}}
    assert _storage.of(obj).plain is None  # nothing parsed, nothing kept
    obj.set("metadata.labels.team", "net")  # a splice of the text
    assert obj.to_dict()["metadata"]["labels"] == {"team": "net"}
    flow = KubeObject.from_item(_item("  data: {a: web}\n"))
    assert flow.to_dict()["data"] == {"a": "web"}  # given way: parsed


def test_the_keys_of_every_read_are_one_string_each() -> None:
    """A key every item repeats is one string, not one per item and read (interned): the
    preparer keeps the whole package as values twice per pass, and 10,000 Sites' keys read
    anew each time cost it 16 MB of peak memory (round five)."""
    first = read_item(_item("  data:\n    " + "a" * 40 + ": b\n"))
    second = read_item(_item("  data:\n    " + "a" * 40 + ": c\n"))
    assert first is not None and second is not None
    [key_one] = first["data"]
    [key_two] = second["data"]
    assert key_one == key_two and key_one is key_two
