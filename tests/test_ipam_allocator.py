"""ipam-allocator: nokia/k8s-ipam's allocation rules over the address space and the ledger,
the mock answers of Nephio's pipeline tests, the function's conditions and results."""

from __future__ import annotations

import ipaddress
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from krmfn.ipam_allocator.claims import Claim, mock_answer
from krmfn.ipam_allocator.engine import Allocator, LedgerConflict
from krmfn.ipam_allocator.ledger import IpEntry, VlanEntry, format_ledger, read_ledger
from krmfn.ipam_allocator.space import read_space
from krmlib import KrmError, KubeObject
from krmlib.packages import read_documents

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "free5gc-two-clusters"

INVENTORY = {
    "apiVersion": "krmfn.dev/v1alpha1",
    "kind": "IpamInventory",
    "metadata": {"name": "inventory"},
    "spec": {"clusters": ["edge01", "edge02", "regional"]},
}


def network(name: str, prefixes: list[dict[str, Any]]) -> KubeObject:
    return KubeObject.from_dict(
        {
            "apiVersion": "infra.nephio.org/v1alpha1",
            "kind": "Network",
            "metadata": {"name": name},
            "spec": {"routingTables": [{"name": name, "prefixes": prefixes}]},
        }
    )


def catalog_space() -> list[KubeObject]:
    """The catalog's sandbox networks (examples/free5gc-two-clusters/network) and the inventory."""
    objects: list[KubeObject] = []
    for path in sorted((EXAMPLE / "network").glob("vpc-*.yaml")):
        objects += read_documents(path.read_text(), str(path))
    return [*objects, KubeObject.from_dict(INVENTORY)]


def net_claim(package: str, name: str, ni: str, cluster: str, **more: Any) -> Claim:
    match = (("nephio.org/address-family", "ipv4"), ("nephio.org/cluster-name", cluster))
    return Claim(
        kind="ip",
        owner=f"{package}/{name}",
        package=package,
        name=name,
        network_instance=ni,
        prefix_kind=more.pop("prefix_kind", "network"),
        match=more.pop("match", match),
        **more,
    )


def test_a_network_claim_gets_the_first_free_address_of_its_cluster_prefix_and_the_gateway() -> (
    None
):
    allocator = Allocator(read_space(catalog_space()), [], [])
    match = (
        ("nephio.org/address-family", "ipv4"),
        ("nephio.org/cluster-name", "edge02"),
        ("nephio.org/network-name", "n3"),
    )
    n3 = net_claim("edge02/upf", "upf-n3", "vpc-ran", "edge02", match=match)
    answers = allocator.allocate([n3])
    # vpc-ran's 172.3.0.0/16 (labelled n3), cluster number 2 of the inventory: 172.3.1.0/24
    assert answers[n3.owner] == {"prefix": "172.3.1.2/24", "gateway": "172.3.1.1"}


def test_the_selector_picks_the_prefix_by_its_labels() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    match = (
        ("nephio.org/address-family", "ipv4"),
        ("nephio.org/cluster-name", "edge01"),
        ("nephio.org/network-name", "n2"),
    )
    n2 = net_claim("edge01/amf", "amf-n2", "vpc-ran", "edge01", match=match)
    assert allocator.allocate([n2])[n2.owner] == {"prefix": "172.2.0.2/24", "gateway": "172.2.0.1"}


def test_addresses_follow_one_another_and_never_take_the_gateway() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    claims = [net_claim(f"p{i}", "n4", "vpc-internal", "edge01") for i in range(3)]
    answers = allocator.allocate(claims)
    assert [answers[c.owner]["prefix"] for c in claims] == [  # type: ignore[index]
        "172.1.0.2/24",
        "172.1.0.3/24",
        "172.1.0.4/24",
    ]


def test_a_pool_claim_takes_the_first_free_sub_prefix_of_the_cluster_pool() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    pools = [
        net_claim("edge01/upf", f"upf-internet-pool{i}", "vpc-internet", "edge01",
                  prefix_kind="pool", prefix_length=24, create_prefix=True)
        for i in (1, 2)
    ]  # fmt: skip
    answers = allocator.allocate(pools)
    # vpc-internet's 10.0.0.0/8 is labelled prefix-kind pool: edge01's pool is 10.0.0.0/16
    assert answers[pools[0].owner] == {"prefix": "10.0.0.0/24"}
    assert answers[pools[1].owner] == {"prefix": "10.0.1.0/24"}


