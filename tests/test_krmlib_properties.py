"""Property tests: the fast paths (text split, lazy parse, in-place splice) equal the full round trip."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from krmlib import KubeObject, ResourceList
from krmlib._model.storage import of
from krmlib._yaml import engines as _yaml
from krmlib._yaml import scalars as _scalars
from krmlib._yaml import splice as _splice
from krmlib._yaml.scalars import _AMBIGUOUS, needs_quotes

# Plain names that YAML 1.1 readers (kubectl) take for booleans: refused as names (issue 27.2),
# so the generators of valid packages leave them out.
YAML11_BOOLEANS = frozenset(
    [
        "y",
        "Y",
        "yes",
        "Yes",
        "YES",
        "n",
        "N",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
    ]
)


def not_yaml11_boolean(name: str) -> bool:
    return name not in YAML11_BOOLEANS


NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True).filter(not_yaml11_boolean)
KEYS = st.sampled_from(["app", "tier", "example.com/role", "krmfn.dev/x", "a", "n", "version"])
VALUES = st.one_of(
    NAMES,
    st.sampled_from(["yes", "012", "on", "True", "1e3", "", "v1.2", "a/b", "null", "12:30"]),
)
SCALARS = st.one_of(
    NAMES,
    st.integers(-5, 5000),
    st.booleans(),
    st.sampled_from(["yes", "'on'", '"012"', "with space", "~", "https://x.y/z?q=1"]),
)
COMMENTS = st.sampled_from(["", " # note", ""])


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if text.startswith(("'", '"')) or text == "~":
        return text
    return f'"{text}"' if _scalars.needs_quotes(text) or ":" in text or "#" in text else text


@st.composite
def items(draw: st.DrawFn) -> str:
    """One item in kpt's ResourceList style (``- `` + two-space indent, compact lists)."""
    name = draw(NAMES)
    lines = [f"- apiVersion: {draw(st.sampled_from(['v1', 'apps/v1', 'example.com/v1alpha1']))}"]
    if draw(st.booleans()):
        lines.insert(0, "- # head comment")
        lines[1] = "  " + lines[1][2:]
    lines.append(f"  kind: {draw(st.sampled_from(['ConfigMap', 'Deployment', 'Widget']))}")
    lines.append("  metadata:")
    lines.append(f"    name: {name}{draw(COMMENTS)}")
    if draw(st.booleans()):
        lines.append("    namespace: default")
    for section in ("labels", "annotations"):
        entries = draw(st.dictionaries(KEYS, VALUES, max_size=3))
        if entries:
            lines.append(f"    {section}:")
            lines += [f"      {k}: {_scalar_text(v)}" for k, v in entries.items()]
    if draw(st.booleans()):
        lines += ["    ownerReferences:", "    - apiVersion: v1", "      kind: X", "      name: o"]
    if draw(st.booleans()):
        lines.append("  spec:")
        for key, value in draw(st.dictionaries(NAMES, SCALARS, max_size=4)).items():
            lines.append(f"    {key}: {_scalar_text(value)}{draw(COMMENTS)}")
        if draw(st.booleans()):
            lines += ["    list:", "    - a", "    - b: c", "      d: e"]
        if draw(st.booleans()):
            lines += ["    text: |", "      line one", "        line two"]
    return "\n".join(lines) + "\n"


