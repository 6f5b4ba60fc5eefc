"""nfdeploy's behaviour beyond nfdeploy-fn's eleven cases (tests/test_specializer_upstream.py):
quantities, an Interface the API refuses, Dependencies' configs de-duplicated and sorted, an
unusable WorkloadCluster, a requirement gone, an NFDeployment edited in place, a settled package."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
import yaml

from krmfn.nfdeploy import Config, process
from krmfn.nfdeploy.quantity import QuantityError, canonical
from krmlib import ResourceList, get_readiness_gates
from krmlib.testing import run_resource_list

NF = "workload.nephio.org/v1alpha1.NFDeployment.upf-edge01"
GATE = "nephio.org.Specializer.specialize"
CLUSTER = {
    "apiVersion": "infra.nephio.org/v1alpha1",
    "kind": "WorkloadCluster",
    "metadata": {"name": "c1"},
    "spec": {"clusterName": "edge01", "cnis": ["macvlan"], "masterInterface": "eth1"},
}
NFDEPLOYMENT = """\
apiVersion: workload.nephio.org/v1alpha1
kind: NFDeployment
metadata:
  name: upf-edge01 # the UPF
  annotations:
    config.kubernetes.io/path: upf.yaml
spec:
  provider: upf.free5gc.io # kept
  parametersRefs:
  - name: zz-existing
    apiVersion: workload.nephio.org/v1alpha1
    kind: NFConfig
"""


def child(kind: str, name: str, spec: dict[str, Any], status: Any = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "apiVersion": "req.nephio.org/v1alpha1",
        "kind": kind,
        "metadata": {"name": name, "annotations": {"specializer.nephio.org/owner": NF}},
        "spec": spec,
    }
    if status is not None:
        item["status"] = status
    return item


def settled_kptfile(*children: dict[str, Any]) -> dict[str, Any]:
    """A Kptfile whose requirement conditions are all True."""
    return {
        "apiVersion": "kpt.dev/v1",
        "kind": "Kptfile",
        "metadata": {"name": "pkg"},
        "status": {
            "conditions": [
                {
                    "type": f"req.nephio.org/v1alpha1.{c['kind']}.{c['metadata']['name']}",
                    "status": "True",
                    "reason": NF,
                    "message": "update done",
                }
                for c in children
            ]
        },
    }


def run(*items: dict[str, Any], nf: str = NFDEPLOYMENT) -> ResourceList:
    text = yaml.safe_dump(
        {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": list(items)},
        sort_keys=False,
    )
    text += "- " + nf.replace("\n", "\n  ").rstrip() + "\n"
    return run_resource_list(process, Config, text)


def conditions(rl: ResourceList) -> dict[str, dict[str, str]]:
    kptfile = rl.package().kptfile
    assert kptfile is not None
    return {c["type"]: c for c in kptfile.get("status.conditions", [])}


def nf_of(rl: ResourceList) -> Any:
    return next(o for o in rl.items if o.kind == "NFDeployment")


@pytest.mark.parametrize(
    ("given", "written"),
    [
        ("0", "0"),
        (0, "0"),
        ("1000M", "1G"),
        ("10G", "10G"),
        ("1.5G", "1500M"),
        ("2048Ki", "2Mi"),
        ("1000Ki", "1000Ki"),
        ("0.5", "500m"),
        (1000000000, "1G"),
    ],
)
def test_quantities_as_go_prints_them(given: object, written: str) -> None:
    assert canonical(given) == written


def test_a_bad_quantity_is_an_error() -> None:
    with pytest.raises(QuantityError):
        canonical("fast")


ITF_STATUS = {
    "ipClaimStatus": [
        {"prefix": "10.0.0.3/24", "gateway": "10.0.0.1"},
        {"prefix": "1000::3/64"},
    ],
    "vlanClaimStatus": {"vlanID": 100},
}


def test_the_spec_from_every_requirement_in_place() -> None:
    children = [
        child("Capacity", "dataplane", {"maxUplinkThroughput": "1000M", "maxSessions": 7}),
        child("Interface", "n3", {"networkInstance": {"name": "vpc-ran"}}, ITF_STATUS),
        child("Interface", "n2", {"networkInstance": {"name": "vpc-ran"}}, ITF_STATUS),
        child(
            "Interface",
            "n9",
            {"networkInstance": {"name": "vpc-ran"}},
            {"ipClaimStatus": ITF_STATUS["ipClaimStatus"]},  # no VLAN status: left out
        ),
        child(
            "DataNetwork",
            "internet",
            {"networkInstance": {"name": "vpc-internet"}},
            {"pools": [{"name": "p", "ipClaim": {"prefix": "172.0.0.0/16"}}, {"name": "q"}]},
        ),
        child(
            "Dependency",
            "b",
            {},
            {
                "injected": [
                    {
                        "name": "cfg-b",
                        "namespace": "x",
                        "apiVersion": "ref.nephio.org/v1alpha1",
                        "kind": "Config",
                    },
                    {"name": "cfg-a", "apiVersion": "ref.nephio.org/v1alpha1", "kind": "Config"},
                ]
            },
        ),
        child(
            "Dependency",
            "a",
            {},
            {
                "injected": [
                    {"name": "cfg-a", "apiVersion": "ref.nephio.org/v1alpha1", "kind": "Config"}
                ]
            },
        ),
    ]
    rl = run(settled_kptfile(*children), CLUSTER, *children)
    nf = nf_of(rl)
    assert nf.get("spec") == {
        "provider": "upf.free5gc.io",
        "parametersRefs": [
            {"name": "cfg-a", "apiVersion": "ref.nephio.org/v1alpha1", "kind": "Config"},
            {"name": "cfg-b", "apiVersion": "ref.nephio.org/v1alpha1", "kind": "Config"},
            {
                "name": "zz-existing",
                "apiVersion": "workload.nephio.org/v1alpha1",
                "kind": "NFConfig",
            },
        ],
        "networkInstances": [
            {
                "name": "vpc-internet",
                "dataNetworks": [{"name": "internet", "pool": [{"prefix": "172.0.0.0/16"}]}],
            },
            {"name": "vpc-ran", "interfaces": ["n2", "n3"]},
        ],
        "interfaces": [
            {
                "name": n,
                "ipv4": {"address": "10.0.0.3/24", "gateway": "10.0.0.1"},
                "ipv6": {"address": "1000::3/64"},
                "vlanID": 100,
            }
            for n in ("n2", "n3")
        ],
        "capacity": {"maxDownlinkThroughput": "0", "maxSessions": 7, "maxUplinkThroughput": "1G"},
    }
    text = rl.to_yaml()
    assert "# the UPF" in text and "# kept" in text  # edited in place: its comments stay
    found = conditions(rl)
    assert (found[NF]["status"], found[NF]["message"]) == ("True", "update done")
    assert (found[GATE]["status"], found[GATE]["reason"]) == ("True", "Ready")
    kptfile = rl.package().kptfile
    assert kptfile is not None and get_readiness_gates(kptfile) == [GATE]
    before = rl.to_yaml(with_results=False)
    again = run_resource_list(process, Config, before)
    assert again.to_yaml(with_results=False) == before  # settled: nothing changes


def test_an_interface_the_api_refuses_fails_the_nfdeployment() -> None:
    bad = child(
        "Interface", "n3", {"networkInstance": {"name": "vpc-ran"}, "cniType": "bridge"}, ITF_STATUS
    )
    rl = run(settled_kptfile(bad), CLUSTER, bad)
    found = conditions(rl)
    message = "spec invalid: unsupported cniType, got: bridge"
    assert (found[NF]["status"], found[NF]["message"]) == ("False", message)
    assert (found[GATE]["status"], found[GATE]["message"]) == ("False", "not ready")
    [warning] = [r for r in rl.results if r.severity == "warning"]
    assert message in warning.message and warning.field_path == "spec.cniType"
    assert "interfaces" not in nf_of(rl).get("spec")


def test_a_placeholder_cluster_fails_the_package() -> None:
    itf = child("Interface", "n3", {"networkInstance": {"name": "vpc-ran"}})
    cluster = {**CLUSTER, "spec": {"clusterName": "example"}}
    rl = run(
        {"apiVersion": "kpt.dev/v1", "kind": "Kptfile", "metadata": {"name": "p"}}, cluster, itf
    )
    found = conditions(rl)
    message = "spec invalid: mandatory field ClusterName is missing from WorkloadCluster"
    assert found[GATE] == {"type": GATE, "status": "False", "reason": "Failed", "message": message}
    assert list(found) == [GATE]  # nothing else is written
    assert not rl.results.has_errors


def test_a_requirement_that_left_keeps_its_condition_as_in_nfdeploy_fn() -> None:
    """An initial child's condition is never deleted by condkptsdk; the spec leaves it out."""
    itf = child("Interface", "n3", {"networkInstance": {"name": "vpc-ran"}}, ITF_STATUS)
    gone = child("Interface", "n4", {"networkInstance": {"name": "vpc-ran"}})
    rl = run(settled_kptfile(itf, gone), CLUSTER, itf)
    found = conditions(rl)
    assert found["req.nephio.org/v1alpha1.Interface.n4"]["status"] == "True"
    assert found[NF]["status"] == "True"
    assert [i["name"] for i in nf_of(rl).get("spec.interfaces")] == ["n3"]


