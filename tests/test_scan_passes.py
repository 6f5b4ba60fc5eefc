"""Passes merged for speed answer as the passes they replaced (issue 37, applyset-labeler):

- the header scan (``_scan.scan_header``): one pass for the header's lines and the odd lines
  (``_HEAD``'s last group) instead of a search for odd lines and then a pass for the header,
  and the values of apiVersion, kind and namespace kept (``_clean_kept``);
- the label splice (``splice._set_metadata_entry``): one pass for the top-level keys and the odd
  top-level lines (``_TOP_LINE``) instead of two.

The replaced code is transcribed here as it was (krmlib at c48d4b8) and both are run on generated
lines of kpt's layout and near it: quoted, complex, merge and flow keys, anchors, aliases, tags,
3- and 1-space indents, comments, blank lines, duplicate keys, values with comments and quotes.
"""

from __future__ import annotations

import re
from sys import intern

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from krmlib import ResourceList
from krmlib._io.resourcelist import piece_text
from krmlib._model.object import span_object
from krmlib._model.storage import of
from krmlib._yaml import scan as _scan
from krmlib._yaml import splice as _splice

# --- as they were ---------------------------------------------------------------------------------

OLD_HEAD = {
    True: re.compile(r"\n(?:- |  )(?:([A-Za-z_][\w.-]*):([^\n]*)|  (name|namespace):([^\n]*))"),
    False: re.compile(r"\n(?:([A-Za-z_][\w.-]*):([^\n]*)|  (name|namespace):([^\n]*))"),
}
OLD_HEAD_ODD = {
    True: re.compile(r"\n(?:- |  )(?:  )?[\"'?{\[<&*!%@`|>]"),
    False: re.compile(r"\n(?:  )?[\"'?{\[<&*!%@`|>]"),
}


def old_scan_header(text: str, item_form: bool) -> tuple[str, str, str, str] | None:
    if "\r" in text or _scan.open_scalar(text):
        return None
    if OLD_HEAD_ODD[item_form].search("\n" + text) is not None:
        return None
    top: dict[str, str] = {}
    meta: dict[str, str] = {}
    current = ""
    for match in OLD_HEAD[item_form].finditer("\n" + text):
        key, value, meta_key, meta_value = match.groups()
        if key is not None:
            if key in top:
                return None
            current = key
            top[key] = value
        elif current == "metadata":
            if meta_key in meta:
                return None
            meta[meta_key] = meta_value
    if "apiVersion" not in top or "kind" not in top or "name" not in meta:
        return None
    if top.get("metadata", "").split(" #", 1)[0].strip():
        return None
    api_version = _scan.clean_scalar(top["apiVersion"])
    kind = _scan.clean_scalar(top["kind"])
    name = _scan.clean_scalar(meta["name"])
    namespace = _scan.clean_scalar(meta["namespace"]) if "namespace" in meta else ""
    if api_version is None or kind is None or name is None or namespace is None:
        return None
    return intern(api_version), intern(kind), name, intern(namespace)


OLD_ODD_TOP = re.compile(
    r"\n(?: ?(?=[^ \n#])|  (?=[^ \n#])(?!- |-\n|[A-Za-z0-9][A-Za-z0-9._/-]*:[ \n]))"
)
OLD_TOP_KEY = re.compile(r"\n  ([A-Za-z0-9][A-Za-z0-9._/-]*):(?=[ \n])")

# --- generated lines ------------------------------------------------------------------------------

VALUES = [
    "",
    " v1",
    " apps/v1",
    " ConfigMap",
    " 'quoted'",
    ' "dq"',
    " a # note",
    " 'it''s'",
    " {a: b}",
    " [a]",
    " &x v",
    " *x",
    " !!str v",
    " |",
    " @at",
    " 1.5",
    "  two-spaces",
    "value",
]
KEYS = ["apiVersion", "kind", "metadata", "spec", "data", "name", "namespace", "_x", "a/b", "0a"]
PREFIXES = ["", " ", "  ", "   ", "    ", "      "]
ODD_STARTS = ["'q'", '"q"', "? k", "{a: b}", "[a]", "<<: *m", "&a k", "*a", "!t k", "%x", "@x",
              "`x", "|", ">", "- e", "-", "# c", "ünï: x", "a b: c", "key:v"]  # fmt: skip


@st.composite
def lines(draw: st.DrawFn) -> str:
    indent = draw(st.sampled_from(PREFIXES))
    if draw(st.integers(0, 3)) == 0:
        return indent + draw(st.sampled_from(ODD_STARTS))
    return f"{indent}{draw(st.sampled_from(KEYS))}:{draw(st.sampled_from(VALUES))}"


SKELETON = ["  apiVersion: v1", "  kind: ConfigMap", "  metadata:", "    name: cm"]


