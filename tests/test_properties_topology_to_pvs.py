"""Property tests of krmfn-topology-to-pvs on generated packages (issue 9, item 2).

Packages mix what the function reads (a Kptfile, NFClasses, an NFTopology whose instance names
need cleaning: upper case, underscores, dots, long names) with unrelated items (the krmlib
generator's items and ConfigMaps with comments and quoted values). Checked: items it does not
generate come back byte-identical (all of them when it reports an error); a second run changes
nothing; no input item is lost; results are sorted and a run is deterministic; PackageVariantSet
names are DNS-1123 labels and label values are valid.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmfn.topology_to_pvs import Config, process
from krmlib import ResourceList
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

Package = tuple[str, list[str]]

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")
GENERATED = {
    ("config.porch.kpt.dev/v1alpha2", "PackageVariantSet"),
    ("workload.nephio.org/v1alpha1", "NFDeployed"),
}


# --- the function's inputs -----------------------------------------------------------------

LABEL = st.from_regex(r"[a-z]([a-z0-9-]{0,14}[a-z0-9])?", fullmatch=True).filter(not_yaml11_boolean)
TOPOLOGY_NAMES = st.one_of(
    LABEL,
    st.lists(LABEL, min_size=2, max_size=3).map(".".join),
    st.integers(60, 200).map(lambda n: ("topology.edge-" * 20)[:n].rstrip("-.")),
)
INSTANCE_NAMES = st.one_of(
    LABEL,
    st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,20}[A-Za-z0-9]", fullmatch=True).filter(
        not_yaml11_boolean
    ),
    st.integers(60, 120).map(lambda n: ("Free5GC_UPF.instance-" * 8)[:n]),
)
NETWORKS = st.sampled_from(["n4-net", "internet", "core", "us-west-network-1"])


def kptfile() -> str:
    return (
        "- apiVersion: kpt.dev/v1\n"
        "  kind: Kptfile\n"
        "  metadata:\n"
        "    name: topology\n"
        "    annotations:\n"
        '      config.kubernetes.io/local-config: "true"\n'
        "      config.kubernetes.io/path: 'Kptfile'\n"
    )


def nf_class(nf_type: str, revision: str) -> str:
    return (
        "- # where the upstream package lives\n"
        "  apiVersion: topology.nephio.org/v1alpha1\n"
        "  kind: NFClass\n"
        "  metadata:\n"
        f"    name: {nf_type}-class\n"
        "    annotations:\n"
        "      config.kubernetes.io/path: 'classes.yaml'\n"
        "  spec:\n"
        "    vendor: free5gc\n"
        '    version: "3.1.1"\n'
        "    packageRef:\n"
        "      repository: catalog\n"
        f"      packageName: free5gc-{nf_type}\n"
        f"      revision: {revision} # pinned\n"
    )


@st.composite
def instance(draw: st.DrawFn, name: str) -> list[str]:
    nf_type = draw(st.sampled_from(["upf", "smf", "amf"]))
    lines = [
        f"- name: {name}",
        "  clusterSelector:",
        f"    matchLabels: {{region: {draw(LABEL)}}}",
        "  nfTemplate:",
        f"    nfType: {nf_type}",
        f"    className: {nf_type}-class",
        "    nfInterfaces:",
    ]
    for index, network in enumerate(draw(st.lists(NETWORKS, min_size=1, max_size=2))):
        lines += [f"    - name: n{index}", f"      networkInstanceName: {network}"]
    if draw(st.booleans()):
        lines.append(f"    capacity: {{maxSessions: {draw(st.integers(1, 5000))}}}")
    return lines


@st.composite
def packages(draw: st.DrawFn) -> Package:
    """(ResourceList text, texts of the items the function must not change)."""
    classes = [nf_class(t, draw(st.sampled_from(["v1", "v2", "3"]))) for t in ("upf", "smf", "amf")]
    names = draw(st.lists(INSTANCE_NAMES, min_size=1, max_size=4, unique=True))
    namespace = draw(st.sampled_from(["", "nf-test"]))
    lines = [
        "- apiVersion: topology.nephio.org/v1alpha1",
        "  kind: NFTopology",
        "  metadata:",
        f"    name: {draw(TOPOLOGY_NAMES)}",
        *([f"    namespace: {namespace}"] if namespace else []),
        "    annotations:",
        "      config.kubernetes.io/path: 'topology.yaml'",
        "  spec:",
        "    nfInstances:",
    ]
    for name in names:
        lines += ["    " + line for line in draw(instance(name))]
    topology = "\n".join(lines) + "\n"
    unrelated = draw(UNRELATED)
    texts = [*classes, topology, *unrelated]
    order = draw(st.permutations(range(len(texts))))
    inputs = [kptfile(), *(texts[i] for i in order)]
    return resource_list(inputs), inputs


def run(text: str) -> tuple[str, int]:
    return run_text(process, Config, text)


# --- properties ----------------------------------------------------------------------------


@SETTINGS
@given(packages())
def test_untouched_items_are_byte_identical(package: Package) -> None:
    text, inputs = package
    out, code = run(text)
    found = output_items(out)
    for item in inputs:  # no input is generated: none may change
        assert found.get(text_identity(item)) == item
    if code == 1:  # errors: nothing written
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
def test_generated_names_are_valid(package: Package) -> None:
    out, _ = run(package[0])
    generated = [o for o in ResourceList.parse(out).items if (o.api_version, o.kind) in GENERATED]
    pvs_names = [o.name for o in generated if o.kind == "PackageVariantSet"]
    assert len(pvs_names) == len(set(pvs_names))
    for obj in generated:
        if obj.kind == "PackageVariantSet":
            assert DNS_LABEL.match(obj.name) and len(obj.name) <= 63, obj.name
            template = obj.get("spec.targets[0].template.labels") or {}
            for value in [*obj.labels.values(), *template.values()]:
                assert LABEL_VALUE.match(value) and len(value) <= 63, value
        else:
            assert DNS_SUBDOMAIN.match(obj.name) and len(obj.name) <= 253, obj.name
        path = obj.path or ""
        assert not path.startswith("/") and ".." not in path.split("/"), path
