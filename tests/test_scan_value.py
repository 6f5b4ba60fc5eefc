"""The scan of a value from an unparsed item's text (``krmlib._yaml.pathscan.scan_value``) answers what
the parser answers, or gives way (UNSURE): never a different value, never a wrong "absent".

Two oracles: hypothesis-made block YAML with every style the scan must refuse or read (comments,
quotes, lists level with their key, flow collections, block and multi-line scalars, anchors,
tags, keys the core schema reads as booleans or nulls, duplicate keys), and every YAML document
under testdata/ (the packages users and upstream wrote), each path of keys in it and a few that
are not there.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from krmlib import InputError, KubeObject, ResourceList
from krmlib._model import storage as _storage
from krmlib._model import trees as _trees
from krmlib._yaml import engines as _yaml
from krmlib._yaml import pathscan as _pathscan
from krmlib._yaml import scan as _scan
from tests import layouts

ROOT = Path(__file__).resolve().parent.parent

WORDS = st.sampled_from(
    [
        "a",
        "vpc-ran",
        "10.0.0.1/24",
        "true",
        "True",
        "yes",
        "null",
        "~",
        "0x1F",
        "0o17",
        "012",
        "-5",
        "1e3",
        ".5",
        ".inf",
        "-.inf",
        ".nan",
        "1.10",
        "with space",
        "a#b",
        "a,b]",
        "it's",
        "x:y",
        "12:30",
        "-",
        "- x",
        "a: b",
        "a:",
        "&anchor v",
        "*alias",
        "!!str 5",
        "|",
        ">-",
        "[a, b]",
        "{a: 1}",
        "[]",
        "{}",
        "%x",
        "@x",
        "`x",
        "?",
        "? x",
        "ünï",
    ]
)
SIMPLE = st.sampled_from(["10.0.0.3/24", "vpc-ran", "5", "'7'", '"x"', "true", "null", "{}"])
KEYS = st.sampled_from(
    ["a", "b", "name", "spec", "status", "x.y/z", "true", "null", "No", "on", "_k", "k-1", "a"]
)


def _scalar(draw: st.DrawFn) -> str:
    word = draw(WORDS)
    style = draw(st.sampled_from(["plain", "plain", "single", "double", "double-escape"]))
    if style == "single":
        return "'" + word.replace("'", "''") + "'"
    if style == "double":
        return '"' + word.replace('"', "") + '"'
    if style == "double-escape":
        return '"' + word + '\\t"'
    return word


@st.composite
def block_map(draw: st.DrawFn, indent: int = 0, depth: int = 0) -> list[str]:
    """The lines of a block map at ``indent`` (some invalid YAML too: the test skips those)."""
    pad = " " * indent
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4))):
        key = draw(KEYS)
        shape = draw(
            st.sampled_from(
                [
                    "scalar",
                    "scalar",
                    "map",
                    "map",
                    "list",
                    "level-list",
                    "null",
                    "multi",
                    "block",
                    "map-list",
                    "map-list",
                ]
                if depth < 3
                else ["scalar", "null"]
            )
        )
        comment = draw(st.sampled_from(["", "", " # c", "  #c"]))
        if draw(st.integers(0, 9)) == 0:
            lines.append(f"{pad}# a comment line")
        if draw(st.integers(0, 12)) == 0:
            lines.append("")
        if shape == "scalar":
            lines.append(f"{pad}{key}: {_scalar(draw)}{comment}")
        elif shape == "map":
            child = indent + draw(st.sampled_from([2, 2, 4]))
            lines.append(f"{pad}{key}:{comment}")
            lines.extend(draw(block_map(child, depth + 1)))
        elif shape in ("list", "level-list"):
            at = indent + (2 if shape == "list" else 0)
            lines.append(f"{pad}{key}:")
            for _ in range(draw(st.integers(1, 2))):
                lines.append(f"{' ' * at}- {_scalar(draw)}")
        elif shape == "map-list":
            lines.append(f"{pad}{key}:{comment}")
            lines.extend(draw(map_list(indent)))
        elif shape == "null":
            lines.append(f"{pad}{key}:{comment}")
        elif shape == "multi":
            lines.append(f"{pad}{key}: first")
            lines.append(f"{pad}  {draw(st.sampled_from(['second', 'b: c', '# not', '- d']))}")
        else:
            lines.append(f"{pad}{key}: |")
            lines.append(f"{pad}  text")
            lines.append(f"{pad}  {draw(st.sampled_from(['b: c', '# hash', '']))}")
    return lines


@st.composite
def map_list(draw: st.DrawFn, indent: int) -> list[str]:
    """A block sequence of block maps of one-line scalars under a key at ``indent``: mostly
    kpt's layout (level with the key, ``- a: x`` then ``  b: y``), with each way out of it
    (an indented list, another indent for the next keys, a scalar or empty entry, a nested map,
    a comment or blank line, a continuation line, a duplicate key)."""
    at = indent + draw(st.sampled_from([0, 0, 0, 0, 2]))
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        odd = draw(st.integers(0, 14))
        if odd == 0:
            lines.append(f"{' ' * at}- {_scalar(draw)}")
            continue
        if odd == 1:
            lines.append(f"{' ' * at}-")
            continue
        for index in range(draw(st.integers(1, 3))):
            lead = "- " if index == 0 else " " * draw(st.sampled_from([2, 2, 2, 2, 2, 1, 3]))
            comment = draw(st.sampled_from(["", "", "", " # c"]))
            word = _scalar(draw) if draw(st.booleans()) else draw(SIMPLE)
            value = f" {word}" if draw(st.integers(0, 15)) else ""
            if not draw(st.integers(0, 5)):  # a block map under the entry's key
                lines.append(f"{' ' * at}{lead}{draw(KEYS)}:{comment}")
                lines.extend(draw(block_map(at + draw(st.sampled_from([4, 4, 3, 2])), 3)))
                continue
            lines.append(f"{' ' * at}{lead}{draw(KEYS)}:{value}{comment}")
            odd = draw(st.integers(0, 30))
            if odd == 0:
                lines.append(f"{' ' * (at + 4)}c: d")
            elif odd == 1:
                lines.append(f"{' ' * draw(st.sampled_from([0, at, at + 2]))}# between")
            elif odd == 2:
                lines.append("")
            elif odd == 3:
                lines.append(f"{' ' * (at + 4)}more")
    return lines


def _paths(value: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    if isinstance(value, dict):
        for key, sub in value.items():
            if isinstance(key, str):
                yield (*prefix, key)
                yield from _paths(sub, (*prefix, key))
            yield (*prefix, "absent-key")


def _check(text: str, item_form: bool) -> int:
    """Compare the scan with the parse at every path; the number of certain answers."""
    doc = _storage.Storage(text, "item" if item_form else "doc").doc_text()
    try:
        parsed = _yaml.load_plain(doc)
    except InputError:
        return 0
    if not isinstance(parsed, dict):
        return 0
    certain = 0
    for path in [*_paths(parsed), ("absent-key",), ("absent-key", "x")]:
        found = _pathscan.scan_value(text, item_form, path)
        if found is _pathscan.UNSURE:
            continue
        certain += 1
        expected = _trees.walk(parsed, path)
        if expected is _trees.MISSING:
            assert found is _pathscan.ABSENT, (path, found, text)
        else:
            assert found is not _pathscan.ABSENT, (path, expected, text)
            assert _same(found, expected), (path, found, expected, text)
    return certain


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@given(block_map())
def test_scan_agrees_with_the_parser_on_documents(lines: list[str]) -> None:
    _check("\n".join(lines) + "\n", item_form=False)


@given(block_map(indent=2))
def test_scan_agrees_with_the_parser_on_items(lines: list[str]) -> None:
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or lines[first].startswith("  #"):
        return
    lines = lines[first:]
    lines[0] = "- " + lines[0][2:]
    _check("\n".join(lines) + "\n", item_form=True)


def _documents() -> Iterator[tuple[str, str]]:
    for path in sorted((ROOT / "testdata").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for index, part in enumerate(text.split("\n---\n")):
            yield f"{path.relative_to(ROOT)}#{index}", part


def test_scan_agrees_with_the_parser_on_every_testdata_document() -> None:
    certain = documents = 0
    for _name, text in _documents():
        documents += 1
        certain += _check(text, item_form=False)
    assert documents > 500
    assert certain > 5000  # the scan reads most of what users write, not only gives way


def test_scan_agrees_on_the_items_of_testdata_resource_lists() -> None:
    from krmlib import ResourceList

    items = 0
    for path in sorted((ROOT / "testdata").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "kind: ResourceList" not in text:
            continue
        try:
            rl = ResourceList.parse(text)
        except Exception:  # bad-input cases: the reader refuses them
            continue
        for obj in rl.items:
            store = _storage.of(obj)
            if store.is_item:
                items += 1
                _check(store.src, item_form=True)
    assert items > 200


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        ("a:\n  b: 1 # c\n", ("a", "b"), 1),
        ("a:\n  b: '1'\n", ("a", "b"), "1"),
        ("a:\n  b:\n  c: x\n", ("a", "b"), None),
        ("a:\n  b:\n  c: x\n", ("a",), {"b": None, "c": "x"}),
        ("a:\n- 1\nb: x\n", ("b",), "x"),
        ("a: {}\n", ("a",), {}),
        ("a: x\n", ("b",), _pathscan.ABSENT),
        ("a:\n  b: first\n    second\n", ("a", "b"), _pathscan.UNSURE),
        ("a:\n  b: x\n  b: y\n", ("a", "b"), _pathscan.UNSURE),
        ("a:\n  - 1\n", ("a",), _pathscan.UNSURE),
        ("a:\n- b: 1\n  c: x # n\n- b: '2'\nd: y\n", ("a",), [{"b": 1, "c": "x"}, {"b": "2"}]),
        ("a:\n  x:\n  - b: 1\n  y: 2\n", ("a",), {"x": [{"b": 1}], "y": 2}),
        ("a:\n- b: 1\n# c\n- b: 2\n", ("a",), _pathscan.UNSURE),
        ("a:\n- b: 1\n-\n", ("a",), _pathscan.UNSURE),
        ("a:\n- b: 1\n\n- b: 2\n", ("a",), _pathscan.UNSURE),
        ("a:\n- b: 1\n  b: 2\n", ("a",), _pathscan.UNSURE),
        ("a:\n- b: 1\n   c: 2\n", ("a",), _pathscan.UNSURE),
        ("a:\n- b:\n    c: 2\n", ("a",), [{"b": {"c": 2}}]),
        ("a:\n- b: 1\n- x\n", ("a",), _pathscan.UNSURE),
        ("a:\n- b: &x 1\n", ("a",), _pathscan.UNSURE),
        ("a:\n- b: 1\n  on: 2\n", ("a",), [{"b": 1, "on": 2}]),
        ("a:\n- b: 1\n  true: 2\n", ("a",), _pathscan.UNSURE),
        (
            "a:\n- n: p\n  c:\n    d: 1\n- n: q\nz: 2\n",
            ("a",),
            [{"n": "p", "c": {"d": 1}}, {"n": "q"}],
        ),
        ("a:\n- c:\n    d: 1\n  # x\n  e: 2\n", ("a",), _pathscan.UNSURE),
        ("a:\n- c:\n  - 1\n", ("a",), _pathscan.UNSURE),
        ("a:\n- c:\n  e: 2\n", ("a",), _pathscan.UNSURE),
        ("a: &x\n  b: 1\n", ("a", "b"), _pathscan.UNSURE),
        ('a: "x\n  y"\nb: z\n', ("b",), _pathscan.UNSURE),
        ("true: 1\n", ("true",), _pathscan.UNSURE),
        ("a:\tb\n", ("a",), _pathscan.UNSURE),
    ],
)
def test_scan_cases(text: str, path: tuple[str, ...], expected: Any) -> None:
    found = _pathscan.scan_value(text, False, path)
    if expected is _pathscan.UNSURE or expected is _pathscan.ABSENT:
        assert found is expected
    else:
        assert _same(found, expected)


def test_a_kube_object_reads_scanned_values_without_parsing() -> None:
    obj = KubeObject(
        src="- apiVersion: v1\n  kind: X\n  metadata:\n    name: n\n  spec:\n    a:\n      b: 7\n",
        form="item",
    )
    assert obj.get("spec.a.b") == 7
    assert obj.get("spec.a") == {"b": 7}
    assert obj.get("spec.c", "d") == "d"
    assert not obj.has("spec.c")
    assert _storage.of(obj).plain is None  # nothing was parsed
    obj.set("spec.a.b", 8)
    assert obj.get("spec.a.b") == 8  # an edit is read from the edited text


def _list_documents() -> Iterator[tuple[str, str]]:
    """The specializers' packages and goldens that hold lists of maps of scalars (a claim's
    ``status.ipClaimStatus``, a DataNetwork's ``spec.pools``, a Dependency's
    ``status.injected``): what the scan of such lists is for."""
    for folder in ("nfdeploy", "dnn-generator", "interface-expander", "nad-generator"):
        for path in sorted((ROOT / "testdata" / folder).rglob("*.yaml")):
            text = path.read_text(encoding="utf-8")
            if any(word in text for word in ("ipClaimStatus:", "pools:", "injected:")):
                yield str(path.relative_to(ROOT)), text


def _lists_answered(text: str, item_form: bool) -> int:
    """How many of ``_check``'s certain answers are lists (after it held them to the parse)."""
    lists = 0
    scan = _pathscan.scan_value

    def counting(
        text: str, item_form: bool, keys: tuple[str, ...], kept: dict[object, object] | None = None
    ) -> object:
        nonlocal lists
        found = scan(text, item_form, keys, kept)
        lists += isinstance(found, list)
        return found

    _pathscan.scan_value = counting
    try:
        _check(text, item_form)
    finally:
        _pathscan.scan_value = scan
    return lists


