"""Nephio's catalog UPF blueprint rendered by kpt with krmfn in interface-fn's place.

The package (testdata/interface-expander/catalog-upf-blueprint) is the published blueprint with
its placeholder WorkloadCluster. The test walks it through Porch's life: rendered as published,
then with the WorkloadCluster Porch injects, then with the claims and NADs fulfilled (what
ipam-fn, vlan-fn and nad-fn would write), then rendered once more, which must change nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from krmlib import KubeObject, get_conditions

from .kpt_packages import assert_render_changes_nothing, kptfile_conditions, render, rendered_copy

CASE = Path(__file__).resolve().parent.parent / "testdata/interface-expander/catalog-upf-blueprint"
INTERFACES = ("n3", "n4", "n6")
INJECTED = """\
apiVersion: infra.nephio.org/v1alpha1
kind: WorkloadCluster
metadata:
  name: workload-cluster
  annotations:
    config.kubernetes.io/local-config: "true"
    kpt.dev/config-injection: required
spec:
  clusterName: edge01
  cnis:
  - macvlan
  - ipvlan
  - sriov
  masterInterface: eth1
"""

pytestmark = pytest.mark.kpt


def edit(path: Path, changes: dict[str, object]) -> None:
    obj = KubeObject.from_yaml(path.read_text())
    for field, value in changes.items():
        obj.set(field, value)
    path.write_text(obj.to_yaml())


def fulfil(pkg: Path) -> None:
    """What ipam-fn, vlan-fn and nad-fn write: claim status and their conditions True."""
    for name in INTERFACES:
        edit(
            pkg / f"ipclaim_upf-example-{name}-ipv4.yaml",
            {"status": {"prefix": "10.0.3.10/24", "gateway": "10.0.3.1"}},
        )
        edit(pkg / f"vlanclaim_upf-example-{name}.yaml", {"status": {"vlanID": 10}})
    kptfile = KubeObject.from_yaml((pkg / "Kptfile").read_text())
    for index, condition in enumerate(get_conditions(kptfile)):
        if not condition.type.startswith("req.nephio.org/"):
            kptfile.set(f"status.conditions[{index}].status", "True")
    (pkg / "Kptfile").write_text(kptfile.to_yaml())


def test_the_blueprint_renders_before_and_after_the_workload_cluster_is_filled_in(
    tmp_path: Path,
) -> None:
    pkg = tmp_path / "upf"
    rendered_copy(CASE / "package", pkg)  # as published: the placeholder WorkloadCluster
    found = kptfile_conditions(pkg)
    for name in (*INTERFACES, "sbi"):
        condition = found[f"req.nephio.org/v1alpha1.Interface.{name}"]
        assert (condition.status, condition.message) == (
            "False",
            "spec invalid: mandatory field ClusterName is missing from WorkloadCluster",
        )
    assert not list(pkg.glob("ipclaim_*.yaml"))

    (pkg / "workload-cluster.yaml").write_text(INJECTED)  # Porch's config injection
    render(pkg)
    found = kptfile_conditions(pkg)
    for name in INTERFACES:
        claim = KubeObject.from_yaml((pkg / f"ipclaim_upf-example-{name}-ipv4.yaml").read_text())
        assert claim.get(("spec", "selector", "matchLabels", "nephio.org/cluster-name")) == "edge01"
        assert (pkg / f"vlanclaim_upf-example-{name}.yaml").exists()
        nad = found[f"k8s.cni.cncf.io/v1.NetworkAttachmentDefinition.upf-example-{name}"]
        assert (nad.status, nad.message) == ("False", "create initial resource")
        itfce = found[f"req.nephio.org/v1alpha1.Interface.{name}"]
        assert (itfce.status, itfce.message) == ("False", "update for condition")
    n3 = KubeObject.from_yaml((pkg / "ipclaim_upf-example-n3-ipv4.yaml").read_text())
    assert n3.get(("spec", "selector", "matchLabels", "nephio.org/network-name")) == "n3"
    sbi = found["req.nephio.org/v1alpha1.Interface.sbi"]
    assert (sbi.status, sbi.message) == ("True", "update done")

    fulfil(pkg)
    render(pkg)
    found = kptfile_conditions(pkg)
    for name in INTERFACES:
        itfce = found[f"req.nephio.org/v1alpha1.Interface.{name}"]
        assert (itfce.status, itfce.message) == ("True", "update done")
        obj = KubeObject.from_yaml((pkg / f"interface-{name}.yaml").read_text())
        assert obj.get("status") == {
            "ipClaimStatus": [{"prefix": "10.0.3.10/24", "gateway": "10.0.3.1"}],
            "vlanClaimStatus": {"vlanID": 10},
        }

    assert_render_changes_nothing(pkg)
