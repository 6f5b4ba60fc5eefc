"""The output gate's quick paths refuse what its whole check refuses (issue 34, its cost).

What a generator makes is checked at a glance: the children krmlib holds as text (``ChildSync``
with ``new_as_text``) by their headers and by their texts some at a time, the identities against
the input's, the output's new text by one pass over its ASCII. Each test here gives the glance
something it must not wave through, and checks that the refusal still names the item, the field
and the author's line, or that what the reader takes still passes."""

from __future__ import annotations

from typing import Any

import pytest

from krmlib import KubeObject, ResourceList
from krmlib.children import ChildSync, OwnerAnnotation, RemoveChild
from krmlib.testing import run_text
from tests.gate_support import marked_line, results_of

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
CM = (
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n    annotations:\n"
    "      config.kubernetes.io/path: cm.yaml\n      internal.config.kubernetes.io/path: cm.yaml\n"
    "  data:\n    a: b\n"
)
THIS = "tests/test_sdk_gate_glance.py"


def _line(marker: str) -> int:
    return marked_line(__file__, marker)


def _child(name: str, **metadata: Any) -> KubeObject:
    return KubeObject.from_dict(
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": name, **metadata},
            "spec": {"size": 1, "padding": "x" * 300},
        }
    )


def _children(rl: ResourceList, desired: list[KubeObject]) -> None:
    owner = rl.items.first(kind="ConfigMap")
    assert owner is not None
    sync = ChildSync(
        rl.items,
        owns=[("example.com/v1", "Widget")],
        ownership=OwnerAnnotation("example.com/owner"),
        deletion=RemoveChild(),
        new_as_text=True,
    )
    sync.sync(owner, desired)  # children
    sync.apply()


# 400 children: about 170,000 characters of text, so the bad one is in one of several chunks
MANY = 400


def _many(bad: KubeObject | None = None, at: int = 250) -> list[KubeObject]:
    desired = [_child(f"w-{n}") for n in range(MANY)]
    if bad is not None:
        desired[at] = bad
    return desired


def test_many_children_as_text_pass_and_stay_as_made() -> None:
    out, code = run_text(lambda rl, _c: _children(rl, _many()), None, HEAD + CM)
    assert code == 0, out
    items = ResourceList.parse(out).items
    assert len(items) == MANY + 1
    assert items[MANY].path == "widget_w-399.yaml"


CHILD_CASES = [
    (_child("Bad_Name"), "which an API server refuses", "metadata.name"),
    (_child("w", namespace="Bad NS"), "the namespace 'Bad NS'", "metadata.namespace"),
    (_child("w", annotations={"internal.config.kubernetes.io/path": "../x.yaml"}),
     "leaves the package", 'metadata.annotations["internal.config.kubernetes.io/path"]'),
    (_child("w", annotations={"config.kubernetes.io/path": "a/\n../../x.yaml"}),
     "a control character", 'metadata.annotations["config.kubernetes.io/path"]'),
    (_child("w", annotations={"config.kubernetes.io/path": "/etc/x.yaml"}),
     "must be relative", 'metadata.annotations["config.kubernetes.io/path"]'),
    (_child("w", labels={"team": "net work"}), "label team:", 'metadata.labels["team"]'),
    (_child("w-3"), "another item has the same identity", "metadata.name"),
]  # fmt: skip
# the input holds another version of Widget w-3 (ChildSync, matching by apiVersion, does not
# see it; one identity all the same)
WIDGET_V2 = (
    "- apiVersion: example.com/v2\n  kind: Widget\n  metadata:\n    name: w-3\n    annotations:\n"
    "      config.kubernetes.io/path: widget_w-3.yaml\n"
    "      internal.config.kubernetes.io/path: widget_w-3.yaml\n"
)