@pytest.mark.parametrize("layout", ["as-written", *sorted(layouts.LAYOUTS)])
def test_lists_of_maps_scan_as_the_parser_reads_them_in_every_layout(layout: str) -> None:
    """Each such document, re-written in each layout of the layout oracle, scans to what the
    parser reads (or gives way); in kpt's own layout the lists are answered, not given way."""
    documents = lists = 0
    for _name, source in _list_documents():
        try:
            text = source if layout == "as-written" else layouts.relayout(source, layout)
        except Exception:
            continue  # a file the layouts cannot re-make
        for part in text.split("\n---\n"):
            documents += 1
            lists += _lists_answered(part, item_form=False)
            if "kind: ResourceList" in part and layout != "crlf":
                try:
                    rl = ResourceList.parse(part)
                except InputError:
                    continue
                for obj in rl.items:
                    store = _storage.of(obj)
                    if store.is_item:
                        lists += _lists_answered(store.src, item_form=True)
    assert documents > 10
    if layout in ("as-written", "compact-sequences"):
        assert lists > 20, lists


def test_the_levels_kept_for_the_next_path_are_the_same_texts() -> None:
    """The scan keeps what it read of the last text for the next path asked of it: another
    text (one value changed, the same length), or the same text as an item, is read anew."""
    doc = "a:\n  b: 1\n  c: x\n"
    assert _pathscan.scan_value(doc, False, ("a", "b")) == 1
    assert _pathscan.scan_value(doc, False, ("a", "c")) == "x"
    assert _pathscan.scan_value(doc.replace("1", "2"), False, ("a", "b")) == 2
    assert _pathscan.scan_value("".join(doc), False, ("a", "b")) == 1  # equal, not the same object
    item = "- a:\n    b: 1\n"
    assert _pathscan.scan_value(item, True, ("a", "b")) == 1
    assert _pathscan.scan_value(item, False, ("a", "b")) is _pathscan.UNSURE  # a list, not a map
    assert _pathscan.scan_value(item, True, ("a",)) == {"b": 1}


