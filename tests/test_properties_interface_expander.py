"""Property tests of krmfn-interface-expander on generated packages (issue 9, item 2).

Packages mix what the function reads (a Kptfile, a ClusterContext or WorkloadCluster, Interfaces
in every dialect's shapes) with unrelated items (the krmlib generator's items and ConfigMaps with
comments and quoted values). Checked: unrelated items, the cluster object and the Interfaces come
back byte-identical; a second run changes nothing; no input item is lost; results are sorted and a
run is deterministic; children get valid Kubernetes names.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from krmfn.interface_expander import Config, process
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

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")
CHILD_KINDS = {
    "design": {
        ("ipam.nephio.org/v1alpha1", "IPAllocation"),
        ("ipam.nephio.org/v1alpha1", "VLANAllocation"),
    },
    "nephio-r1": {
        ("ipam.alloc.nephio.org/v1alpha1", "IPAllocation"),
        ("vlan.alloc.nephio.org/v1alpha1", "VLANAllocation"),
    },
    "nephio": {
        ("ipam.resource.nephio.org/v1alpha1", "IPClaim"),
        ("vlan.resource.nephio.org/v1alpha1", "VLANClaim"),
    },
}


# --- the function's inputs -----------------------------------------------------------------

LABEL = st.from_regex(r"[a-z]([a-z0-9-]{0,14}[a-z0-9])?", fullmatch=True).filter(not_yaml11_boolean)
INTERFACE_NAMES = st.one_of(
    LABEL,
    st.lists(LABEL, min_size=2, max_size=3).map(".".join),
    st.integers(40, 120).map(lambda n: ("n6-upf-edge" * 20)[:n].rstrip("-")),
)


@st.composite
def interface(draw: st.DrawFn, index: int, name: str) -> str:
    lines = [
        "- apiVersion: req.nephio.org/v1alpha1",
        "  kind: Interface",
        "  metadata:",
        f"    name: {name}",
        "    annotations:",
    ]
    if draw(st.booleans()):
        lines.append('      config.kubernetes.io/local-config: "true"')
    if draw(st.booleans()):
        lines.append(f"      nephio.org/network-name: {draw(LABEL)}")
    if draw(st.booleans()):
        owner = draw(LABEL)
        lines.append(
            f"      specializer.nephio.org/owner: workload.nephio.org/v1alpha1.UPFDeployment.{owner}"
        )
    lines += [
        f"      config.kubernetes.io/path: 'interfaces/interface-{index}.yaml'",
        "  spec:",
        "    networkInstance:",
        f"      name: {draw(st.sampled_from(['default', 'vpc-internet', 'vpc-ran']))} # the VPC",
    ]
    cni = draw(st.sampled_from(["", "sriov", "macvlan", "ipvlan"]))
    if cni:
        lines.append(f"    cniType: {cni}")
    attachment = draw(st.sampled_from(["", "none", "vlan"]))
    if attachment:
        lines.append(f"    attachmentType: {attachment}")
    policy = draw(st.sampled_from(["", "ipv4-only", "ipv6-only", "dual-stack"]))
    if policy:
        lines.append(f"    ipFamilyPolicy: {policy}")
    return "\n".join(lines) + "\n"


def kptfile() -> str:
    return (
        "- apiVersion: kpt.dev/v1\n"
        "  kind: Kptfile\n"
        "  metadata:\n"
        "    name: upf\n"
        "    annotations:\n"
        '      config.kubernetes.io/local-config: "true"\n'
        "      config.kubernetes.io/path: 'Kptfile'\n"
        "  info:\n"
        "    description: a generated package # kept\n"
    )


@st.composite
def cluster(draw: st.DrawFn, dialect: str) -> str:
    if dialect == "nephio":
        cnis = draw(st.lists(st.sampled_from(["sriov", "macvlan", "ipvlan"]), unique=True))
        return (
            "- apiVersion: infra.nephio.org/v1alpha1\n"
            "  kind: WorkloadCluster\n"
            "  metadata:\n"
            "    name: edge01.cluster\n"
            "    annotations:\n"
            "      config.kubernetes.io/path: 'workload-cluster.yaml'\n"
            "  spec:\n"
            "    clusterName: edge01\n"
            f"    cnis: [{', '.join(cnis)}]\n"
            "    masterInterface: eth1\n"
        )
    cni = draw(st.sampled_from(["sriov", "macvlan", "ipvlan"]))
    region = "    region: us-central1 # where\n" if draw(st.booleans()) else ""
    return (
        "- apiVersion: infra.nephio.org/v1alpha1\n"
        "  kind: ClusterContext\n"
        "  metadata:\n"
        "    name: cluster.context\n"
        "    annotations:\n"
        '      config.kubernetes.io/local-config: "true"\n'
        "      config.kubernetes.io/path: 'cluster-context.yaml'\n"
        "  spec:\n"
        "    cniConfig:\n"
        f"      cniType: {cni}\n"
        "      masterInterface: eth1\n"
        "    siteCode: edge1\n" + region
    )


@st.composite
def packages(draw: st.DrawFn) -> tuple[str, str, list[str], list[str]]:
    """(ResourceList text, dialect, texts of the unrelated items, texts of the read inputs)."""
    dialect = draw(st.sampled_from(["design", "nephio-r1", "nephio"]))
    names = draw(st.lists(INTERFACE_NAMES, max_size=4, unique=True))
    interfaces = [draw(interface(i, n)) for i, n in enumerate(names)]
    inputs = list(interfaces)
    if draw(st.integers(0, 4)):  # mostly with a cluster object
        inputs.insert(0, draw(cluster(dialect)))
    unrelated = draw(UNRELATED)
    texts = [kptfile(), *inputs, *unrelated]
    order = draw(st.permutations(range(1, len(texts))))
    texts = [texts[0], *(texts[i] for i in order)]
    config = (
        "functionConfig:\n"
        "  apiVersion: krmfn.dev/v1alpha1\n"
        "  kind: InterfaceExpander\n"
        "  metadata:\n"
        "    name: expander\n"
        "  spec:\n"
        f"    dialect: {dialect}\n"
    )
    return resource_list(texts, config), dialect, unrelated, inputs


def run(text: str) -> tuple[str, int]:
    return run_text(process, Config, text)


# --- properties ----------------------------------------------------------------------------


@SETTINGS
@given(packages())
def test_untouched_items_are_byte_identical(package: tuple[str, str, list[str], list[str]]) -> None:
    text, _dialect, unrelated, inputs = package
    out, _code = run(text)
    found = output_items(out)
    for item in [*unrelated, *inputs]:  # the function never edits its inputs
        assert found.get(text_identity(item)) == item


@SETTINGS
@given(packages())
def test_running_twice_equals_running_once(package: tuple[str, str, list[str], list[str]]) -> None:
    assert_idempotent(run, package[0])


@SETTINGS
@given(packages())
def test_every_input_item_is_kept(package: tuple[str, str, list[str], list[str]]) -> None:
    assert_items_kept(run, package[0])


@SETTINGS
@given(packages())
def test_results_sorted_and_deterministic(package: tuple[str, str, list[str], list[str]]) -> None:
    assert_results_sorted_and_deterministic(run, package[0])


@SETTINGS
@given(packages())
def test_children_have_valid_names(package: tuple[str, str, list[str], list[str]]) -> None:
    text, dialect, _, _ = package
    out, _ = run(text)
    children = [
        o for o in ResourceList.parse(out).items if (o.api_version, o.kind) in CHILD_KINDS[dialect]
    ]
    for child in children:
        assert DNS_SUBDOMAIN.match(child.name), child.name
        assert len(child.name) <= (63 if dialect == "design" else 253), child.name
        path = child.path or ""
        assert not path.startswith("/") and ".." not in path.split("/"), path