@pytest.mark.parametrize(("bad", "says", "field"), CHILD_CASES, ids=[c[1] for c in CHILD_CASES])
def test_a_bad_child_among_many_made_as_text_is_refused_at_the_authors_line(
    bad: KubeObject, says: str, field: str
) -> None:
    out, code = run_text(lambda rl, _c: _children(rl, _many(bad)), None, HEAD + CM + WIDGET_V2)
    assert code == 1, out
    [result] = results_of(out)
    assert result["message"].startswith("output refused: ") and says in result["message"], out
    assert result["field"]["path"] == field
    assert result["resourceRef"]["kind"] == "Widget"
    assert f"(written at {THIS}:{_line('children')})" in result["message"], result["message"]


def test_children_with_good_labels_pass() -> None:
    desired = [_child(f"w-{n}", labels={"app": "web", f"n{n}": "x"}) for n in range(50)]
    out, code = run_text(lambda rl, _c: _children(rl, desired), None, HEAD + CM)
    assert code == 0, out


@pytest.mark.parametrize(
    "value",
    [
        # a plain scalar goes on after a blank line: the value is "x\n../../x.yaml"
        "x.yaml\n\n      ../../x.yaml",
        # or after a line of spaces
        "x.yaml\n      \n      ../../x.yaml",
        # a line break YAML 1.1 reads (NEL) before the deeper line
        "x.yaml\x85      ../../x.yaml",
    ],
)
def test_a_handed_over_path_that_goes_on_after_a_blank_line_is_refused(value: str) -> None:
    def hands(rl: ResourceList, config: None) -> None:
        text = (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n  annotations:\n"
            f"    internal.config.kubernetes.io/path: {value}\n"
        )
        rl.items.append(KubeObject.from_yaml(text))  # hands

    out, code = run_text(hands, None, HEAD + CM)
    assert code == 1, out
    [result] = results_of(out)
    assert result["message"].startswith("output refused: "), result["message"]
    assert f"(written at {THIS}:{_line('hands')})" in result["message"]


@pytest.mark.parametrize("value", ["x.yaml", "'123'", "a/b.yaml", '"dir/x.yaml"', "Kptfile.yml"])
def test_a_handed_over_clean_path_passes(value: str) -> None:
    def hands(rl: ResourceList, config: None) -> None:
        text = (
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n  annotations:\n"
            f"    internal.config.kubernetes.io/path: {value}\n"
            f"    config.kubernetes.io/path: {value}\n"
        )
        rl.items.append(KubeObject.from_yaml(text))

    out, code = run_text(hands, None, HEAD + CM)
    assert code == 0, out


def test_a_renamed_item_meeting_another_input_item_is_refused() -> None:
    other = CM.replace("name: cm", "name: other").replace("cm.yaml", "other.yaml")

    def rename(rl: ResourceList, config: None) -> None:
        found = rl.items.first(name="other")
        assert found is not None
        found.set("metadata.name", "cm")  # rename
        found.annotations["config.kubernetes.io/path"] = "cm.yaml"
        found.annotations["internal.config.kubernetes.io/path"] = "cm.yaml"

    out, code = run_text(rename, None, HEAD + CM + other)
    assert code == 1, out
    [result] = results_of(out)
    assert "another item has the same identity" in result["message"]
    assert f"(written at {THIS}:" in result["message"]


def test_a_new_item_replacing_a_removed_one_of_its_identity_passes() -> None:
    def replace(rl: ResourceList, config: None) -> None:
        old = rl.items.first(name="cm")
        assert old is not None
        new = KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap",
                                    "metadata": {"name": "cm"}})  # fmt: skip
        rl.items.replace_all([new if obj is old else obj for obj in rl.items])

    out, code = run_text(replace, None, HEAD + CM)
    assert code == 0, out


def test_another_version_of_a_group_kind_name_is_one_identity() -> None:
    def adds(rl: ResourceList, config: None) -> None:
        rl.items.append(KubeObject.from_dict({"apiVersion": "example.com/v2", "kind": "W",
                                              "metadata": {"name": "w"}}))  # fmt: skip

    widget = "- apiVersion: example.com/v1\n  kind: W\n  metadata:\n    name: w\n"
    out, code = run_text(adds, None, HEAD + widget)
    assert code == 1, out
    assert "another item has the same identity" in results_of(out)[0]["message"]