EDITS = st.lists(
    st.tuples(st.sampled_from(["labels", "annotations"]), KEYS, VALUES), min_size=1, max_size=4
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _resource_list(texts: list[str]) -> str:
    return "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(texts)


@SETTINGS
@given(st.lists(items(), min_size=1, max_size=5))
def test_split_equals_full_parse(texts: list[str]) -> None:
    text = _resource_list(texts)
    fast = ResourceList.parse(text)
    full = _yaml.load_rt(text)
    assert [o.to_dict() for o in fast.items] == [_yaml.to_plain(i) for i in full["items"]]
    assert fast.to_yaml() == text  # untouched items come back byte-identical
    scanned = ResourceList.parse(text)  # label/annotation maps read from the text, unparsed
    for cheap, parsed in zip(scanned.items, fast.items, strict=True):
        assert dict(cheap.labels) == dict(parsed.labels)
        assert dict(cheap.annotations) == dict(parsed.annotations)


@SETTINGS
@given(items(), EDITS)
def test_splice_equals_round_trip(text: str, edits: list[tuple[str, str, str]]) -> None:
    spliced = KubeObject(src=text, form="item")
    full = KubeObject(src=text, form="item")
    of(full).tree()  # force the round-trip path
    for section, key, value in edits:
        changed_a = spliced.set(("metadata", section, key), value)
        changed_b = full.set(("metadata", section, key), value)
        assert changed_a == changed_b
    expected = full.to_item() if full.changed else text
    assert spliced.to_item() == expected
    assert spliced.to_dict() == full.to_dict()


@SETTINGS
@given(st.lists(items(), min_size=1, max_size=4))
def test_running_twice_equals_running_once(texts: list[str]) -> None:
    def label(text: str) -> str:
        rl = ResourceList.parse(text)
        for obj in rl.items:
            obj.labels["krmfn.dev/part-of"] = "set-1"
        return rl.to_yaml()

    once = label(_resource_list(texts))
    assert label(once) == once


EMIT_STRINGS_LIST = [
    "yes", "012", "on", "True", "1e3", "", "v1.2", "a/b", "null", "12:30", "create resource",
    "a: b", "x #y", " lead", "trail ", "multi\nline", "it's", 'say "hi"', "~", "*", "-x",
    "10.0.0.1/24", "req.nephio.org/v1alpha1.Interface.n3", "0.5", "-1", "a,b", "(x)",
    "cniType ipvlan differs from the cluster's cniType (see spec.x); expanded all the same",
    "it's a 'quoted' \"word\"", "a [b] {c}", "50%", "x: y", "x:y", "ends with:", "?q", "x?",
    "a & b", "a * b", "--- doc", "... dots", "x\ty", "ünï", "a  b", "#x", "x#y",
    "@at", "`tick`", "a|b", "a>b", "!bang", "*star", "&amp", "' lead", "trail'",
    "spec.x 'v' is bad: expected y", "a 'b' \"c\": d", "back\\slash: x",
    "line\n", "two words\n", "x\n\n", "T\n", "\n",
]  # fmt: skip
EMIT_STRINGS = st.one_of(
    NAMES,
    st.sampled_from(EMIT_STRINGS_LIST),
    st.text(st.sampled_from("aZ09 .:-#'\"\n\tyn~=<+"), max_size=8),
)
EMIT_SCALARS = st.one_of(EMIT_STRINGS, st.integers(-3, 300), st.booleans(), st.none())
EMIT_KEYS = st.one_of(
    NAMES, st.sampled_from(["apiVersion", "nephio.org/site", "a.b/c-d", "1", "true", "x y"])
)
EMIT_VALUES = st.recursive(
    EMIT_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(EMIT_KEYS, inner, max_size=3)
    ),
    max_leaves=12,
)


@SETTINGS
@given(st.dictionaries(EMIT_KEYS, EMIT_VALUES, min_size=1, max_size=5))
def test_small_emitter_equals_round_trip(data: dict[str, Any]) -> None:
    from krmlib._yaml.emit import emit

    text = emit(data)
    if text is not None:
        assert text == _yaml.dump_rt(_yaml.to_node(data))


@pytest.mark.parametrize("value", EMIT_STRINGS_LIST)
def test_small_emitter_quotes_every_sample_string_like_the_round_trip(value: str) -> None:
    from krmlib._yaml.emit import emit

    data = {"message": value, "list": [value, {"k": value}]}
    text = emit(data)
    if text is not None:
        assert text == _yaml.dump_rt(_yaml.to_node(data))