def test_setting_a_list_to_what_it_is_parses_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """dnn-generator's settled run sets every DataNetwork's ``status.pools`` to what it is: the
    comparison reads it by the scan (833 full parses at 10k before), and a changed list is still
    written."""
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: req.nephio.org/v1alpha1\n  kind: DataNetwork\n  metadata:\n"
        "    name: internet\n  status:\n    pools:\n    - name: pool1\n"
        "      ipClaim:\n        prefix: 10.0.0.0/24\n    - name: pool2\n"
        "      ipClaim:\n        prefix: 10.0.1.0/24\n"
    )
    pools = [
        {"name": "pool1", "ipClaim": {"prefix": "10.0.0.0/24"}},
        {"name": "pool2", "ipClaim": {"prefix": "10.0.1.0/24"}},
    ]
    parses = [0]
    real = _storage.Storage.read

    def counting(self: _storage.Storage, *args: Any, **kwargs: Any) -> Any:
        if self.node is None and self.plain is None and self.text is not None:
            parses[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(_storage.Storage, "read", counting)
    obj = ResourceList.parse(text).items[0]
    assert obj.set("status.pools", pools) is False
    assert parses[0] == 0
    pools[1] = {"name": "pool2", "ipClaim": {"prefix": "10.0.2.0/24"}}
    assert obj.set("status.pools", pools) is True
    assert obj.get("status.pools") == pools


def test_setting_a_map_to_what_it_is_neither_splices_nor_parses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """dnn-generator's settled run sets every DataNetwork's ``status`` (a map holding the pools)
    to what it is: answered by the scan before the splice is tried; a changed map is written."""
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: req.nephio.org/v1alpha1\n  kind: DataNetwork\n  metadata:\n"
        "    name: internet\n  status:\n    pools:\n    - name: pool1\n"
        "      ipClaim:\n        prefix: 10.0.0.0/24\n"
    )
    status: dict[str, Any] = {"pools": [{"name": "pool1", "ipClaim": {"prefix": "10.0.0.0/24"}}]}
    tried: list[object] = []
    monkeypatch.setattr(_storage.Storage, "_splice", lambda *args: tried.append(args))
    monkeypatch.setattr(_storage.Storage, "read", lambda self: pytest.fail("parsed"))
    obj = ResourceList.parse(text).items[0]
    assert obj.set("status", status) is False
    assert tried == []
    monkeypatch.undo()
    status["pools"][0]["ipClaim"]["prefix"] = "10.0.9.0/24"
    assert obj.set("status", status) is True
    assert obj.get("status") == status


