"""dnn-generator's behaviour beyond dnn-fn's eight cases (tests/test_specializer_upstream.py):
IPv6 pools, the ``for`` annotation, a changed pool, a claim wanted again after its delete mark,
the suspicious-name warning, a condition whose DataNetwork is gone, several pools, a settled
package, the results."""

from __future__ import annotations

from typing import Any

import yaml

from krmfn.dnn_generator import Config, process
from krmfn.dnn_generator.process import DnnGenerator
from krmlib import ResourceList
from krmlib.testing import run_resource_list

KPTFILE = {
    "apiVersion": "kpt.dev/v1",
    "kind": "Kptfile",
    "metadata": {"name": "pkg", "annotations": {"config.kubernetes.io/path": "Kptfile"}},
}
CLUSTER = {
    "apiVersion": "infra.nephio.org/v1alpha1",
    "kind": "WorkloadCluster",
    "metadata": {"name": "c1", "annotations": {"config.kubernetes.io/path": "wc.yaml"}},
    "spec": {"clusterName": "edge01", "cnis": ["macvlan"], "masterInterface": "eth1"},
}
OWNER = "workload.nephio.org/v1alpha1.NFDeployment.upf-edge01"
DNN_TYPE = "req.nephio.org/v1alpha1.DataNetwork.internet"


def dnn(pools: list[dict[str, Any]], **annotations: str) -> dict[str, Any]:
    return {
        "apiVersion": "req.nephio.org/v1alpha1",
        "kind": "DataNetwork",
        "metadata": {
            "name": "internet",
            "annotations": {
                "config.kubernetes.io/path": "sub/dnn.yaml",
                "specializer.nephio.org/owner": OWNER,
                **annotations,
            },
        },
        "spec": {"networkInstance": {"name": "vpc-internet"}, "pools": pools},
    }


