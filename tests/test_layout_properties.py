"""Every fast path of krmlib answers what the full parser answers, or gives way (issue 33.1).

hypothesis makes random KRM objects and writes each in a random layout kpt accepts: 2-, 3- or
4-space indentation; indented or compact sequences; flow maps and lists anywhere (``metadata:
{...}`` included); quoted keys and values; comment lines and line comments; anchors and aliases
for repeated values; ``---``/``...`` markers and a ``%YAML 1.2`` directive; JSON documents; CRLF
line ends; as a document or as an ``items`` entry (``- `` with the item's keys two or four deep).
Then each fast path is held to libyaml's full parse (``krmlib._yaml.full.CoreLoader``):

- the scans (``_scan.scan_header``, ``scan_metadata_map``, ``scan_value``): a certain answer is
  the parser's;
- the splice (``_splice.splice_set``): text it gives parses to the old content with the one
  value set;
- the in-place edits of a ``KubeObject`` (a label, a path set through an alias or an anchor):
  the written text parses to the old content with that one value changed, nothing else (an
  aliased node is never edited through its alias).

The default suite runs a small sample; ``KRMLIB_LAYOUT_EXAMPLES=10000`` (``make test-layouts``)
runs 10,000 examples of each property.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmlib import KubeObject
from krmlib._model import trees as _trees
from krmlib._model.object import span_object
from krmlib._yaml import pathscan as _pathscan
from krmlib._yaml import scan as _scan
from krmlib._yaml.full import CoreLoader
from krmlib._yaml.splice import splice_set

EXAMPLES = int(os.environ.get("KRMLIB_LAYOUT_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- random KRM objects -------------------------------------------------------------------------

STRINGS = st.sampled_from(
    [
        "a",
        "web",
        "vpc-ran",
        "10.0.0.1/24",
        "example.com/x",
        "true",
        "yes",
        "null",
        "1",
        "0x1F",
        "1.5",
        "",
        "with space",
        "a: b",
        "#x",
        "it's",
        'say "hi"',
        "- x",
        "[a]",
        "{a: 1}",
        "*x",
        "&y",
        "%z",
        "ünï",
    ]
)
SCALARS = st.one_of(STRINGS, STRINGS, st.integers(-5, 300), st.booleans(), st.none(), st.just(1.5))
KEYS = st.sampled_from(
    ["a", "b", "app", "name", "spec", "x.y/z", "k-1", "ports", "data", "true", "on", "e f"]
)
LABEL_KEYS = st.sampled_from(
    ["app", "tier", "example.com/part", "internal.config.kubernetes.io/path", "x", "a.b"]
)
LABEL_VALUES = st.sampled_from(["web", "db", "1", "true", "", "a b", "v1.2", "0"])


def _values(depth: int) -> st.SearchStrategy[Any]:
    if depth >= 3:
        return SCALARS
    child = st.deferred(lambda: _values(depth + 1))
    return st.one_of(
        SCALARS,
        SCALARS,
        st.dictionaries(KEYS, child, max_size=3),
        st.lists(child, max_size=3),
        st.lists(
            st.dictionaries(
                KEYS, st.one_of(SCALARS, st.dictionaries(KEYS, SCALARS, max_size=2)), max_size=3
            ),
            min_size=1,
            max_size=3,
        ),
    )


@st.composite
def krm_objects(draw: st.DrawFn) -> dict[str, Any]:
    """A KRM object as plain values; a value may be shared by two fields (an anchor's content)."""
    metadata: dict[str, Any] = {"name": draw(st.sampled_from(["a", "web-1", "x.y"]))}
    if draw(st.booleans()):
        metadata["namespace"] = draw(st.sampled_from(["default", "ns-1"]))
    for section in ("labels", "annotations"):
        if draw(st.integers(0, 2)):
            metadata[section] = draw(st.dictionaries(LABEL_KEYS, LABEL_VALUES, max_size=3))
    keys = list(metadata)
    order = draw(st.permutations(keys))
    metadata = {key: metadata[key] for key in order}
    spec = draw(st.dictionaries(KEYS, _values(1), max_size=4))
    if draw(st.booleans()):  # a Deployment's selector shared with its template's labels
        labels = draw(st.dictionaries(LABEL_KEYS, LABEL_VALUES, min_size=1, max_size=2))
        spec["selector"] = {"matchLabels": labels}
        spec["template"] = {"metadata": {"labels": labels}}
    obj: dict[str, Any] = {
        "apiVersion": draw(st.sampled_from(["v1", "apps/v1", "example.com/v1alpha1"])),
        "kind": draw(st.sampled_from(["ConfigMap", "Deployment", "Thing"])),
        "metadata": metadata,
        "spec": spec,
    }
    top = draw(st.permutations(list(obj)))
    return {key: obj[key] for key in top}


# --- layouts ------------------------------------------------------------------------------------


class Layout:
    """The style choices of one rendering (drawn per node)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.step = draw(st.sampled_from([2, 2, 3, 4]))
        self.indented_lists = draw(st.booleans())
        self.flow = draw(st.sampled_from([0, 0, 1, 3]))  # in ten: a map or list in flow style
        self.comments = draw(st.sampled_from([0, 0, 1, 3]))  # in ten
        self.quote_keys = draw(st.sampled_from([0, 0, 1]))  # in ten
        self.anchors = draw(st.booleans())
        self.flow_metadata = draw(st.integers(0, 5)) == 0
        self.anchors_made: dict[int, str] = {}

    def chance(self, tenths: int) -> bool:
        return tenths > 0 and self.draw(st.integers(0, 9)) < tenths


def _plain_ok(text: str) -> bool:
    """Whether ``text`` written plain reads back as the string itself."""
    if not text or text.strip() != text or "\n" in text or text[0] in "'\"":
        return False
    try:
        return bool(CoreLoader(f"k: {text}\n").get_single_data() == {"k": text})
    except Exception:  # not a plain scalar
        return False


def scalar(value: Any, layout: Layout, in_flow: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return layout.draw(st.sampled_from(["null", "~", ""])) if not in_flow else "null"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value)
    style = layout.draw(st.sampled_from(["plain", "plain", "single", "double"]))
    bad_in_flow = in_flow and any(c in text for c in ",[]{}")
    if style == "plain" and _plain_ok(text) and not bad_in_flow:
        return text
    if style == "double" or "'" in text:
        return json.dumps(text, ensure_ascii=False)
    return "'" + text.replace("'", "''") + "'"


def key_text(key: str, layout: Layout) -> str:
    if layout.chance(layout.quote_keys) or not _plain_ok(key) or key in ("true", "on"):
        if key in ("true", "on") and not layout.chance(layout.quote_keys):
            return json.dumps(key)
        return json.dumps(key) if layout.draw(st.booleans()) else f"'{key}'"
    return key


def flow(value: Any, layout: Layout) -> str:
    if isinstance(value, dict):
        inner = ", ".join(f"{key_text(k, layout)}: {flow(v, layout)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v, layout) for v in value) + "]"
    return scalar(value, layout, in_flow=True)


def _anchor(value: Any, layout: Layout, shared: set[int]) -> tuple[str, bool]:
    """(the anchor or alias text before the value, whether it is an alias)."""
    if not layout.anchors or id(value) not in shared:
        return "", False
    name = layout.anchors_made.get(id(value))
    if name is not None:
        return f"*{name}", True
    name = layout.anchors_made[id(value)] = f"a{len(layout.anchors_made)}"
    return f"&{name}", False


def block(value: dict[str, Any], indent: int, layout: Layout, shared: set[int]) -> list[str]:
    """The lines of a block map at ``indent``."""
    pad = " " * indent
    lines: list[str] = []
    for key, sub in value.items():
        if layout.chance(layout.comments):
            lines.append(f"{' ' * layout.draw(st.sampled_from([0, indent]))}# note")
        comment = " # c" if layout.chance(layout.comments) else ""
        head = f"{pad}{key_text(key, layout)}:"
        mark, alias = _anchor(sub, layout, shared) if isinstance(sub, dict | list) else ("", False)
        if alias:
            lines.append(f"{head} {mark}{comment}")
            continue
        lead = f" {mark}" if mark else ""
        force_flow = key == "metadata" and indent == 0 and layout.flow_metadata
        if isinstance(sub, dict) and sub and not (force_flow or layout.chance(layout.flow)):
            lines.append(f"{head}{lead}{comment}")
            lines.extend(block(sub, indent + layout.step, layout, shared))
        elif isinstance(sub, list) and sub and not layout.chance(layout.flow):
            lines.append(f"{head}{lead}{comment}")
            at = indent + (layout.step if layout.indented_lists else 0)
            lines.extend(sequence(sub, at, layout, shared))
        elif isinstance(sub, dict | list):
            lines.append(f"{head}{lead} {flow(sub, layout)}{comment}")
        else:
            text = scalar(sub, layout)
            lines.append(f"{head} {text}{comment}" if text else f"{head}{comment}")
    return lines


def sequence(value: list[Any], indent: int, layout: Layout, shared: set[int]) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    for entry in value:
        if isinstance(entry, dict) and entry and not layout.chance(layout.flow):
            inner = block(entry, indent + 2, layout, shared)
            first = next(i for i, line in enumerate(inner) if not line.lstrip().startswith("#"))
            lines.extend(inner[:first])
            lines.append(f"{pad}- {inner[first][indent + 2 :]}")
            lines.extend(inner[first + 1 :])
        elif isinstance(entry, dict | list):
            lines.append(f"{pad}- {flow(entry, layout)}")
        else:
            lines.append(f"{pad}- {scalar(entry, layout, in_flow=True)}".rstrip())
    return lines


def _shared(value: Any, seen: dict[int, int], out: set[int]) -> None:
    if isinstance(value, dict | list):
        seen[id(value)] = seen.get(id(value), 0) + 1
        if seen[id(value)] > 1:
            out.add(id(value))
            return
        for sub in value.values() if isinstance(value, dict) else value:
            _shared(sub, seen, out)


@st.composite
def layouts(draw: st.DrawFn) -> tuple[str, bool, dict[str, Any]]:
    """(text, item form, the object as plain values)."""
    obj = draw(krm_objects())
    layout = Layout(draw)
    item_form = draw(st.booleans())
    shared: set[int] = set()
    _shared(obj, {}, shared)
    if not item_form and draw(st.integers(0, 9)) == 0:
        text = json.dumps(obj, indent=draw(st.sampled_from([None, 2, 4]))) + "\n"
    else:
        lines = block(obj, 0, layout, shared)
        if item_form:
            pad = draw(st.sampled_from([2, 2, 4]))
            lines = [line if not line.strip() else " " * pad + line for line in lines]
            first = next(i for i, line in enumerate(lines) if not line.lstrip().startswith("#"))
            lines = lines[first:]
            lines[0] = "- " + lines[0][2:]
        text = "\n".join(lines) + "\n"
        if not item_form:
            text = draw(st.sampled_from(["", "", "---\n", "%YAML 1.2\n---\n"])) + text
            text += draw(st.sampled_from(["", "", "...\n"]))
    if draw(st.integers(0, 9)) == 0:
        text = text.replace("\n", "\r\n")
    return text, item_form, obj


# --- the oracle ---------------------------------------------------------------------------------


def parse(text: str, item_form: bool) -> Any:
    """The full parser's answer for the text (an item: inside an ``items`` list)."""
    if item_form:
        data = CoreLoader("items:\n" + text).get_single_data()
        return data["items"][0]
    return CoreLoader(text).get_single_data()


def plain_copy(value: Any) -> Any:
    """A copy that shares nothing (an alias's content copied apart)."""
    if isinstance(value, dict):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_copy(v) for v in value]
    return value


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def paths(value: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    if isinstance(value, dict):
        for key, sub in value.items():
            if isinstance(key, str):
                yield (*prefix, key)
                yield from paths(sub, (*prefix, key))
        yield (*prefix, "absent-key")


def _str(value: Any) -> str:
    return "" if value is None or value is _trees.MISSING else str(value)


def with_set(data: Any, keys: tuple[str, ...], value: Any) -> Any:
    out = plain_copy(data)
    node = out
    for key in keys[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[keys[-1]] = value
    return out


# --- the properties -----------------------------------------------------------------------------


@SETTINGS
@given(layouts())
def test_the_scans_answer_as_the_parser(case: tuple[str, bool, dict[str, Any]]) -> None:
    text, item_form, _obj = case
    parsed = parse(text, item_form)
    header = _scan.scan_header(text, item_form)
    if header is not None:
        expected = tuple(
            _str(_trees.walk(parsed, p))
            for p in (("apiVersion",), ("kind",), ("metadata", "name"), ("metadata", "namespace"))
        )
        assert header == expected, (header, expected, text)
    for section in ("labels", "annotations"):
        scanned = _scan.scan_metadata_map(text, item_form, section)
        if scanned is not None:
            value = _trees.walk(parsed, ("metadata", section))
            expected_map = {} if value is None or value is _trees.MISSING else value
            assert same(scanned, expected_map), (section, scanned, expected_map, text)
    for path in [*paths(parsed), ("absent-key", "x")]:
        found = _pathscan.scan_value(text, item_form, path)
        if found is _pathscan.UNSURE:
            continue
        expected = _trees.walk(parsed, path)
        if expected is _trees.MISSING:
            assert found is _pathscan.ABSENT, (path, found, text)
        else:
            assert found is not _pathscan.ABSENT, (path, expected, text)
            assert same(found, plain_copy(expected)), (path, found, expected, text)


EDITS = st.sampled_from(
    [
        ("metadata", "labels", "app"),
        ("metadata", "labels", "new"),
        ("metadata", "annotations", "example.com/note"),
        ("spec", "template", "metadata", "labels", "app"),
        ("spec", "template", "metadata", "labels", "tier"),
        ("spec", "selector", "matchLabels", "app"),
        ("spec", "a"),
        ("spec", "new", "deeper"),
        ("data", "k"),
    ]
)
NEW_VALUES = st.sampled_from(["web", "v2", "true", "", "a b", "10"])


def _settable(parsed: Any, keys: tuple[str, ...]) -> bool:
    """Whether set() takes ``keys`` on ``parsed``: no scalar or list before the last key."""
    for depth in range(1, len(keys)):
        found = _trees.walk(parsed, keys[:depth])
        if found is not _trees.MISSING and found is not None and not isinstance(found, dict):
            return False
    return True


@SETTINGS
@given(layouts(), EDITS, NEW_VALUES)
def test_the_splice_writes_what_the_parser_reads(
    case: tuple[str, bool, dict[str, Any]], keys: tuple[str, ...], value: str
) -> None:
    text, item_form, _obj = case
    parsed = parse(text, item_form)
    if not _settable(parsed, keys):
        return  # a scalar or list where the path goes on: set() refuses it
    new = splice_set(text, item_form, keys, value)
    if new is None:
        return
    assert same(parse(new, item_form), with_set(parsed, keys, value)), (keys, value, text, new)


@SETTINGS
@given(layouts(), EDITS, NEW_VALUES)
def test_an_edit_changes_that_one_value(
    case: tuple[str, bool, dict[str, Any]], keys: tuple[str, ...], value: str
) -> None:
    text, item_form, _obj = case
    parsed = parse(text, item_form)
    if not _settable(parsed, keys):
        return  # a scalar or list where the path goes on: set() refuses it
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # the reader reads CRLF as LF before any item is made
        parsed = parse(text, item_form)
    obj = span_object(text, 0, len(text)) if item_form else KubeObject.from_yaml(text)
    obj.set(keys, value)
    out = obj.to_item() if item_form else obj.to_yaml()
    try:
        written = parse(out, item_form)
    except Exception as exc:
        raise AssertionError(f"not YAML: {out!r} from {text!r}") from exc
    assert same(written, with_set(parsed, keys, value)), (keys, value, text, obj.to_yaml())