def test_a_nul_in_new_text_that_is_not_ascii_is_refused() -> None:
    def writes(rl: ResourceList, config: None) -> None:
        found = rl.items.first(kind="ConfigMap")
        assert found is not None
        found.set("data.x", "é ✓ a\x00")  # writes

    out, code = run_text(writes, None, HEAD + CM)
    assert code == 1, out
    [result] = results_of(out)
    assert "a value holds a NUL" in result["message"], result["message"]
    assert result["field"]["path"] == "data.x"
    assert f"(written at {THIS}:{_line('writes')})" in result["message"]


@pytest.mark.parametrize(
    ("pieces", "clean"),
    [
        (["a: b\n", ("input", 0, 5), "c: d\n" * 40000], True),
        (["a: b\n", "c: d\x01\n"], False),
        (["c: d\n" * 40000, "x\x7f"], False),
        (['a: "\\0"\n'], False),
        (['a: "\\ud800"\n'], False),
        (["a: é\n"], False),  # not ASCII: unsure, searched piece by piece
        ([("in\x00put", 0, 8)], True),  # a span of the input was checked when read
    ],
)
def test_the_glance_at_the_new_text_is_sure_only_of_clean_ascii(
    pieces: list[Any], clean: bool
) -> None:
    from krmlib._io import glance as _glance

    assert _glance._text_clean_at_a_glance(pieces) is clean


# The gate knows objects by id(): an input item the function drops frees its id, and a new object
# given that id was taken for the input item (its identity met the new items' as a duplicate, and
# a new child skipped the check as "read from the input"). Found by the preparer's exec-plugin
# golden case, whose plugin's output replaces the package's items.
def _configmaps(count: int) -> str:
    return "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{n}\n    annotations:\n"
        f"      config.kubernetes.io/path: cm-{n}.yaml\n"
        f"      internal.config.kubernetes.io/path: cm-{n}.yaml\n  data:\n    a: b\n"
        for n in range(count)
    )


def test_items_replaced_by_new_ones_of_their_identities_pass() -> None:
    def reads_back(rl: ResourceList, config: None) -> None:
        for _ in range(3):  # as a plugin's output replaces the package, pass after pass
            again = ResourceList.parse(rl.to_yaml(with_results=False))
            rl.items.replace_all(list(reversed(list(again.items))))

    out, code = run_text(reads_back, None, HEAD + _configmaps(50))
    assert code == 0, out
    assert len(ResourceList.parse(out).items) == 50


def test_children_made_after_the_input_items_were_dropped_are_all_checked() -> None:
    def drops_then_makes(rl: ResourceList, config: None) -> None:
        desired = [_child(f"w-{n}", labels={"team": "net work"}) for n in range(50)]
        again = ResourceList.parse(rl.to_yaml(with_results=False))
        rl.items.replace_all(list(again.items))  # the input's objects go
        del again
        _children(rl, desired)

    out, code = run_text(drops_then_makes, None, HEAD + _configmaps(50))
    assert code == 1, out
    results = results_of(out)
    assert len(results) == 50, [r["message"] for r in results]
    assert all("label team:" in result["message"] for result in results)


def test_two_new_items_of_one_identity_no_input_item_has_are_refused() -> None:
    # the identities' quick answer ("no input item has a new one's name") must still compare
    # the new items with each other
    def adds(rl: ResourceList, config: None) -> None:
        for _ in range(2):
            rl.items.append(KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap",
                                                  "metadata": {"name": "twin"}}))  # fmt: skip

    out, code = run_text(adds, None, HEAD + CM)
    assert code == 1, out
    assert "another item has the same identity" in results_of(out)[0]["message"]


def test_new_items_of_names_no_input_item_has_pass() -> None:
    def adds(rl: ResourceList, config: None) -> None:
        for name in ("one", "two"):
            rl.items.append(KubeObject.from_dict({"apiVersion": "v1", "kind": "ConfigMap",
                                                  "metadata": {"name": name}}))  # fmt: skip

    out, code = run_text(adds, None, HEAD + CM)
    assert code == 0, out