def run(*items: dict[str, Any]) -> tuple[ResourceList, int]:
    text = yaml.safe_dump(
        {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": list(items)},
        sort_keys=False,
    )
    rl = run_resource_list(process, Config, text)
    return rl, 1 if rl.results.has_errors else 0


def again(rl: ResourceList) -> tuple[ResourceList, int]:
    rl = run_resource_list(process, Config, rl.to_yaml(with_results=False))
    return rl, 1 if rl.results.has_errors else 0


def conditions(rl: ResourceList) -> dict[str, dict[str, str]]:
    kptfile = rl.package().kptfile
    assert kptfile is not None
    return {c["type"]: c for c in kptfile.get("status.conditions", [])}


def claims(rl: ResourceList) -> dict[str, Any]:
    return {o.name: o for o in rl.items if o.kind == "IPClaim"}


def settle(rl: ResourceList, prefix: str = "10.0.0.0/24") -> ResourceList:
    """What the IPAM specializer does: every claim filled, its condition True."""
    items = []
    kptfile = rl.package().kptfile
    assert kptfile is not None
    listed = kptfile.get("status.conditions", [])
    for obj in rl.items:
        data = obj.to_dict()
        if obj.kind == "IPClaim":
            data["status"] = {"prefix": prefix}
        items.append(data)
    for entry in listed:
        if entry["type"].startswith("ipam."):
            entry.update(status="True", message="update done")
    next(i for i in items if i["kind"] == "Kptfile")["status"] = {"conditions": listed}
    text = yaml.safe_dump(
        {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    )
    return ResourceList.parse(text)


def test_an_ipv6_pool_and_the_for_annotation() -> None:
    rl, code = run(
        KPTFILE,
        CLUSTER,
        dnn(
            [{"name": "p6", "prefixLength": 48, "ipFamily": "ipv6"}],
            **{"specializer.nephio.org/for": "x/v1.NFDeployment.smf-edge02"},
        ),
    )
    assert code == 0
    claim = claims(rl)["smf-edge02-internet-p6"]
    assert claim.get("spec.selector.matchLabels") == {
        "nephio.org/address-family": "ipv6",
        "nephio.org/cluster-name": "edge01",
    }
    assert claim.get("spec.prefixLength") == 48
    assert dict(claim.annotations)["specializer.nephio.org/for"] == "x/v1.NFDeployment.smf-edge02"
    assert claim.path == "sub/ipclaim_smf-edge02-internet-p6.yaml"  # next to its DataNetwork


def test_a_changed_pool_replaces_its_claim_in_its_file() -> None:
    rl, _ = run(KPTFILE, CLUSTER, dnn([{"name": "pool1", "prefixLength": 16}]))
    rl = settle(rl)
    data = [o.to_dict() for o in rl.items]
    network = next(d for d in data if d["kind"] == "DataNetwork")
    network["spec"]["pools"][0]["prefixLength"] = 20
    rl, _ = run(*data)
    claim = claims(rl)["upf-edge01-internet-pool1"]
    assert claim.get("spec.prefixLength") == 20
    assert claim.get("status") == {}  # replaced whole, as condkptsdk does
    assert claim.path == "sub/ipclaim_upf-edge01-internet-pool1.yaml"
    found = conditions(rl)
    assert (
        found["ipam.resource.nephio.org/v1alpha1.IPClaim.upf-edge01-internet-pool1"]["message"]
        == "update resource"
    )
    # condkptsdk's quirk: the claim's condition in its inventory is still "True" (only the
    # Kptfile's says "update resource"), so stage 2 runs and the DataNetwork is "update done"
    assert found[DNN_TYPE]["message"] == "update done"
    written = next(o for o in rl.items if o.kind == "DataNetwork")
    assert written.get("status.pools") == [{"name": "pool1", "ipClaim": {}}]


def test_a_claim_marked_for_deletion_and_wanted_again_loses_its_mark() -> None:
    rl, _ = run(KPTFILE, CLUSTER, dnn([{"name": "pool1", "prefixLength": 16}]))
    data = [o.to_dict() for o in rl.items]
    claim = next(d for d in data if d["kind"] == "IPClaim")
    claim["metadata"]["annotations"]["specializer.nephio.org/delete"] = "true"
    rl, _ = run(*data)
    claim_obj = claims(rl)["upf-edge01-internet-pool1"]
    assert "specializer.nephio.org/delete" not in dict(claim_obj.annotations)
    found = conditions(rl)
    assert (
        found["ipam.resource.nephio.org/v1alpha1.IPClaim.upf-edge01-internet-pool1"]["message"]
        == "update resource"
    )


def test_several_pools_in_name_order_and_a_settled_package_stays() -> None:
    pools = [{"name": n, "prefixLength": 24} for n in ("b", "a", "c")]
    rl, _ = run(KPTFILE, CLUSTER, dnn(pools))
    assert sorted(claims(rl)) == [f"upf-edge01-internet-{n}" for n in "abc"]
    rl, code = again(settle(rl))
    assert code == 0
    network = next(o for o in rl.items if o.kind == "DataNetwork")
    assert network.get("status.pools") == [
        {"name": n, "ipClaim": {"prefix": "10.0.0.0/24"}} for n in "abc"
    ]
    assert conditions(rl)[DNN_TYPE]["status"] == "True"
    before = rl.to_yaml(with_results=False)
    rl, _ = again(rl)
    assert rl.to_yaml(with_results=False) == before


def test_an_owned_claim_with_another_name_is_a_warning() -> None:
    """Stage 2's check (dnn-fn's ``updateDnnResource``): a claim the DataNetwork owns whose
    name is not ``<for>-<dnn>-<pool>`` is left out of the status, with a warning. (In a run, a
    claim that is not desired loses its condition in stage 1, so stage 2 never sees one: the
    check is called directly.)"""
    rl = ResourceList.parse(
        yaml.safe_dump(
            {
                "apiVersion": "config.kubernetes.io/v1",
                "kind": "ResourceList",
                "items": [
                    dnn([{"name": "pool1", "prefixLength": 16}]),
                    {
                        "apiVersion": "ipam.resource.nephio.org/v1alpha1",
                        "kind": "IPClaim",
                        "metadata": {"name": "odd"},
                        "spec": {"kind": "pool"},
                        "status": {"prefix": "10.9.0.0/16"},
                    },
                    {
                        "apiVersion": "ipam.resource.nephio.org/v1alpha1",
                        "kind": "IPClaim",
                        "metadata": {"name": "upf-edge01-internet-pool1"},
                        "spec": {"kind": "pool"},
                        "status": {"prefix": "10.0.0.0/16"},
                    },
                ],
            }
        )
    )
    network, odd, good = list(rl.items)
    DnnGenerator(rl).update(network, [odd, good])
    assert network.get("status") == {
        "pools": [{"name": "pool1", "ipClaim": {"prefix": "10.0.0.0/16"}}]
    }
    [warning] = list(rl.results)
    assert warning.message == (
        'found an IPClaim owned by DNN "internet" with a suspicious name: odd'
    )
    assert warning.resource_ref is not None and warning.resource_ref["name"] == "odd"


def test_a_condition_whose_datanetwork_left_fails_as_upstream() -> None:
    kptfile = {
        **KPTFILE,
        "status": {"conditions": [{"type": DNN_TYPE, "status": "True", "message": "update done"}]},
    }
    rl, code = run(kptfile, CLUSTER)
    assert code == 0
    assert conditions(rl)[DNN_TYPE] == {
        "type": DNN_TYPE,
        "status": "False",
        "message": "cannot initialize with a nil object",
    }


def test_an_unusable_cluster_is_a_warning_naming_its_field() -> None:
    cluster = {**CLUSTER, "spec": {"clusterName": "example"}}
    rl, code = run(KPTFILE, cluster, dnn([{"name": "pool1", "prefixLength": 16}]))
    assert code == 0
    message = "spec invalid: mandatory field ClusterName is missing from WorkloadCluster"
    assert conditions(rl)[DNN_TYPE]["message"] == message
    [warning] = [r for r in rl.results if r.severity == "warning"]
    assert warning.message == message
    assert warning.field_path == "spec.clusterName"
    assert not claims(rl)


def test_an_empty_resource_list() -> None:
    rl, code = run()
    assert code == 0
    assert [r.message for r in rl.results] == ["no resources present in the resourcelist"]