def test_a_pool_claim_without_create_prefix_is_nephios_error() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    bad = net_claim("p", "pool", "vpc-internet", "edge01", prefix_kind="pool", prefix_length=24)
    assert allocator.allocate([bad])[bad.owner] == (
        "a dynamic claim of kind pool is not supported unless prefixlength and create prefix is set"
    )


def test_no_route_for_the_selector_is_nephios_error() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    lost = net_claim("p", "n3", "vpc-ran", "nowhere")
    answer = allocator.allocate([lost])[lost.owner]
    assert isinstance(answer, str)
    assert answer.startswith("dynamic claim: no available routes based on the selector labels")


def test_a_free_status_prefix_is_a_hint_kept_and_a_taken_one_is_not() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    first = net_claim("a", "n4", "vpc-internal", "edge01", hint="172.1.0.7/24")
    second = net_claim("b", "n4", "vpc-internal", "edge01", hint="172.1.0.7/24")
    answers = allocator.allocate([first, second])
    assert answers[first.owner] == {"prefix": "172.1.0.7/24", "gateway": "172.1.0.1"}
    assert answers[second.owner] == {"prefix": "172.1.0.2/24", "gateway": "172.1.0.1"}


def test_a_hint_that_is_the_gateway_or_outside_the_prefix_is_ignored() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    gw = net_claim("a", "n4", "vpc-internal", "edge01", hint="172.1.0.1/24")
    out = net_claim("b", "n4", "vpc-internal", "edge01", hint="10.9.9.9/24")
    answers = allocator.allocate([gw, out])
    assert answers[gw.owner] == {"prefix": "172.1.0.2/24", "gateway": "172.1.0.1"}
    assert answers[out.owner] == {"prefix": "172.1.0.3/24", "gateway": "172.1.0.1"}


def test_a_static_claim_is_checked_against_the_others() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    a = net_claim("a", "n4", "vpc-internal", "edge01", static="172.1.0.9/24")
    b = net_claim("b", "n4", "vpc-internal", "edge01", static="172.1.0.9/24")
    answers = allocator.allocate([a, b])
    assert answers[a.owner] == {"prefix": "172.1.0.9/24", "gateway": "172.1.0.1"}
    assert "already claimed" in str(answers[b.owner])


def test_a_loopback_claim_from_an_aggregate_is_a_host_prefix() -> None:
    space = read_space([network("lo", [{"prefix": "192.168.0.0/24"}])])
    allocator = Allocator(space, [], [])
    lo = net_claim("a", "lo", "lo", "x", prefix_kind="loopback", match=())
    assert allocator.allocate([lo])[lo.owner] == {"prefix": "192.168.0.1/32"}


def test_ipv6_addresses() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    match = (("nephio.org/address-family", "ipv6"), ("nephio.org/cluster-name", "edge02"))
    v6 = net_claim("a", "n4-ipv6", "vpc-internal", "edge02", match=match)
    # 172:1::/32, cluster 2: 172:1:0:1::/64, gateway its first address
    assert allocator.allocate([v6])[v6.owner] == {
        "prefix": "172:1:0:1::2/64",
        "gateway": "172:1:0:1::1",
    }


def test_a_full_prefix_is_an_error_naming_it_never_a_duplicate() -> None:
    # no inventory: the routing table's prefix is an aggregate, hosts .1 to .6
    allocator = Allocator(read_space([network("tiny", [{"prefix": "192.168.0.0/29"}])]), [], [])
    claims = [net_claim(f"p{i}", "c", "tiny", "x", match=()) for i in range(7)]
    answers = allocator.allocate(claims)
    given = [str(a["prefix"]) for a in answers.values() if isinstance(a, dict)]
    assert sorted(given) == [f"192.168.0.{i}/29" for i in range(1, 7)]
    errors = [a for a in answers.values() if isinstance(a, str)]
    assert len(errors) == 1
    assert "192.168.0.0/29 (Network tiny tiny 192.168.0.0/29) is full" in errors[0]


def test_a_per_cluster_prefix_that_does_not_fit_is_an_error() -> None:
    with pytest.raises(KrmError, match="does not fit"):
        read_space(
            [network("tiny", [{"prefix": "192.168.0.0/29"}]), KubeObject.from_dict(INVENTORY)]
        )


