"""Property tests of krmfn-applyset-labeler on generated packages (issue 9, item 2).

Packages mix what the function reads (a Kptfile, maybe the parent ConfigMap or Secret,
local-config items) with members (the krmlib generator's items and ConfigMaps with comments and
quoted values). Checked: the Kptfile and local-config items come back byte-identical, and a
member's text only gains lines (its ``part-of`` label in managed mode); a second run changes
nothing; no input item is lost; results are sorted and a run is deterministic; the parent's name,
file and ApplySet id are valid.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmfn.applyset_labeler import Config, process
from krmlib import KubeObject, ResourceList
from krmlib.testing import run_text
from tests.property_support import (
    UNRELATED,
    assert_idempotent,
    assert_items_kept,
    assert_results_sorted_and_deterministic,
    output_items,
    resource_list,
    text_identity,
)
from tests.test_krmlib_properties import not_yaml11_boolean

Package = tuple[str, list[str], list[str], str]

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")
SET_ID = re.compile(r"applyset-[A-Za-z0-9_-]{43}-v1\Z")
PART_OF = "applyset.kubernetes.io/part-of"
ID = "applyset.kubernetes.io/id"


# --- the function's inputs -----------------------------------------------------------------

LABEL = st.from_regex(r"[a-z]([a-z0-9-]{0,14}[a-z0-9])?", fullmatch=True).filter(not_yaml11_boolean)
# Dotted names: never equal to a generated member's name.
PARENT_NAMES = st.one_of(
    st.lists(LABEL, min_size=2, max_size=3).map(".".join),
    st.integers(60, 253).map(lambda n: ("web.set-" * 40)[:n].rstrip("-.")),
)


def kptfile(name: str) -> str:
    return (
        "- apiVersion: kpt.dev/v1\n"
        "  kind: Kptfile\n"
        "  metadata:\n"
        f"    name: {name}\n"
        "    annotations:\n"
        '      config.kubernetes.io/local-config: "true"\n'
        "      config.kubernetes.io/path: 'Kptfile'\n"
        "  info:\n"
        "    description: an ApplySet package # kept\n"
    )


def local_config(name: str) -> str:
    return (
        "- # a function config: not applied, not a member\n"
        "  apiVersion: v1\n"
        "  kind: ConfigMap\n"
        "  metadata:\n"
        f"    name: {name}\n"
        "    annotations:\n"
        '      config.kubernetes.io/local-config: "true"\n'
        "      config.kubernetes.io/path: 'fn-config.yaml'\n"
        "  data:\n"
        '    key: "012" # quoted\n'
    )


@st.composite
def packages(draw: st.DrawFn) -> Package:
    """(ResourceList text, untouched texts, member texts, mode)."""
    package_name = draw(PARENT_NAMES)
    kind = draw(st.sampled_from(["ConfigMap", "Secret"]))
    parent_name = draw(st.one_of(st.just(""), PARENT_NAMES))
    namespace = draw(st.sampled_from(["", "default", "shop"]))
    mode = draw(st.sampled_from(["managed", "kubectl"]))
    untouched = [kptfile(package_name), local_config("fn.config")]
    members = draw(UNRELATED)
    texts = [untouched[1], *members]
    if draw(st.booleans()):  # the parent is in the package already
        name = parent_name or package_name
        texts.append(
            "- apiVersion: v1\n"
            f"  kind: {kind}\n"
            "  metadata:\n"
            f"    name: {name}\n"
            + (f"    namespace: {namespace}\n" if namespace else "")
            + "    annotations:\n"
            f"      config.kubernetes.io/path: '{kind.lower()}_{name}.yaml'\n"
        )
    order = draw(st.permutations(range(len(texts))))
    parent = [f"kind: {kind}"]
    if parent_name:
        parent.append(f"name: {parent_name}")
    if namespace:
        parent.append(f"namespace: {namespace}")
    config = (
        "functionConfig:\n"
        "  apiVersion: krmfn.dev/v1alpha1\n"
        "  kind: ApplySet\n"
        "  metadata:\n"
        "    name: applyset\n"
        "  spec:\n"
        f"    parent: {{{', '.join(parent)}}}\n"
        f"    mode: {mode}\n"
    )
    text = resource_list([untouched[0], *(texts[i] for i in order)], config)
    return text, untouched, members, mode


def run(text: str) -> tuple[str, int]:
    return run_text(process, Config, text)


def gained_lines_only(before: str, after: str) -> bool:
    """Every line of ``before`` is in ``after``, in order (lines may only be added)."""
    lines = iter(after.splitlines())
    return all(line in lines for line in before.splitlines())


# --- properties ----------------------------------------------------------------------------


@SETTINGS
@given(packages())
def test_untouched_items_are_byte_identical(package: Package) -> None:
    text, untouched, members, mode = package
    out, code = run(text)
    found = output_items(out)
    for item in untouched:
        assert found.get(text_identity(item)) == item
    for item in members:
        new = found[text_identity(item)]
        if code == 1 or mode == "kubectl":  # nothing written / no part-of label in kubectl mode
            assert new == item
        else:
            assert gained_lines_only(item, new), (item, new)
            old_labels = KubeObject(src=item, form="item").labels
            new_labels = KubeObject(src=new, form="item").labels
            assert {k: v for k, v in new_labels.items() if k != PART_OF} == dict(old_labels)


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
def test_parent_and_set_id_are_valid(package: Package) -> None:
    out, code = run(package[0])
    if code == 1:
        return
    rl = ResourceList.parse(out)
    parents = [o for o in rl.items if ID in o.labels]
    assert len(parents) == 1
    parent = parents[0]
    set_id = parent.labels[ID]
    assert SET_ID.match(set_id) and LABEL_VALUE.match(set_id), set_id
    assert DNS_SUBDOMAIN.match(parent.name) and len(parent.name) <= 253, parent.name
    assert parent.path == f"{parent.kind.lower()}_{parent.name}.yaml"
    for obj in rl.items:
        if PART_OF in obj.labels:
            assert obj.labels[PART_OF] == set_id