@pytest.mark.parametrize(
    ("written", "wanted", "text_after"),
    [
        ("1", True, "true"),
        ("true", 1, "1"),
        ("1", 1.0, "1.0"),
        ("0", False, "false"),
    ],
)
def test_a_value_equal_in_python_but_not_in_yaml_is_written(
    written: str, wanted: object, text_after: str
) -> None:
    """``1``, ``1.0`` and ``true`` are three YAML values that Python's ``==`` calls one: setting a
    map or list that differs only so is a change, written (the shortcut that answers "already
    so" compares types too)."""
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n"
        f"  spec:\n    m:\n      a: {written}\n    l:\n    - {written}\n"
    )
    rl = ResourceList.parse(text)
    obj = rl.items[0]
    assert obj.set("spec.m", {"a": wanted}) is True
    assert obj.set("spec.l", [wanted]) is True
    got = obj.get("spec")
    assert type(got["m"]["a"]) is type(wanted) and type(got["l"][0]) is type(wanted)
    out = rl.to_yaml()
    assert f"a: {text_after}\n" in out and f"- {text_after}\n" in out


def test_what_the_scans_keep_goes_with_an_edit_of_the_text() -> None:
    """The levels kept with an item's scans, and what a certain header scan told of its text (no
    scalar open over lines), are dropped when the text changes: the next read is the new
    text's."""
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n"
        "  data:\n    a: x\n  spec:\n    b: y\n"
    )
    obj = ResourceList.parse(text).items[0]
    other = ResourceList.parse(text.replace("name: cm", "name: other")).items[0]
    assert obj.kind == "ConfigMap"  # the header scan: the text has no open scalar
    assert obj.get("data") == {"a": "x"}
    assert other.get("data") == {"a": "x"}  # another text scanned in between
    assert obj.set("spec.b", "z") is True
    assert obj.get("spec") == {"b": "z"} and obj.get("data") == {"a": "x"}
    store = _storage.of(obj)
    store.replace_text(
        '- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n  data:\n    a: "x\n  spec: fake"\n'
    )
    assert store.closed is False
    assert obj.get("data") == {"a": "x spec: fake"}
    assert obj.get("spec") is None


