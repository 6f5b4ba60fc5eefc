"""Kptfile conditions and the output gate (issue 34): ``Conditions.flush`` writes a list that
only grew, or one written as the small emitter writes it, by splicing the Kptfile's text, not by
``set``; the gate's write hook notes that splice as a write (the author's line, the field), and
a condition kpt would not read as one is refused with the item and the field."""

from __future__ import annotations

import re

import pytest

from krmlib import Condition, Conditions, ResourceList
from krmlib._io import watch
from krmlib.testing import run_text
from tests.gate_support import marked_line, results_of

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
KPTFILE = (
    "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: pkg\n    annotations:\n"
    "      config.kubernetes.io/path: Kptfile\n"
    "      internal.config.kubernetes.io/path: Kptfile\n"
    '  status:\n    conditions:\n    - type: A\n      status: "True"\n'
)
THIS = "tests/test_sdk_gate_conditions.py"


def _line(marker: str) -> int:
    return marked_line(__file__, marker)


@pytest.mark.parametrize(
    ("condition", "field", "says"),
    [
        (Condition("B", True), "status.conditions[1].status", "not True"),  # type: ignore[arg-type]
        (Condition("B", "Maybe"), "status.conditions[1].status", "not 'Maybe'"),  # type: ignore[arg-type]
        (Condition(5, "False"), "status.conditions[1].type", "type must be a string"),  # type: ignore[arg-type]
        (Condition("B", "False", "R", 7), "status.conditions[1].message", "not 7"),  # type: ignore[arg-type]
        (Condition("A", "False", 3), "status.conditions[0].reason", "not 3"),  # type: ignore[arg-type]
    ],
)
def test_a_condition_kpt_would_not_read_is_refused_with_the_item_and_field(
    condition: Condition, field: str, says: str
) -> None:
    def process(rl: ResourceList, _config: None) -> None:
        conditions = Conditions(rl.items.first(kind="Kptfile"))
        conditions.set(condition)  # SET-BAD
        conditions.flush()

    out, code = run_text(process, None, HEAD + KPTFILE)
    assert code == 1, out
    [result] = results_of(out)
    assert result["severity"] == "error"
    assert result["resourceRef"]["kind"] == "Kptfile"
    assert result["field"]["path"] == field
    assert says in result["message"]
    assert f"test_sdk_gate_conditions.py:{_line('SET-BAD')}" in result["message"]
    assert "status: true" not in out and "Maybe" not in out.split("results:")[0]


def test_good_conditions_still_pass_through_the_splice() -> None:
    def process(rl: ResourceList, _config: None) -> None:
        conditions = Conditions(rl.items.first(kind="Kptfile"))
        conditions.set(Condition("A", "False", "R", "m"))
        conditions.set(Condition("B", "Unknown"))
        conditions.flush()

    out, code = run_text(process, None, HEAD + KPTFILE)
    assert code == 0, out
    assert '- type: B\n      status: "Unknown"' in out or "- type: B\n      status: Unknown" in out


@pytest.mark.parametrize("grown", [True, False], ids=["appended", "rewritten"])
def test_the_splice_is_noted_by_the_write_hook_with_the_authors_line(grown: bool) -> None:
    """Before: the splice bypassed the hook, so the gate took the Kptfile for the input's text
    (no author's line, no field for what it wrote)."""
    rl = ResourceList.parse(HEAD + KPTFILE)
    kptfile = rl.items.first(kind="Kptfile")
    assert kptfile is not None
    with watch.watching():
        conditions = Conditions(kptfile)
        conditions.set(Condition("B" if grown else "A", "False", "R", "m"))
        conditions.flush()  # FLUSH
        assert kptfile.get("status.conditions")[-1]["message"] == "m"
        writes = watch._WRITES.get(id(kptfile))
        assert writes is not None and writes[-1][0] == ("status", "conditions")
        where = watch.written_at(kptfile)
    assert where == f" (written at {THIS.rpartition('/')[2]}:{_line('FLUSH')})" or where.endswith(
        f"{THIS}:{_line('FLUSH')})"
    )


@pytest.mark.parametrize(
    "value",
    [
        "a/b.yaml",
        "'a/b.yaml'",
        '"a/b.yaml"',
        "x.yaml",
        "../x.yaml",
        "/etc/x.yaml",
        "a/b.yaml\n        deeper: 1",
        "a/b.yaml\n\n",
        "a/b.yaml  \n      other: x",
        "a/b.yaml #c",
        "'a/b.yaml",
        "true",
    ],
)
@pytest.mark.parametrize("indent", [4, 6, 8])
def test_the_fast_path_line_pattern_finds_only_what_the_general_one_finds(
    value: str, indent: int
) -> None:
    """The gate's path-annotation glance tries a pattern for an item's usual indent first; a
    line it finds is always one the general pattern finds (else an answer could change)."""
    from krmlib._io import glance

    pad = " " * indent
    for key in ("config.kubernetes.io/path", "internal.config.kubernetes.io/path"):
        text = f"\n{pad[:-2]}annotations:\n{pad}{key}: {value}\n{pad[:-4]}spec: {{}}\n"
        fast = {m.end() for m in re.finditer(glance._PATH_LINE_ITEM, text)}
        general = {m.end() for m in re.finditer(glance._PATH_LINE, text)}
        assert fast <= general, (text, fast, general)
        if indent == 6:
            assert fast == general, text
        assert glance._paths_clean_in(text) == (len(general) == text.count("kubernetes.io/path"))


def test_a_label_found_good_once_passes_on_every_item_and_a_bad_one_is_still_refused() -> None:
    """The gate skips an input item whose one write is a label (key and value) it found good on
    an earlier item; any other label on a later item is still checked."""
    items = "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm{n}\n" for n in range(4)
    )

    def process(rl: ResourceList, _config: None) -> None:
        for n, obj in enumerate(rl.items):
            obj.labels["example.com/part-of"] = "bench" if n < 3 else "bad value"  # LABEL

    out, code = run_text(process, None, HEAD + items)
    assert code == 1, out
    [result] = results_of(out)
    assert result["resourceRef"]["name"] == "cm3"
    assert result["field"]["path"] == 'metadata.labels["example.com/part-of"]'
    assert f"test_sdk_gate_conditions.py:{_line('LABEL')}" in result["message"]