def test_vlans_are_shared_per_claim_name_sent_and_numbered_per_cluster() -> None:
    allocator = Allocator(read_space([]), [], [])

    def vlan(package: str, name: str, index: str, sent: str) -> Claim:
        owner = f"{package}/{name}"
        return Claim("vlan", owner, package, name, vlan_index=index, vlan_name=sent)

    claims = [
        vlan("edge01/upf", "upf-n3", "edge01", "vpc-ran-edge01-bd"),
        vlan("edge01/upf", "upf-n4", "edge01", "vpc-internal-edge01-bd"),
        vlan("edge01/smf", "smf-n4", "edge01", "vpc-internal-edge01-bd"),
        vlan("edge02/upf", "upf-n3", "edge02", "vpc-ran-edge02-bd"),
    ]
    answers = allocator.allocate(claims)
    ids = [answers[c.owner] for c in claims]
    # sorted by owner: edge01/smf first
    assert ids == [{"vlanID": 3}, {"vlanID": 2}, {"vlanID": 2}, {"vlanID": 2}]


def test_the_ledger_round_trips_and_gives_the_same_answers() -> None:
    space = read_space(catalog_space())
    claims = [net_claim(f"p{i}", "n3", "vpc-ran", "edge01") for i in range(4)]
    first = Allocator(space, [], [])
    answers = first.allocate(claims)
    text = format_ledger(*first.entries())
    ip, vlan = read_ledger(read_documents(text, "ledger.yaml"), "ledger.yaml")
    assert sorted(ip) == sorted(first.entries()[0])
    again = Allocator(space, ip, vlan)
    assert again.allocate(list(reversed(claims))) == answers
    assert not again.changed
    assert yaml.safe_load(text)["kind"] == "IpamLedger"
    assert len([line for line in text.splitlines() if line.startswith("- {owner")]) == 4


def test_a_hand_edit_giving_one_address_twice_is_an_error_naming_both_owners() -> None:
    entries = [
        IpEntry("a/x", "vpc-ran", "network", "172.3.0.2/24", "172.3.0.1"),
        IpEntry("b/y", "vpc-ran", "network", "172.3.0.2/24", "172.3.0.1"),
    ]
    with pytest.raises(LedgerConflict, match="b/y overlaps what a/x holds"):
        Allocator(read_space(catalog_space()), entries, [])
    with pytest.raises(LedgerConflict, match="VLAN 5 of index e"):
        Allocator(read_space([]), [], [VlanEntry("e", "a", 5), VlanEntry("e", "b", 5)])


def test_a_deleted_claim_releases_its_address() -> None:
    space = read_space(catalog_space())
    a = net_claim("a", "n3", "vpc-ran", "edge01")
    b = net_claim("b", "n3", "vpc-ran", "edge01")
    first = Allocator(space, [], [])
    first.allocate([a, b])
    ip, vlan = first.entries()
    second = Allocator(space, ip, vlan)
    second.allocate([b])
    assert [e.owner for e in second.entries()[0]] == ["b/n3"]
    c = net_claim("c", "n3", "vpc-ran", "edge01")
    third = Allocator(space, *second.entries())
    assert third.allocate([b, c])[c.owner] == {"prefix": "172.2.0.2/24", "gateway": "172.2.0.1"}


# -- mock mode: Nephio's pipeline tests ------------------------------------------------------

# nephio-project/nephio a29054b krm-functions/pipeline-tests/testdata/real_deployment/
# _expected.yaml: the claims' status after ipam-fn and vlan-fn with the mock backends.
PIPELINE_TEST_STATUS = {
    ("IPClaim", "upf-cluster01-internet-pool1"): {"prefix": "172.0.0.0/8"},
    ("IPClaim", "upf-cluster01-n3-ipv4"): {"prefix": "10.0.0.10/24", "gateway": "10.0.0.1"},
    ("IPClaim", "upf-cluster01-n4-ipv4"): {"prefix": "10.0.0.10/24", "gateway": "10.0.0.1"},
    ("IPClaim", "upf-cluster01-n6-ipv4"): {"prefix": "10.0.0.10/24", "gateway": "10.0.0.1"},
    ("VLANClaim", "upf-cluster01-n3"): {"vlanID": 10},
    ("VLANClaim", "upf-cluster01-n4"): {"vlanID": 10},
    ("VLANClaim", "upf-cluster01-n6"): {"vlanID": 10},
}


def _claim(kind: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    api = (
        "ipam.resource.nephio.org/v1alpha1"
        if kind == "IPClaim"
        else "vlan.resource.nephio.org/v1alpha1"
    )
    owner = "req.nephio.org/v1alpha1.Interface." + name.split("-")[2]
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": name, "annotations": {"specializer.nephio.org/owner": owner}},
        "spec": spec,
    }