def test_a_scanned_value_handed_out_is_a_copy() -> None:
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n"
        "  spec:\n    pools:\n    - name: a\n      sub:\n        x: y\n"
    )
    obj = ResourceList.parse(text).items[0]
    spec = obj.get("spec")
    spec["pools"][0]["sub"]["x"] = "changed"
    spec["pools"].append({})
    assert obj.get("spec") == {"pools": [{"name": "a", "sub": {"x": "y"}}]}


ENTRY_LINES = [
    "      a: b\n",
    "      a: 'b'\n",
    '      a: "b"\n',
    "      b: '10'\n",
    "      c: 10\n",
    "      c: true\n",
    "      d: @x\n",
    "      e: -x\n",
    "      f:  x\n",
    "      g: x # c\n",
    "\n",
    "    # c\n",
    "     h: x\n",
    "       i: x\n",
    "      j: ''\n",
    "      k: a/b:c@d\n",
    "      l: null\n",
    "    labels:\n",
]


def test_annotations_scanned_in_one_pass_are_the_parsers() -> None:
    """The one-pass read of an annotations map (kpt's ``key: value`` lines), and the loop it
    leaves every other line to: every certain answer is the parser's, on maps of up to three
    lines of each form (a duplicate key, a blank or comment line, another indent, a value that
    is no plain string, a following key; a text YAML refuses is the input check's)."""
    answered = 0
    for first in ENTRY_LINES:
        for second in ENTRY_LINES:
            for third in ("", "      z: y\n", "      z: y"):
                for tail in ("", "  spec:\n    a: b\n"):
                    body = first + second + third + ("\n" if third.endswith("y") and tail else "")
                    text = (
                        "- apiVersion: v1\n  kind: X\n  metadata:\n    name: n\n"
                        f"    annotations:\n{body}{tail}"
                    )
                    _scan._LAST_OPEN[0] = ("", False)
                    found = _scan.scan_metadata_map(text, True, "annotations")
                    if found is None:
                        continue
                    try:
                        parsed = _yaml.load_plain(_trees.item_to_doc(text))
                    except InputError:
                        continue  # refused whole by the input's check before any scan
                    annotations = parsed["metadata"].get("annotations") or {}
                    assert found == annotations, text
                    answered += 1
    assert answered > 100


