"""krmfn.nephio's cluster readers, which interface-expander and nad-generator both use: Nephio's
messages for a missing field, and string fields read as written (``0123`` is not 123)."""

from __future__ import annotations

import pytest

from krmfn.nephio import read_cluster_context, read_workload_cluster
from krmlib import KrmError, KubeObject

WORKLOAD = """\
apiVersion: infra.nephio.org/v1alpha1
kind: WorkloadCluster
metadata:
  name: edge
spec:
  clusterName: 0123
  cnis: [macvlan]
  masterInterface: 10
"""
CONTEXT = """\
apiVersion: infra.nephio.org/v1alpha1
kind: ClusterContext
metadata:
  name: edge
spec:
  siteCode: 0123
  region: 1.10
  cniConfig:
    cniType: macvlan
    masterInterface: eth1
"""


def test_string_fields_are_read_as_written() -> None:
    cluster = read_workload_cluster(KubeObject.from_yaml(WORKLOAD))
    assert (cluster.cluster_name, cluster.cnis, cluster.master_interface) == (
        "0123",
        ("macvlan",),
        "10",
    )
    context = read_cluster_context(KubeObject.from_yaml(CONTEXT), r1=True)
    assert (context.site, context.region, context.master_interface) == ("0123", "1.10", "eth1")


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ("clusterName: 0123", "clusterName: example", "spec.clusterName", "ClusterName is missing"),
        ("cnis: [macvlan]", "cnis: []", "spec.cnis", "CNIConfig is missing from ClusterContext"),
        ("cnis: [macvlan]", "cnis: [1]", "spec.cnis", "spec.cnis must be a list of strings"),
        ("masterInterface: 10", "masterInterface: {}", "spec.masterInterface", "must be a string"),
    ],
)
def test_workload_cluster_checks(old: str, new: str, field: str, message: str) -> None:
    with pytest.raises(KrmError, match=message) as caught:
        read_workload_cluster(KubeObject.from_yaml(WORKLOAD.replace(old, new)))
    assert caught.value.field == field


def test_a_cluster_context_needs_its_cni_config_in_r1_only() -> None:
    obj = KubeObject.from_yaml(CONTEXT.replace("    cniType: macvlan\n", ""))
    assert read_cluster_context(obj, r1=False).site == "0123"
    with pytest.raises(KrmError, match="mandatory field cniType is missing from ClusterContext"):
        read_cluster_context(obj, r1=True)
