"""Cycles and conflicts (issue 9, item 3): each gives a clear error result, exit code 1, and no
half-written output.

Cases a function does not detect yet are strict xfails whose reason says what is missing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from krmfn.applyset_labeler import Config as ApplySetConfig
from krmfn.applyset_labeler import process as applyset_process
from krmfn.interface_expander import Config as ExpanderConfig
from krmfn.interface_expander import process as expander_process
from krmfn.merger.config import Config as MergerConfig
from krmfn.merger.process import process as merger_process
from krmfn.preparer import Config as PreparerConfig
from krmfn.preparer import process as preparer_process
from krmfn.topology_to_pvs import Config as TopologyConfig
from krmfn.topology_to_pvs import process as topology_process
from krmlib import FunctionConfig, ResourceList
from krmlib._yaml import engines as _yaml
from krmlib.testing import run_text

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
Process = Callable[[ResourceList, Any], None]


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    yield


def kptfile(name: str) -> str:
    return (
        "- apiVersion: kpt.dev/v1\n"
        "  kind: Kptfile\n"
        "  metadata:\n"
        f"    name: {name}\n"
        "    annotations:\n"
        '      config.kubernetes.io/local-config: "true"\n'
        "      config.kubernetes.io/path: 'Kptfile'\n"
    )


def config_section(text: str) -> str:
    return "functionConfig:\n" + "".join(f"  {line}\n" for line in text.splitlines())


def refused(
    process: Process, config: type[FunctionConfig], items: list[str], fn_config: str = ""
) -> list[dict[str, Any]]:
    """Run; require exit 1 and the items unchanged (nothing half-written); the error results."""
    text = HEAD + "".join(items) + (config_section(fn_config) if fn_config else "")
    out, code = run_text(process, config, text)
    assert code == 1, out
    assert [o.to_item() for o in ResourceList.parse(out).items] == items, out
    results = _yaml.load_plain(out).get("results") or []
    errors = [r for r in results if r["severity"] == "error"]
    assert errors, out
    return errors


def ref_of(result: dict[str, Any]) -> tuple[str, str]:
    ref = result.get("resourceRef") or {}
    return ref.get("kind", ""), ref.get("name", "")


# --- merger: renames onto itself, onto another input, in a cycle ----------------------------

TEMPLATE = (
    "- apiVersion: workload.plugin.nephio.org/v1alpha1\n"
    "  kind: Namespace\n"
    "  metadata:\n"
    "    name: smf\n"
    "    annotations:\n"
    "      config.kubernetes.io/path: 'resources.yaml'\n"
    "  spec:\n"
    "    labels: {team: core} # the template's\n"
)


def merge_config(*inputs: tuple[str, str | None]) -> str:
    lines = ["apiVersion: krmfn.dev/v1alpha1", "kind: Merge", "metadata:", "  name: merge"]
    lines += ["spec:", "  resources:"]
    for name, rename in inputs:
        lines += [
            "  - apiVersion: workload.plugin.nephio.org/v1alpha1",
            "    kind: Namespace",
            "    metadata:",
            f"      name: {name}",
        ]
        if rename is not None:
            lines += ["      annotations:", f"        nephio.org/rename: {rename}"]
        lines += ["    spec:", "      labels: {site: edge1}"]
    return "\n".join(lines) + "\n"


RENAME_FIELD = 'metadata.annotations["nephio.org/rename"]'


def test_merger_rename_onto_itself() -> None:
    errors = refused(
        merger_process, MergerConfig, [kptfile("t"), TEMPLATE], merge_config(("smf", "smf"))
    )
    assert len(errors) == 1
    assert "renames Namespace smf to itself" in errors[0]["message"]
    assert errors[0]["field"]["path"] == f"spec.resources[0].{RENAME_FIELD}"
    assert ref_of(errors[0]) == ("Merge", "merge")


def test_merger_rename_onto_another_input() -> None:
    config = merge_config(("smf", None), ("smf1", "smf"))
    errors = refused(merger_process, MergerConfig, [kptfile("t"), TEMPLATE], config)
    assert len(errors) == 1
    message = errors[0]["message"]
    assert "#2 Namespace smf1 is renamed to smf" in message
    assert "#1 Namespace smf also lands" in message
    assert errors[0]["field"]["path"] == f"spec.resources[1].{RENAME_FIELD}"


def test_merger_rename_onto_another_renamed_input() -> None:
    config = merge_config(("smf1", "smf"), ("smf2", "smf"))
    errors = refused(merger_process, MergerConfig, [kptfile("t"), TEMPLATE], config)
    assert len(errors) == 1
    assert "is renamed to smf" in errors[0]["message"]
    assert "(renamed)" in errors[0]["message"]


@pytest.mark.parametrize(
    "inputs",
    [
        [("smf", "upf"), ("upf", "smf")],
        [("smf", "upf"), ("upf", "amf"), ("amf", "smf")],
    ],
    ids=["two", "three"],
)
def test_merger_rename_cycle(inputs: list[tuple[str, str | None]]) -> None:
    errors = refused(merger_process, MergerConfig, [kptfile("t"), TEMPLATE], merge_config(*inputs))
    assert len(errors) == 1
    assert "nephio.org/rename cycle among merge inputs: Namespace smf" in errors[0]["message"]
    assert errors[0]["field"]["path"] == f"spec.resources[0].{RENAME_FIELD}"


# --- preparer: a Placement that places its own template, or merges itself -------------------


def topology(kind: str, name: str, spec: str) -> str:
    body = "".join(f"    {line}\n" for line in spec.splitlines())
    return (
        "- apiVersion: topology.nephio.org/v1alpha1\n"
        f"  kind: {kind}\n"
        "  metadata:\n"
        f"    name: {name}\n"
        "    annotations:\n"
        "      config.kubernetes.io/path: 'topology.yaml'\n"
        "  spec:\n" + body
    )


PLACEMENT = "templates:\n- template: t\n  sites: [s]\n"
TEMPLATE_T = topology("Template", "t", "templateId: topo")
SITE_S = topology("Site", "s", "siteId: lab/1")
# Children are placed on catalog sites only (TKO refuses an unknown site).
CATALOG_SITE = (
    "- apiVersion: tko.nephio.org/v1alpha1\n"
    "  kind: Site\n"
    "  metadata:\n"
    "    name: lab-1\n"
    "    annotations:\n"
    '      config.kubernetes.io/local-config: "true"\n'
    "      config.kubernetes.io/path: 'catalog.yaml'\n"
    "  spec: {siteId: lab/1}\n"
)
# The inline catalog's template "topo" is this very topology package: a Placement of it creates
# a child that places it again, one level deeper on every render.
OWN_TEMPLATE = (
    "- apiVersion: tko.nephio.org/v1alpha1\n"
    "  kind: Template\n"
    "  metadata:\n"
    "    name: topo-template\n"
    "    annotations:\n"
    '      config.kubernetes.io/local-config: "true"\n'
    "      config.kubernetes.io/path: 'catalog.yaml'\n"
    "  spec:\n"
    "    templateId: topo\n"
    "    package:\n"
    "      resources:\n"
    "      - apiVersion: kpt.dev/v1\n"
    "        kind: Kptfile\n"
    "        metadata: {name: topo}\n"
    "      - apiVersion: topology.nephio.org/v1alpha1\n"
    "        kind: Placement\n"
    "        metadata: {name: cu}\n"
    "        spec:\n"
    "          templates:\n"
    "          - {template: t, sites: [s]}\n"
    "      - apiVersion: topology.nephio.org/v1alpha1\n"
    "        kind: Template\n"
    "        metadata: {name: t}\n"
    "        spec: {templateId: topo}\n"
    "      - apiVersion: topology.nephio.org/v1alpha1\n"
    "        kind: Site\n"
    "        metadata: {name: s}\n"
    "        spec: {siteId: lab/1}\n"
)


def test_preparer_placement_places_its_own_template() -> None:
    items = [kptfile("topo"), OWN_TEMPLATE, topology("Placement", "cu", PLACEMENT)]
    items += [TEMPLATE_T, SITE_S]
    errors = refused(preparer_process, PreparerConfig, items)
    assert any(ref_of(e) == ("Placement", "cu") and "topo" in e["message"] for e in errors)


def test_preparer_placement_merges_itself() -> None:
    spec = (
        PLACEMENT
        + "  merge:\n  - {apiVersion: topology.nephio.org/v1alpha1, kind: Placement, name: cu}\n"
    )
    catalog = OWN_TEMPLATE.replace("kind: Placement", "kind: NotAPlacement")
    items = [kptfile("topo"), catalog, topology("Placement", "cu", spec), TEMPLATE_T, SITE_S]
    errors = refused(preparer_process, PreparerConfig, items)
    assert any(
        ref_of(e) == ("Placement", "cu") and e["field"]["path"].endswith("merge[0]") for e in errors
    )


# --- applyset-labeler: two ApplySets claiming one object ------------------------------------

APPLYSET_CONFIG = (
    "apiVersion: krmfn.dev/v1alpha1\n"
    "kind: ApplySet\n"
    "metadata:\n"
    "  name: app\n"
    "spec:\n"
    "  parent: {kind: ConfigMap, name: app, namespace: prod}\n"
)
OTHER_SET = "applyset-OtherSetOtherSetOtherSetOtherSetOtherSet0-v1"


@pytest.mark.parametrize("prefix", ["applyset.kubernetes.io", "applyset.k8s.io"])
@pytest.mark.parametrize("mode", ["managed", "kubectl"])
def test_applyset_member_of_another_set(prefix: str, mode: str) -> None:
    member = (
        "- apiVersion: apps/v1\n"
        "  kind: Deployment\n"
        "  metadata:\n"
        "    name: web\n"
        "    namespace: prod\n"
        "    labels:\n"
        f"      {prefix}/part-of: {OTHER_SET} # set by another tool\n"
        "    annotations:\n"
        "      config.kubernetes.io/path: 'app.yaml'\n"
        "  spec:\n"
        "    replicas: 1\n"
    )
    config = APPLYSET_CONFIG + f"  mode: {mode}\n"
    errors = refused(applyset_process, ApplySetConfig, [kptfile("app"), member], config)
    assert len(errors) == 1
    assert ref_of(errors[0]) == ("Deployment", "web")
    assert f"already a member of ApplySet {OTHER_SET}" in errors[0]["message"]
    assert errors[0]["field"]["path"] == f'metadata.labels["{prefix}/part-of"]'


# --- interface-expander: two Interfaces with one name ---------------------------------------

CLUSTER_CONTEXT = (
    "- apiVersion: infra.nephio.org/v1alpha1\n"
    "  kind: ClusterContext\n"
    "  metadata:\n"
    "    name: cluster-context\n"
    "  spec:\n"
    "    cniConfig: {cniType: macvlan, masterInterface: eth1}\n"
    "    siteCode: edge1\n"
)


def interface(path: str, network: str, namespace: str = "") -> str:
    return (
        "- apiVersion: req.nephio.org/v1alpha1\n"
        "  kind: Interface\n"
        "  metadata:\n"
        "    name: n6\n"
        + (f"    namespace: {namespace}\n" if namespace else "")
        + "    annotations:\n"
        f"      config.kubernetes.io/path: '{path}'\n"
        "  spec:\n"
        f"    networkInstance: {{name: {network}}}\n"
        "    cniType: macvlan\n"
    )


@pytest.mark.parametrize(
    "second", [interface("b/b.yaml", "vpc-b"), interface("c.yaml", "vpc-a", namespace="other")]
)
def test_interface_expander_duplicate_names(second: str) -> None:
    items = [kptfile("upf"), CLUSTER_CONTEXT, interface("a.yaml", "vpc-a"), second]
    errors = refused(expander_process, ExpanderConfig, items)
    assert len(errors) == 2
    assert all(ref_of(e) == ("Interface", "n6") for e in errors)
    assert all(e["field"]["path"] == "metadata.name" for e in errors)
    files = [e["file"]["path"] for e in errors]
    assert sorted(files) == sorted(["a.yaml", second.split("path: '", 1)[1].split("'", 1)[0]])
    for error, other in zip(errors, reversed(files), strict=True):
        assert "duplicate Interface name 'n6'" in error["message"]
        assert other in error["message"]


# --- topology-to-pvs: duplicate NF instance names -------------------------------------------

NF_CLASS = (
    "- apiVersion: topology.nephio.org/v1alpha1\n"
    "  kind: NFClass\n"
    "  metadata:\n"
    "    name: upf-class\n"
    "  spec:\n"
    "    packageRef: {repository: catalog, packageName: free5gc-upf, revision: v1}\n"
)


def nf_topology(name: str, *instances: str) -> str:
    lines = [
        "- apiVersion: topology.nephio.org/v1alpha1",
        "  kind: NFTopology",
        "  metadata:",
        f"    name: {name}",
        "    annotations:",
        f"      config.kubernetes.io/path: '{name}.yaml'",
        "  spec:",
        "    nfInstances:",
    ]
    for instance in instances:
        lines += [
            f"    - name: {instance}",
            "      clusterSelector: {matchLabels: {region: us-west-1}}",
            "      nfTemplate:",
            "        nfType: upf",
            "        className: upf-class",
            "        nfInterfaces: [{name: n4, networkInstanceName: core}]",
        ]
    return "\n".join(lines) + "\n"


def test_topology_duplicate_instance_names() -> None:
    topo = nf_topology("topology-123", "upf-1", "upf-2", "upf-1")
    errors = refused(topology_process, TopologyConfig, [kptfile("t"), NF_CLASS, topo])
    assert len(errors) == 1
    assert ref_of(errors[0]) == ("NFTopology", "topology-123")
    assert "duplicate instance name 'upf-1'" in errors[0]["message"]
    assert errors[0]["field"]["path"] == "spec.nfInstances[2].name"


@pytest.mark.parametrize(
    "topologies",
    [
        [nf_topology("t1", "UPF_1", "upf-1")],
        [nf_topology("a", "b-c"), nf_topology("a-b", "c")],
    ],
    ids=["one-topology", "two-topologies"],
)
def test_topology_instances_with_one_pvs_name(topologies: list[str]) -> None:
    found = refused(topology_process, TopologyConfig, [kptfile("t"), NF_CLASS, *topologies])
    assert all(ref_of(e)[0] == "NFTopology" for e in found)
    # The instances share one selector and one class: Porch would also refuse the second clone
    # of free5gc-upf into each repository (issue 28), one error per instance.
    clones = [e for e in found if "Porch refuses the second clone" in e["message"]]
    assert len(clones) == 2
    errors = [e for e in found if e not in clones]
    assert len(errors) == 2
    paths = [(ref_of(e)[1], e["field"]["path"]) for e in errors]
    if len(topologies) == 1:
        expected = [("t1", "spec.nfInstances[0].name"), ("t1", "spec.nfInstances[1].name")]
        names = ("'UPF_1'", "'upf-1'")
    else:
        expected = [("a", "spec.nfInstances[0].name"), ("a-b", "spec.nfInstances[0].name")]
        names = ("'b-c'", "'c'")
    assert sorted(paths) == expected
    for error in errors:
        assert all(name in error["message"] for name in names), error["message"]


def test_preparer_two_placements_cannot_place_the_same_child() -> None:
    catalog = OWN_TEMPLATE.replace("kind: Placement", "kind: NotAPlacement")
    items = [kptfile("topo"), catalog, topology("Placement", "cu", PLACEMENT)]
    items += [topology("Placement", "cu-again", PLACEMENT), TEMPLATE_T, SITE_S, CATALOG_SITE]
    out, code = run_text(preparer_process, PreparerConfig, HEAD + "".join(items))
    assert code == 1, out
    errors = [r for r in _yaml.load_plain(out).get("results") or [] if r["severity"] == "error"]
    assert any(
        ref_of(e) == ("Placement", "cu-again") and "Placement cu already created" in e["message"]
        for e in errors
    ), errors