def test_mock_mode_gives_nephios_pipeline_test_values_exactly(tmp_path: Path) -> None:
    labels = {"nephio.org/address-family": "ipv4", "nephio.org/cluster-name": "cluster01"}
    items = []
    for kind, name in PIPELINE_TEST_STATUS:
        if kind == "VLANClaim":
            spec: dict[str, Any] = {"vlanIndex": {"name": "cluster01"}}
        elif "pool" in name:
            spec = {"kind": "pool", "selector": {"matchLabels": labels}, "createPrefix": True,
                    "networkInstance": {"name": "vpc-internet"}, "prefixLength": 16}  # fmt: skip
        else:
            spec = {"kind": "network", "selector": {"matchLabels": labels},
                    "networkInstance": {"name": "vpc-ran"}}  # fmt: skip
        items.append(_claim(kind, name, spec))
    kptfile = {"apiVersion": "kpt.dev/v1", "kind": "Kptfile", "metadata": {"name": "upf"}}
    for number, item in enumerate([kptfile, *items]):
        (tmp_path / f"{number}.yaml").write_text(yaml.safe_dump(item))
    (tmp_path / "Kptfile").write_text(yaml.safe_dump(kptfile))
    (tmp_path / "0.yaml").unlink()
    config = tmp_path.parent / "mock-config.yaml"
    config.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {mode: mock}\n")
    done = subprocess.run(
        [sys.executable, "-m", "krmfn.ipam_allocator", "--fn-config", str(config), str(tmp_path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(done.stdout) if d}
    for key, status in PIPELINE_TEST_STATUS.items():
        assert out[key]["status"] == status
    conditions = out[("Kptfile", "upf")]["status"]["conditions"]
    assert all(c["status"] == "True" and c["message"] == "update done" for c in conditions)
    assert len(conditions) == len(PIPELINE_TEST_STATUS)


@pytest.mark.parametrize(
    ("spec", "status"),
    [
        ({"kind": "network", "addressFamily": "ipv6"}, {"prefix": "1000::2/64", "gateway": "1000::1"}),
        ({"kind": "loopback"}, {"prefix": "172.0.0.10/32"}),
        ({"kind": "loopback", "addressFamily": "ipv6"}, {"prefix": "2000::2/128"}),
        ({"kind": "pool", "addressFamily": "ipv6"}, {"prefix": "3000::/32"}),
        # the selector label is not read by the mocks: IPv4 values
        ({"kind": "network", "selector": {"matchLabels": {"nephio.org/address-family": "ipv6"}}},
         {"prefix": "10.0.0.10/24", "gateway": "10.0.0.1"}),
        ({"kind": "aggregate"}, "unexpected prefix kind: got: aggregate"),
    ],
)  # fmt: skip
def test_mock_answers(spec: dict[str, Any], status: Any) -> None:
    obj = KubeObject.from_dict(_claim("IPClaim", "upf-c-n3", spec))
    assert mock_answer(obj) == status


def test_allocations_are_addresses() -> None:
    allocator = Allocator(read_space(catalog_space()), [], [])
    claims = [
        net_claim(f"p{i}", "n6", "vpc-internet", c)
        for i in range(3)
        for c in ("edge01", "regional")
    ]
    for answer in allocator.allocate(claims).values():
        assert isinstance(answer, dict)
        ipaddress.ip_interface(str(answer["prefix"]))


def test_a_ledger_neither_in_the_package_nor_findable_is_an_error_not_an_empty_ledger() -> None:
    from krmfn.registry import BY_NAME
    from krmlib.testing import run_text

    text = (
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: upf\n"
        "- apiVersion: vlan.resource.nephio.org/v1alpha1\n  kind: VLANClaim\n"
        "  metadata:\n    name: upf-n3\n  spec:\n    vlanIndex:\n      name: edge01\n"
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n"
        "  data:\n    ledger: ../network/ledger.yaml\n"
    )
    output, code = run_text(*BY_NAME["ipam-allocator"].load(), text)
    assert code == 1
    assert "the ledger ../network/ledger.yaml is not a file of the package" in output
    assert "vlanID" not in output


def test_a_vlan_range_claim_is_refused_naming_the_field() -> None:
    from krmfn.ipam_allocator.claims import read_claim

    obj = KubeObject.from_dict(
        {
            "apiVersion": "vlan.resource.nephio.org/v1alpha1",
            "kind": "VLANClaim",
            "metadata": {"name": "r"},
            "spec": {"vlanIndex": {"name": "edge01"}, "range": "100:110"},
        }
    )
    with pytest.raises(KrmError, match="VLAN range claims are not supported") as info:
        read_claim(obj, "p")
    assert info.value.field == "spec.range"