def test_a_block_map_read_in_many_items_is_read_once_and_never_shared_out() -> None:
    """Two items holding the same ``spec`` text: the second's map comes from the first's reading
    (one reading of its levels), each ``get`` hands out its own copy, and an edit of one item
    leaves the other's value as it is."""
    item = (
        "- apiVersion: v1\n  kind: X\n  metadata:\n    name: {name}\n"
        "  spec:\n    selector:\n      matchLabels:\n        a: b\n    size: 16\n"
        "  status:\n    x: {name}\n"
    )
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(
        item.format(name=name) for name in ("one", "two")
    )
    one, two = ResourceList.parse(text).items
    levels = [0]
    real = _pathscan._level

    def counting(*args: Any) -> Any:
        levels[0] += 1
        return real(*args)

    _pathscan._MAPS.clear()
    _pathscan._level = counting  # type: ignore[assignment]
    try:
        assert one.get("spec") == {"selector": {"matchLabels": {"a": "b"}}, "size": 16}
        first = levels[0]
        assert two.get("spec") == one.get("spec")
        assert levels[0] == first + 1  # the second item's top level only
    finally:
        _pathscan._level = real
    mine = one.get("spec")
    mine["selector"]["matchLabels"]["a"] = "changed"
    assert two.get("spec.selector.matchLabels") == {"a": "b"}
    assert one.set("spec.selector.matchLabels.a", "c") is True
    assert one.get("spec.selector.matchLabels") == {"a": "c"}
    assert two.get("spec.selector.matchLabels") == {"a": "b"}
    assert (one.get("status.x"), two.get("status.x")) == ("one", "two")
