"""Inserting an annotation keeps a comment that stood above the next key above that key
(issue 15.9): the preparer marks ``nephio.org/prepared`` on resources users wrote by hand."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from krmlib import KubeObject, ResourceList

NAMES = st.text(alphabet="abcdefghij", min_size=1, max_size=8).map(lambda n: "n" + n)
WORDS = st.lists(NAMES, min_size=1, max_size=4).map(" ".join)


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, str, str]:
    """A document whose metadata block ends with a comment (and maybe a blank line) that
    stands above the next top-level key: (text, comment line, next key)."""
    name = draw(NAMES)
    lines = ["apiVersion: v1", "kind: ConfigMap", "extra: 1", "metadata:", f"  name: {name}"]
    labels = draw(st.dictionaries(NAMES, NAMES, max_size=3))
    if labels:
        lines.append("  labels:")
        lines.extend(f"    {k}: {v}" for k, v in labels.items())
    annotations = draw(st.dictionaries(NAMES.map(lambda n: f"x.io/{n}"), NAMES, max_size=2))
    if annotations:
        lines.append("  annotations:")
        lines.extend(f"    {k}: {v}" for k, v in annotations.items())
    if draw(st.booleans()):
        lines.append("")
    comment = f"# {draw(WORDS)}"
    next_key = draw(st.sampled_from(["data", "spec", "status"]))
    lines += [comment, f"{next_key}:", f"  {draw(NAMES)}: {draw(NAMES)}"]
    return "\n".join(lines) + "\n", comment, next_key


@given(
    documents(),
    st.sampled_from(["nephio.org/prepared", "nephio.org/approved"]),
    st.booleans(),
)
def test_a_new_annotation_keeps_the_comment_above_the_next_key(
    doc: tuple[str, str, str], key: str, round_trip: bool
) -> None:
    """Both ways krmlib edits an item: splicing its text, and the round-trip tree (taken here
    because an earlier edit removed a field)."""
    text, comment, next_key = doc
    obj = KubeObject.from_yaml(text)
    if round_trip:
        obj.delete("extra")
    before = obj.to_dict()
    obj.annotations[key] = "true"
    out = obj.to_yaml()
    lines = out.splitlines()
    at = lines.index(f"{next_key}:")
    assert lines[at - 1] == comment, out
    expected = dict(before)
    expected["metadata"] = {
        **before["metadata"],
        "annotations": {**before["metadata"].get("annotations", {}), key: "true"},
    }
    assert KubeObject.from_yaml(out).to_dict() == expected


def test_in_a_resource_list_item_too() -> None:
    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n"
        "  # the data\n  data:\n    a: b\n"
    )
    rl = ResourceList.parse(text)
    rl.items[0].annotations["nephio.org/prepared"] = "true"
    out = rl.to_yaml()
    assert '      nephio.org/prepared: "true"\n  # the data\n  data:\n' in out


def test_kpt_path_annotations_added_on_reading_keep_the_comment_below(tmp_path: object) -> None:
    from pathlib import Path

    from krmlib.packages import read_files

    assert isinstance(tmp_path, Path)
    (tmp_path / "ns.yaml").write_text(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n\n# the spec\nspec: {}\n"
    )
    (obj,) = read_files([str(tmp_path)])
    obj.annotations["nephio.org/prepared"] = "true"
    out = obj.to_yaml()
    assert out.endswith('    nephio.org/prepared: "true"\n\n# the spec\nspec: {}\n'), out