@pytest.mark.parametrize("value", ["x\n", "hello world\n", "T\n", "a\n\n"])
def test_a_new_objects_value_ending_in_a_newline_reads_back_whole(value: str) -> None:
    """The small emitter wrote ``x\\n`` plain, as ``x`` (its pattern's ``$`` matched before
    the final newline): the newline was lost. It now leaves such values to the round trip."""
    from krmlib._yaml.emit import emit

    data = {"data": {"a": value}, "list": [value]}
    text = emit(data)
    assert text is None or text == _yaml.dump_rt(_yaml.to_node(data))
    obj = KubeObject.from_dict(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"a": value}}
    )
    rl = ResourceList.parse("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n")
    rl.items.append(obj)
    assert ResourceList.parse(rl.to_yaml()).items[0].get("data.a") == value


@settings(max_examples=500, deadline=None)
@given(st.from_regex(re.compile(_AMBIGUOUS, re.X)))
def test_every_string_needing_quotes_starts_with_a_listed_character(value: str) -> None:
    """The emitter asks :func:`needs_quotes` only of a printable string whose first character
    is one of ``_AMBIGUOUS_FIRST``: every string the pattern matches starts so ("\\n" matches
    too, ``$`` before a final newline: it is not printable)."""
    from krmlib._yaml.emit import _AMBIGUOUS_FIRST

    assert needs_quotes(value)
    assert value == "" or not value.isprintable() or value[0] in _AMBIGUOUS_FIRST


def test_small_emitter_writes_typical_new_objects() -> None:
    from krmlib._yaml.emit import emit

    child = {
        "apiVersion": "ipam.nephio.org/v1alpha1",
        "kind": "IPAllocation",
        "metadata": {
            "name": "n6-ip-1a2b3c",
            "annotations": {"config.kubernetes.io/path": "ipallocation_n6.yaml"},
            "ownerReferences": [
                {"apiVersion": "req.nephio.org/v1alpha1", "kind": "Interface", "name": "n6"}
            ],
        },
        "spec": {
            "kind": "network",
            "prefixLength": 32,
            "selector": {"matchLabels": {"nephio.org/site": "edge1"}},
        },
        "status": {},
    }
    text = emit(child)
    assert text is not None
    assert text == _yaml.dump_rt(_yaml.to_node(child))


CONDITIONS = st.lists(
    st.fixed_dictionaries(
        {"type": NAMES, "status": st.sampled_from(["True", "False", "Unknown"])},
        optional={"reason": NAMES, "message": st.sampled_from(["create resource", "done", "a: b"])},
    ),
    min_size=1,
    max_size=3,
)


@SETTINGS
@given(items(), st.lists(CONDITIONS, min_size=1, max_size=3), st.booleans())
def test_splice_of_growing_lists_and_new_blocks_equals_round_trip(
    text: str, batches: list[list[dict[str, str]]], with_gates: bool
) -> None:
    spliced = KubeObject(src=text, form="item")
    full = KubeObject(src=text, form="item")
    of(full).tree()
    conditions: list[dict[str, str]] = []
    for batch in batches:
        conditions = conditions + batch
        assert spliced.set("status.conditions", conditions) == full.set(
            "status.conditions", conditions
        )
        if with_gates:
            gate = {"conditionType": batch[0]["type"]}
            assert spliced.set("info.readinessGates", [gate]) == full.set(
                "info.readinessGates", [gate]
            )
    assert spliced.to_item() == full.to_item()
    assert spliced.to_dict() == full.to_dict()


# Lines that break kpt's regular layout somewhere in an item: the fast label splice must leave
# each to the general path, or write what the general path writes.
ODD_LINES = st.sampled_from(
    [
        "",
        "  ",
        "  # comment",
        "    # comment",
        "      # comment",
        "# column 0",
        "   three: deep",
        "  odd_key: 1",
        "  other:",
        "    labels: {}",
        "    labels: # note",
        "    annotations:",
        "      deep:",
        "        deeper: x",
        "      app: again",
        "    - entry",
        "  - top",
        "  metadata: # c",
        "\tkey: tab",
        "      a: 'quoted'",
        '      n: "012"',
        "      x: value # note",
        "     five: deep",
        "  'quoted': x",
        "  a:b",
        " one: deep",
        "top: zero",
        "    'q': x",
        "      n:x",
        "    ? complex",
    ]
)