@st.composite
def items(draw: st.DrawFn) -> str:
    """An item's text: a header's lines (some dropped) with generated lines among them."""
    body = [line for line in SKELETON if draw(st.integers(0, 5))]
    for _ in range(draw(st.integers(0, 6))):
        body.insert(draw(st.integers(0, len(body))), draw(lines()))
    body = body or ["  kind: X"]
    first = body[0]
    head = "- " + first[2:] if first.startswith("  ") else "- " + first.lstrip(" ")
    return "\n".join([head, *body[1:]]) + draw(st.sampled_from(["\n", "", "\n\n"]))


@settings(max_examples=3000, deadline=None)
@given(items(), st.booleans())
def test_the_header_pass_answers_as_the_two(text: str, item_form: bool) -> None:
    if not item_form:
        text = "\n".join(line[2:] for line in text.split("\n"))
    _scan._LAST_OPEN[0] = ("", False)
    expected = old_scan_header(text, item_form)
    _scan._LAST_OPEN[0] = ("", False)
    assert _scan.scan_header(text, item_form) == expected, text


def test_the_header_pass_reads_kpt_layout() -> None:
    text = "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: s\n    namespace: ran\n"
    assert _scan.scan_header(text, True) == ("v1", "Service", "s", "ran")
    assert _scan.scan_header(text.replace("    namespace", "    'namespace'"), True) is None


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(VALUES + ODD_STARTS + [" v1 ", " v1 # c", " 'a b'"]))
def test_a_kept_value_is_the_clean_one(raw: str) -> None:
    for _ in range(2):  # asked, then kept
        assert _scan._clean_kept(raw) == _scan.clean_scalar(raw)


@settings(max_examples=3000, deadline=None)
@given(items())
def test_the_top_lines_pass_answers_as_the_two(text: str) -> None:
    view = "\n  " + text[2:]
    found = _splice._TOP_LINE.findall(view)
    assert ("" in found) == (OLD_ODD_TOP.search(view) is not None), view
    assert [key for key in found if key] == OLD_TOP_KEY.findall(view), view


# --- what the storage keeps -----------------------------------------------------------------------

ITEM = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: {name}\n  data:\n    k: v\n"
KEY = ("metadata", "labels", "applyset.kubernetes.io/part-of")


def _list(count: int) -> ResourceList:
    items = "".join(ITEM.format(name=f"cm-{n}") for n in range(count))
    return ResourceList.parse(
        f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}"
    )


def test_items_labelled_alike_share_their_patch() -> None:
    """The same lines at the same place of each item's text: one tuple and one string for all
    (memory), each item written as its own text with the label."""
    rl = _list(3)
    for obj in rl.items:
        assert obj.set(KEY, "applyset-x") is True
    patches = [of(obj).patch for obj in rl.items]
    assert patches[0] is not None
    assert patches[0] is patches[1] is patches[2]
    for n, obj in enumerate(rl.items):
        assert obj.to_item() == ITEM.format(name=f"cm-{n}").replace(
            "  data:", "    labels:\n      applyset.kubernetes.io/part-of: applyset-x\n  data:"
        )
        assert obj.labels == {"applyset.kubernetes.io/part-of": "applyset-x"}


def test_a_second_edit_of_a_patched_span_keeps_the_first() -> None:
    rl = _list(2)
    first, second = rl.items
    assert first.set(KEY, "applyset-x") and second.set(KEY, "applyset-x")
    assert first.set(("metadata", "labels", "b"), "c") is True
    assert first.labels == {"applyset.kubernetes.io/part-of": "applyset-x", "b": "c"}
    assert second.labels == {"applyset.kubernetes.io/part-of": "applyset-x"}
    out = "".join(map(piece_text, rl.pieces()))
    assert "      b: c\n" in out and out.count("part-of: applyset-x") == 2


def test_the_header_scan_tells_the_splice_nothing_is_open(monkeypatch: pytest.MonkeyPatch) -> None:
    """A label write to an item whose header was scanned (certain: no scalar open over lines)
    does not search its text for one again."""
    text = "".join(ITEM.format(name=f"cm-{n}") for n in range(3))
    size = len(ITEM.format(name="cm-0"))
    first, second, third = (span_object(text, n * size, (n + 1) * size) for n in range(3))
    for obj in (first, second):  # as when the input check runs apart: headers scanned
        assert obj.kind == "ConfigMap"
    searched: list[str] = []
    real = _scan.OPEN_SCALAR

    class Counted:
        def search(self, text: str) -> object:
            searched.append(text)
            return real.search(text)

    monkeypatch.setattr(_scan, "OPEN_SCALAR", Counted())
    for obj in (first, second):
        assert obj.set(KEY, "applyset-x") is True
    assert searched == []
    assert third.set(KEY, "applyset-x") is True  # no header read: its text is searched
    assert len(searched) == 1
    assert of(first).closed is False  # the label's text is new: not known closed