@pytest.mark.parametrize(
    "prefix",
    [
        "10.0.0.3/24",
        "0.0.0.0/0",
        "255.255.255.255/32",
        "10.0.0.3",  # no length: ipaddress reads /32
        "010.0.0.3/24",  # a leading zero: refused
        "256.0.0.1/24",
        "10.0.0.3/33",
        "10.0.0.3/08",
        "10.0.0.3/255.255.255.0",
        "1000::3/64",
        "10.0.0.3/24 ",
        "fast",
    ],
)
def test_an_address_family_is_as_ipaddress_reads_it(prefix: str) -> None:
    """The IPv4 form answered without ipaddress: the same version, the same refusals."""
    from krmfn.nfdeploy.process import _ip_version

    try:
        expected: object = ipaddress.ip_interface(prefix).version
    except ValueError:
        expected = ValueError
    try:
        found: object = _ip_version(prefix)
    except ValueError:
        found = ValueError
    assert found == expected


def test_a_claim_prefix_that_is_no_prefix_fails_the_nfdeployment() -> None:
    status = {"ipClaimStatus": [{"prefix": "10.0.0.300/24"}], "vlanClaimStatus": {"vlanID": 1}}
    itf = child("Interface", "n3", {"networkInstance": {"name": "vpc-ran"}}, status)
    rl = run(settled_kptfile(itf), CLUSTER, itf)
    message = 'netip.ParsePrefix("10.0.0.300/24"): not a prefix'
    assert conditions(rl)[NF]["message"] == message
    [warning] = [r for r in rl.results if r.severity == "warning"]
    assert warning.field_path == "status.ipClaimStatus[0].prefix"