@SETTINGS
@given(
    items(),
    st.lists(st.tuples(st.integers(1, 40), ODD_LINES), max_size=2),
    st.sampled_from(["labels", "annotations"]),
    KEYS,
    VALUES,
)
@example(  # a deeper line after a dash's line that holds only a comment: the fast path edited it
    "- # head comment\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n  spec:\n"
    "    a: 0\n",
    [(1, "   three: deep")],
    "labels",
    "app",
    "yes",
)
def test_fast_metadata_splice_equals_the_general_path(
    text: str, odd: list[tuple[int, str]], section: str, key: str, value: str
) -> None:
    lines = text.split("\n")
    for at, line in odd:
        lines.insert(min(at, len(lines) - 1), line)
    text = "\n".join(lines)
    fast = _splice._set_metadata_entry(text, section, key, value)
    general = _splice._splice_lines(text, True, ("metadata", section, key), value, None)
    if fast is not None:
        assert fast == general
    assert _splice.splice_set(text, True, ("metadata", section, key), value) == general


BASE = "- apiVersion: v1\n  kind: X\n  metadata:\n    name: a\n{meta}  spec:\n    x: 1\n"


@pytest.mark.parametrize(
    ("meta", "fast_answers"),
    [
        ("    labels:\n      app: old\n", True),  # replaced
        ("    labels:\n      tier: t\n", True),  # added after the last entry
        ("", True),  # a new labels block
        ("    labels:\n      app: old\n      app: again\n", False),  # a duplicate entry
        ("    labels:\n      t: a\n    labels:\n      u: b\n", False),  # a duplicate key
        ("    labels:\n      app: |\n        text\n", False),  # a block scalar
        ("    labels:\n      tier: t\n        deeper: x\n", False),  # deeper lines
        ("    labels: {}\n", False),  # flow style
        ("    labels: # note\n      app: old\n", False),  # a comment on the key line
        ("    labels:\n    annotations:\n      a: b\n", False),  # labels null
        ("    labels:\n      # c\n      app: old\n", False),  # a comment among the entries
        ("    labels:\n      app: old # note\n", False),  # a line comment: the general path
        ("    labels:\n      app: old\n  # before spec\n", False),  # a comment after metadata
        ("    labels:\n      app: old\n\n", False),  # a blank line after metadata
        ("  'quoted': x\n", False),  # an odd top-level key
        ("    labels:\n    - a\n", False),  # a list where a map is needed
    ],
)
def test_fast_metadata_splice_answers_only_the_regular_layout(
    meta: str, fast_answers: bool
) -> None:
    text = BASE.format(meta=meta)
    keys = ("metadata", "labels", "app")
    fast = _splice._set_metadata_entry(text, "labels", "app", "new")
    assert (fast is not None) == fast_answers
    general = _splice._splice_lines(text, True, keys, "new", None)
    if fast is not None:
        assert fast == general
    assert _splice.splice_set(text, True, keys, "new") == general


@SETTINGS
@given(
    st.lists(items(), min_size=1, max_size=4),
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from(["labels", "annotations"]), KEYS, VALUES)
    ),
)
def test_items_edited_in_place_are_written_as_their_own_text(
    texts: list[str], edits: list[tuple[int, str, str, str]]
) -> None:
    """A span of the input edited in place (a patch) reads and writes like an item that owns its
    text; the output pieces keep the unedited parts as spans of the input."""
    rl = ResourceList.parse(_resource_list(texts))
    owned = [KubeObject(src=text, form="item") for text in texts]
    for index, section, key, value in edits:
        if index < len(texts):
            a = rl.items[index].set(("metadata", section, key), value)
            b = owned[index].set(("metadata", section, key), value)
            assert a == b
            assert of(rl.items[index]).src == of(owned[index]).src
    expected = _resource_list([obj.to_item() for obj in owned])
    assert rl.to_yaml() == expected
    for obj, own in zip(rl.items, owned, strict=True):
        assert obj.to_dict() == own.to_dict()
        assert dict(obj.labels) == dict(own.labels)
        assert obj.is_local_config == own.is_local_config
