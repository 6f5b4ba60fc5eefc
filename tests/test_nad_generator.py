"""nad-generator: its deliberate differences from nad-fn, its agreement with interface-expander, and
the CNI configuration text for the types no golden case covers.

The golden cases (testdata/nad-generator, tests/test_golden.py) hold the whole outputs; nad-fn's own
cases are compared with nad-fn's expected output by tests/test_nad_generator_upstream.py. Here:

- what nad-fn does where we differ on purpose, read in its code (nephio-project/nephio a29054b,
  ``krm-functions/lib/condkptsdk``), next to what nad-generator does;
- interface-expander and nad-generator in one pipeline, through real kpt, when an Interface of a
  specialized package is removed or changed: the NAD condition, the NAD, and what a rerun does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from krmfn.nad_generator import Config, process
from krmfn.nad_generator.cni import Address, CniError, Route, cni_config, go_string
from krmlib import Condition, KubeObject, ResourceList, get_conditions
from krmlib.testing import kpt_source, run_kpt, run_resource_list

from .kpt_packages import assert_render_changes_nothing, kptfile_conditions, render, rendered_copy

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "testdata/nad-generator"
EXAMPLE = ROOT / "examples/free5gc-upf"
NAD = "k8s.cni.cncf.io/v1.NetworkAttachmentDefinition"

# What nad-fn does (code-derived, condkptsdk at a29054b), where nad-generator differs.
# A NAD condition whose Interface is gone: stage 2 finds no Interface among the instance's
# watches and SetConditionRefFailed writes updateResourceFn's error; the NAD object stays.
NAD_FN_INTERFACE_GONE = ("False", "expected Interface object to generate the nad")
# An invalid WorkloadCluster: callGlobalWatches fails, failForConditions sets every NAD object's
# condition to the error, updateResources deletes every NAD object (For, no Owns).
NAD_FN_INVALID_CLUSTER = "spec invalid: mandatory field ClusterName is missing from WorkloadCluster"


def run_case(name: str) -> ResourceList:
    case = CASES / name
    config = case / "config.yaml"
    return run_resource_list(
        process, Config, kpt_source(case / "package", config if config.exists() else None)
    )


def nad_conditions(rl: ResourceList) -> dict[str, Condition]:
    kptfile = rl.package().kptfile
    assert kptfile is not None
    return {c.type: c for c in get_conditions(kptfile) if c.type.startswith(NAD)}


def test_a_removed_interfaces_nad_is_removed_where_nad_fn_keeps_it() -> None:
    before = run_resource_list(
        lambda rl, config: None, None, kpt_source(CASES / "interface-removed/package")
    )
    marked = nad_conditions(before)[f"{NAD}.upf-cluster01-n3"]
    assert (marked.status, marked.message) == ("False", "delete resource")
    assert marked.status == NAD_FN_INTERFACE_GONE[0]  # nad-fn: False too, with its error

    rl = run_case("interface-removed")
    names = {o.name for o in rl.items.where(kind="NetworkAttachmentDefinition")}
    assert names == {"upf-cluster01-n4", "upf-cluster01-n6"}  # n3 (and the orphan n9) gone
    assert f"{NAD}.upf-cluster01-n3" not in nad_conditions(rl)
    kptfile = rl.package().kptfile
    assert kptfile is not None
    kept = {c.type: c for c in get_conditions(kptfile)}
    assert kept["req.nephio.org/v1alpha1.Interface.n3"].message == "update for condition"
    assert kept["ipam.resource.nephio.org/v1alpha1.IPClaim.n3-ipv4"].message == "delete resource"
    assert rl.items.find(None, "IPClaim", "n3-ipv4") is not None  # the claims stay marked
    assert not rl.results.has_errors


def test_without_a_delete_mark_or_a_nad_it_is_nad_fns_error() -> None:
    """A NAD condition naming a gone Interface, with no NAD and no mark: as nad-fn."""
    rl = run_case("nephio-fn-missing-interface")
    condition = nad_conditions(rl)[f"{NAD}.n4"]
    assert (condition.status, condition.message) == NAD_FN_INTERFACE_GONE


def test_an_invalid_workload_cluster_keeps_the_nads_where_nad_fn_removes_them() -> None:
    rl = run_case("invalid-workload-cluster")
    names = {o.name for o in rl.items.where(kind="NetworkAttachmentDefinition")}
    assert names == {"upf-cluster01-n3", "upf-cluster01-n4", "upf-cluster01-n6"}
    for condition in nad_conditions(rl).values():  # the conditions as nad-fn sets them
        assert (condition.status, condition.message) == ("False", NAD_FN_INVALID_CLUSTER)
        assert condition.reason.startswith("req.nephio.org/v1alpha1.Interface.")
    assert any("the NADs already in the package are kept" in r.message for r in rl.results)


def test_an_owned_nad_is_edited_in_place_and_a_users_nad_is_not_overwritten() -> None:
    rl = run_case("nad-updated-in-place")
    n3 = rl.items.find(None, "NetworkAttachmentDefinition", "upf-cluster01-n3")
    assert n3 is not None
    assert n3.labels["team"] == "ran"
    assert "written by an earlier run" in n3.to_yaml()
    assert '"master":"eth1.100"' in str(n3.get("spec.config"))
    n4 = rl.items.find(None, "NetworkAttachmentDefinition", "upf-cluster01-n4")
    assert n4 is not None and "eth2" in str(n4.get("spec.config"))
    condition = nad_conditions(rl)[f"{NAD}.n4"]
    assert condition.status == "False" and "is not owned by Interface n4" in condition.message


def test_an_empty_resource_list_is_an_info_as_in_nad_fn() -> None:
    rl = run_resource_list(
        process, Config, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n"
    )
    assert [r.message for r in rl.results] == ["no resources present in the resourcelist"]


# --- the CNI configuration text (nad-fn's lib/nad/v1/nad.go), for what no golden case shows.


def test_vlan_and_bridge_types_as_nad_fn_writes_them() -> None:
    address = [Address("10.0.0.10/24", "10.0.0.1")]
    assert cni_config("vlan", "eth1", 100, address, []) == (
        '{"cniVersion":"0.3.1","plugins":[{"type":"vlan","capabilities":{},"master":"eth1",'
        '"ipam":{"type":"static","addresses":[{"address":"10.0.0.10/24","gateway":"10.0.0.1"}]}}]}'
    )
    assert cni_config("bridge", "eth1", 100, address, [Route("10.0.0.0/8", "10.0.0.1")]) == (
        '{"cniVersion":"0.3.1","plugins":[{"type":"bridge","capabilities":{},"ipam":{"type":'
        '"static","addresses":[{"address":"10.0.0.10/24","gateway":"10.0.0.1"}],"routes":[{"dst":'
        '"10.0.0.0/8","gw":"10.0.0.1"}]},"bridge":"cni100","name":"cni100"}]}'
    )
    with pytest.raises(CniError, match="unknown vlanID"):
        cni_config("bridge", "eth1", 0, address, [])


def test_strings_are_escaped_as_go_escapes_them() -> None:
    assert go_string("eth1") == '"eth1"'
    assert go_string('a<b>&"c"\\') == '"a\\u003cb\\u003e\\u0026\\"c\\"\\\\"'
    assert go_string("é\u2028") == '"é\\u2028"'
    text = cni_config("macvlan", "eth<1>", 0, [Address("", "")], [])
    assert json.loads(text)["plugins"][0]["master"] == "eth<1>"
    assert '"addresses":[{}]' in text


# --- interface-expander and nad-generator in one pipeline (real kpt): Interfaces removed, changed.


def specialize(pkg: Path) -> None:
    done = run_kpt(["fn", "eval", str(pkg), "--exec", str(EXAMPLE / "specializer.py")])
    assert done.returncode == 0, done.stderr


@pytest.fixture
def settled(tmp_path: Path) -> Path:
    """The free5gc UPF example, specialized: NADs written, every condition True."""
    pkg = tmp_path / "free5gc-upf"
    rendered_copy(EXAMPLE, pkg, ignore=("*.py", "*.sh", "*.md"))
    specialize(pkg)
    render(pkg)
    assert all(c.status == "True" for c in kptfile_conditions(pkg).values())
    return pkg


@pytest.mark.kpt
def test_a_removed_interface_takes_its_nad_with_it_and_a_rerun_changes_nothing(
    settled: Path,
) -> None:
    (settled / "interface-n4.yaml").unlink()
    render(settled)
    assert not (settled / "networkattachmentdefinition_upf-edge01-n4.yaml").exists()
    found = kptfile_conditions(settled)
    assert f"{NAD}.upf-edge01-n4" not in found
    for name in ("n3", "n6"):
        assert found[f"{NAD}.upf-edge01-{name}"].status == "True"
        assert (settled / f"networkattachmentdefinition_upf-edge01-{name}.yaml").exists()
    assert_render_changes_nothing(settled)


@pytest.mark.kpt
def test_a_changed_interface_gets_its_nad_rewritten(settled: Path) -> None:
    path = settled / "interface-n3.yaml"
    path.write_text(path.read_text().replace("cniType: macvlan", "cniType: ipvlan"))
    render(settled)
    nad = KubeObject.from_yaml(
        (settled / "networkattachmentdefinition_upf-edge01-n3.yaml").read_text()
    )
    plugins = json.loads(str(nad.get("spec.config")))["plugins"]
    assert [(p["type"], p.get("mode")) for p in plugins] == [("ipvlan", "l2")]
    assert kptfile_conditions(settled)[f"{NAD}.upf-edge01-n3"].status == "True"
    assert_render_changes_nothing(settled)


# --- every NAD written is one Multus reads: the vendored CRD's schema, and a CNI configuration.


def test_every_nad_written_is_valid_for_the_crd_and_multus() -> None:
    from tests.test_crd_schemas import validator

    check = validator("k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition")
    assert check is not None
    assert list(check.iter_errors({"apiVersion": "k8s.cni.cncf.io/v1", "spec": {}}))
    seen = 0
    for case in sorted(CASES.iterdir()):
        if not (case / "package").is_dir() or case.name.endswith("missing-kptfile"):
            continue
        for nad in run_case(case.name).items.where(kind="NetworkAttachmentDefinition"):
            plain = nad.to_dict()
            assert not list(check.iter_errors(plain)), (case.name, nad.name)
            text = plain["spec"]["config"]
            if text:  # "" for VLAN claims only, as nad-fn writes it
                config = json.loads(text)
                assert config["cniVersion"] == "0.3.1"
                assert all(
                    isinstance(p.get("type"), str) and p["type"] for p in config.get("plugins", [])
                )
            seen += 1
    assert seen > 50
