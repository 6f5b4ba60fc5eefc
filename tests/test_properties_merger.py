"""Property tests of krmfn-merger on generated packages (issue 9, item 2).

Packages mix merge targets (Namespaces of a template package, with comments) with unrelated items
(the krmlib generator's items and ConfigMaps with comments and quoted values); the config merges
inline inputs into them (Override or Replace, renames, ``nephio.org/prepare`` with
``fromPackage``), conflicting renames included. Checked: every item no input lands on comes back
byte-identical (every item when the merge is refused); a second run changes nothing; no input item
is lost; results are sorted and a run is deterministic; appended items get a file inside the
package. The merger generates no names (an appended item keeps the input's), so there is no name
property.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmfn.merger.config import Config
from krmfn.merger.process import process
from krmlib import KubeObject, ResourceList, check_relative_path
from krmlib.testing import run_text
from tests.property_support import (
    UNRELATED,
    assert_idempotent,
    assert_items_kept,
    assert_results_sorted_and_deterministic,
    identity,
    output_items,
    resource_list,
    text_identity,
)
from tests.test_krmlib_properties import COMMENTS, NAMES

Package = tuple[str, list[str], set[str]]

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NS_API = "workload.plugin.nephio.org/v1alpha1"


# --- the merger's inputs -------------------------------------------------------------------

POOL = st.sampled_from(["smf", "upf", "amf", "smf1", "upf1"])
LABEL_VALUES = st.one_of(NAMES, st.sampled_from(['"012"', '"yes"', "edge1", "null"]))


def kptfile() -> str:
    return (
        "- apiVersion: kpt.dev/v1\n"
        "  kind: Kptfile\n"
        "  metadata:\n"
        "    name: template\n"
        "    annotations:\n"
        '      config.kubernetes.io/local-config: "true"\n'
        "      config.kubernetes.io/path: 'Kptfile'\n"
    )


@st.composite
def target(draw: st.DrawFn, index: int, name: str) -> str:
    lines = [
        "- # a template resource",
        f"  apiVersion: {NS_API}",
        "  kind: Namespace",
        "  metadata:",
        f"    name: {name}",
        "    annotations:",
        "      config.kubernetes.io/path: 'resources.yaml'",
        f"      config.kubernetes.io/index: '{index}'",
        "  spec:",
        "    labels:",
    ]
    labels = draw(st.dictionaries(NAMES, LABEL_VALUES.filter(lambda v: v != "null"), min_size=1))
    lines += [f"      {k}: {v}{draw(COMMENTS)}" for k, v in labels.items()]
    return "\n".join(lines) + "\n"


@st.composite
def merge_input(draw: st.DrawFn) -> tuple[list[str], str]:
    """(config lines of one inline input, its destination name)."""
    name = draw(POOL)
    rename = draw(st.one_of(st.none(), POOL))
    mode = draw(st.sampled_from(["", "Override", "Replace"]))
    prepare = draw(st.sampled_from(["", "Postpone", "Here", "Never"]))
    lines = [f"- apiVersion: {NS_API}", "  kind: Namespace", "  metadata:", f"    name: {name}"]
    annotations = []
    if rename is not None:
        annotations.append(f"nephio.org/rename: {rename}")
    if mode:
        annotations.append(f"nephio.org/merge: {mode}")
    if prepare:
        annotations.append(f"nephio.org/prepare: {prepare}")
    if annotations:
        lines += ["    annotations:", *(f"      {a}" for a in annotations)]
    labels = draw(st.dictionaries(NAMES, LABEL_VALUES, max_size=3))
    if labels:
        lines += ["  spec:", "    labels:", *(f"      {k}: {v}" for k, v in labels.items())]
    return lines, rename if rename is not None else name


@st.composite
def packages(draw: st.DrawFn) -> Package:
    """(ResourceList text, texts of the items, destination names of the inputs)."""
    names = draw(st.lists(POOL, max_size=4, unique=True))
    targets = [draw(target(i, n)) for i, n in enumerate(names)]
    unrelated = draw(UNRELATED)
    texts = [*targets, *unrelated]
    order = draw(st.permutations(range(len(texts))))
    inputs = [kptfile(), *(texts[i] for i in order)]
    merges = draw(st.lists(merge_input(), min_size=1, max_size=4))
    config = [
        "functionConfig:",
        "  apiVersion: krmfn.dev/v1alpha1",
        "  kind: Merge",
        "  metadata:",
        "    name: merge",
        "  spec:",
        f"    fromPackage: {draw(st.sampled_from(['true', 'false']))}",
        "    resources:",
        *("    " + line for lines, _ in merges for line in lines),
    ]
    dests = {dest for _, dest in merges}
    return resource_list(inputs, "\n".join(config) + "\n"), inputs, dests


def run(text: str) -> tuple[str, int]:
    return run_text(process, Config, text)


def is_target(item: str, dests: set[str]) -> bool:
    obj = KubeObject(src=item, form="item")
    return obj.api_version == NS_API and obj.kind == "Namespace" and obj.name in dests


# --- properties ----------------------------------------------------------------------------


@SETTINGS
@given(packages())
def test_untouched_items_are_byte_identical(package: Package) -> None:
    text, inputs, dests = package
    out, code = run(text)
    found = output_items(out)
    for item in inputs:
        if code == 1 or not is_target(item, dests):
            assert found.get(text_identity(item)) == item
    if code == 1:  # a refused merge writes nothing
        assert len(found) == len(inputs)


@SETTINGS
@given(packages())
def test_running_twice_equals_running_once(package: Package) -> None:
    assert_idempotent(run, package[0])


@SETTINGS
@given(packages())
def test_every_input_item_is_kept(package: Package) -> None:
    assert_items_kept(run, package[0])


@SETTINGS
@given(packages())
def test_results_sorted_and_deterministic(package: Package) -> None:
    assert_results_sorted_and_deterministic(run, package[0])


@SETTINGS
@given(packages())
def test_appended_items_stay_in_the_package(package: Package) -> None:
    text = package[0]
    out, _ = run(text)
    before = {identity(o)[:4] for o in ResourceList.parse(text).items}
    for obj in ResourceList.parse(out).items:
        if identity(obj)[:4] not in before:
            assert obj.path == check_relative_path(obj.path or "", obj), obj.path
            assert obj.path == f"namespace_{obj.name}.yaml"
