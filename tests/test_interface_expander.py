"""krmfn-interface-expander: rules the goldens do not show well."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from krmfn.interface_expander import Config, process
from krmfn.interface_expander.naming import child_name, spec_hash
from krmfn.nephio import design_condition_type
from krmlib import Conditions, ResourceList
from krmlib.testing import run_resource_list

PKG = Path(__file__).resolve().parent.parent / "krmfn" / "interface_expander"
SCRIPT = Path(sys.executable).parent / "krmfn-interface-expander"

CONTEXT = """\
- apiVersion: infra.nephio.org/v1alpha1
  kind: ClusterContext
  metadata:
    name: cc
  spec:
    cniConfig:
      cniType: macvlan
      masterInterface: eth1
    siteCode: edge1
"""
KPTFILE = """\
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
"""


def interface(name: str, extra: str = "") -> str:
    return f"""\
- apiVersion: req.nephio.org/v1alpha1
  kind: Interface
  metadata:
    name: {name}
  spec:
    networkInstance:
      name: vpc-a
    cniType: macvlan
{extra}"""


def rl_text(*items: str, config: str = "") -> str:
    text = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(items)
    return text + config


def run(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[ResourceList, int]:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    rl = run_resource_list(process, Config, text)
    return rl, (1 if rl.results.has_errors else 0)


def test_the_readme_config_example_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (PKG / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(apiVersion: krmfn.dev/v1alpha1\n.*?)```", readme, re.S)
    assert block is not None
    config = "functionConfig:\n" + "".join(f"  {line}\n" for line in block.group(1).splitlines())
    rl, code = run(rl_text(KPTFILE, CONTEXT, interface("n3"), config=config), monkeypatch)
    assert code == 0
    assert [o.kind for o in rl.items] == ["Kptfile", "ClusterContext", "Interface", "IPAllocation"]


def test_configmap_selects_the_r1_dialect(monkeypatch: pytest.MonkeyPatch) -> None:
    config = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n"
    config += "  data:\n    dialect: nephio-r1\n"
    rl, code = run(rl_text(KPTFILE, CONTEXT, interface("n3"), config=config), monkeypatch)
    assert code == 0
    child = rl.items[3]
    assert (child.api_version, child.name) == ("ipam.alloc.nephio.org/v1alpha1", "n3")


def test_an_unknown_dialect_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    config = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n"
    config += "  data:\n    dialect: r2\n"
    rl, code = run(rl_text(KPTFILE, CONTEXT, interface("n3"), config=config), monkeypatch)
    assert code == 1
    [result] = list(rl.results)
    assert result.field_path == "data.dialect"


def test_hash_is_stable_and_changes_with_the_spec() -> None:
    spec = {"kind": "network", "prefixLength": 32}
    first = spec_hash("ipam.nephio.org/v1alpha1", "IPAllocation", "n3", spec)
    assert first == spec_hash("ipam.nephio.org/v1alpha1", "IPAllocation", "n3", dict(spec))
    assert re.fullmatch(r"[0-9a-f]{6}", first)
    assert first != spec_hash("ipam.nephio.org/v1alpha1", "IPAllocation", "n3", {**spec, "x": 1})
    assert first != spec_hash("ipam.nephio.org/v1alpha1", "IPAllocation", "n4", spec)


def test_hash_is_sha256_without_openssl() -> None:
    """The digest is SHA-256's, taken without hashlib (OpenSSL's libcrypto: 3.5 MB resident)."""
    code = (
        "import hashlib, json, sys\n"
        "sys.modules.pop('hashlib'); sys.modules.pop('_hashlib', None)\n"
        "from krmfn.interface_expander.naming import spec_hash\n"
        "got = spec_hash('v1', 'K', 'o', {'a': 'é'})\n"
        "assert '_hashlib' not in sys.modules, 'hashlib was imported'\n"
        "canonical = json.dumps({'apiVersion': 'v1', 'kind': 'K', 'owner': 'o', 'spec': {'a': 'é'}},"
        " sort_keys=True, separators=(',', ':'), ensure_ascii=False)\n"
        "assert got == hashlib.sha256(canonical.encode()).hexdigest()[:6], got\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_long_names_are_shortened_to_63_characters() -> None:
    name = child_name("a" * 70 + "-b", "ipv4", "abcdef")
    assert len(name) == 63
    assert name.endswith("-ipv4-abcdef")
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?", name)
    assert child_name("x" * 56 + "-", "ip", "012345") == "x" * 53 + "-ip-012345"


def test_condition_types_follow_the_design_pattern() -> None:
    assert (
        design_condition_type("ipam.nephio.org/v1alpha1", "IPAllocation", "N6.a")
        == "ipam-nephio-org-v1alpha1-ipallocation-n6-a"
    )


def test_a_marked_child_wanted_again_is_revived(monkeypatch: pytest.MonkeyPatch) -> None:
    once, _ = run(rl_text(KPTFILE, CONTEXT, interface("n3")), monkeypatch)
    child = once.items[3]
    child.set("metadata.deletionTimestamp", "2020-01-01T00:00:00Z")
    again, code = run(once.to_yaml(with_results=False), monkeypatch)
    assert code == 0
    revived = again.items[3]
    assert revived.name == child.name
    assert not revived.has("metadata.deletionTimestamp")
    kptfile = again.package().kptfile
    assert kptfile is not None
    condition = Conditions(kptfile).get(f"ipam-nephio-org-v1alpha1-ipallocation-{child.name}")
    assert condition is not None
    assert (condition.status, condition.message.split(";")[0]) == (
        "False",
        f"IPAllocation {child.name} updated",
    )


def test_a_name_taken_by_another_item_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    squatter = """\
- apiVersion: ipam.alloc.nephio.org/v1alpha1
  kind: IPAllocation
  metadata:
    name: n3
  spec: {}
"""
    config = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n"
    config += "  data:\n    dialect: nephio-r1\n"
    rl, code = run(rl_text(KPTFILE, CONTEXT, interface("n3"), squatter, config=config), monkeypatch)
    assert code == 1
    errors = [r for r in rl.results if r.severity == "error"]
    assert len(errors) == 1
    assert "not owned by Interface n3" in errors[0].message
    assert errors[0].resource_ref is not None
    assert errors[0].resource_ref["kind"] == "IPAllocation"
    assert rl.items[3].get("spec") == {}


def test_a_fulfilled_nad_condition_survives_a_loopback_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    once, _ = run(rl_text(KPTFILE, CONTEXT, interface("n3")), monkeypatch)
    kptfile = once.package().kptfile
    assert kptfile is not None
    conditions = kptfile.get("status.conditions")
    nad = next(i for i, c in enumerate(conditions) if c["type"].endswith("-nad-generated"))
    kptfile.set(f"status.conditions[{nad}].status", "True")
    once.items[2].delete("spec.cniType")  # now a loopback: no NAD needed
    again, _ = run(once.to_yaml(with_results=False), monkeypatch)
    kept = again.package().kptfile
    assert kept is not None
    found = Conditions(kept).get("req-nephio-org-v1alpha1-interface-n3-nad-generated")
    assert found is not None
    assert found.status == "True"


WORKLOAD_CLUSTER = """\
- apiVersion: infra.nephio.org/v1alpha1
  kind: WorkloadCluster
  metadata:
    name: wc
  spec:
    clusterName: edge01
    cnis: [macvlan]
    masterInterface: eth1
"""


def configmap(**data: str) -> str:
    text = "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n"
    return text + "  data:\n" + "".join(f"    {k}: {v}\n" for k, v in data.items())


def test_without_a_dialect_a_workload_cluster_means_nephio(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rl, code = run(rl_text(KPTFILE, WORKLOAD_CLUSTER, interface("n3")), monkeypatch)
    assert code == 0
    assert [o.kind for o in rl.items][3:] == ["IPClaim"]
    assert [r.severity.value for r in rl.results] == ["info"]


def test_without_a_dialect_a_specialized_cluster_context_means_2023_05(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owned = "  metadata:\n    name: n3\n    annotations:\n      specializer.nephio.org/owner: x\n"
    itfce = interface("n3").replace("  metadata:\n    name: n3\n", owned)
    rl, code = run(rl_text(KPTFILE, CONTEXT, itfce), monkeypatch)
    assert code == 0
    assert rl.items[3].api_version == "ipam.alloc.nephio.org/v1alpha1"


def test_without_a_dialect_a_plain_cluster_context_means_design(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rl, code = run(rl_text(KPTFILE, CONTEXT, interface("n3")), monkeypatch)
    assert code == 0
    assert rl.items[3].api_version == "ipam.nephio.org/v1alpha1"


def test_a_dialect_the_package_contradicts_is_used_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = rl_text(KPTFILE, WORKLOAD_CLUSTER, interface("n3"), config=configmap(dialect="design"))
    rl, code = run(text, monkeypatch)
    assert code == 0
    warning = next(r for r in rl.results if r.severity.value == "warning")
    assert "looks like dialect nephio" in warning.message
    assert "WorkloadCluster (wc)" in warning.message
    assert warning.field_path == "data.dialect"
    assert list(rl.results)[-1].message.startswith("Interface n3 is not expanded: the package")


def test_nephio_r1_is_a_deprecated_name_of_nephio_2023_05(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = rl_text(KPTFILE, CONTEXT, interface("n3"), config=configmap(dialect="nephio-r1"))
    rl, code = run(text, monkeypatch)
    assert code == 0
    [warning] = [r for r in rl.results if r.severity.value == "warning"]
    assert "dialect nephio-r1 is deprecated" in warning.message
    assert "write dialect: nephio-2023-05" in warning.message
    assert rl.items[3].api_version == "ipam.alloc.nephio.org/v1alpha1"


def test_a_package_without_interfaces_says_there_is_nothing_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rl, code = run(rl_text(KPTFILE, WORKLOAD_CLUSTER), monkeypatch)
    assert code == 0
    [result] = list(rl.results)
    assert result.message == (
        "no req.nephio.org/v1alpha1 Interface in the package: nothing to expand (dialect nephio)"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("clusterName: example\n    cnis: [macvlan]\n    masterInterface: eth1", "ClusterName"),
        ("clusterName: edge01\n    masterInterface: eth1", "CNIConfig"),
        ("clusterName: edge01\n    cnis: [macvlan]", "MasterInterface"),
    ],
)
def test_an_unusable_workload_cluster_is_a_condition_on_every_interface(
    spec: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cluster = WORKLOAD_CLUSTER.split("  spec:\n", 1)[0] + "  spec:\n    " + spec + "\n"
    rl, code = run(rl_text(KPTFILE, cluster, interface("n3"), interface("n4")), monkeypatch)
    assert code == 0
    assert [o.kind for o in rl.items] == ["Kptfile", "WorkloadCluster", "Interface", "Interface"]
    kptfile = rl.package().kptfile
    assert kptfile is not None
    for name in ("n3", "n4"):
        condition = Conditions(kptfile).get(f"req.nephio.org/v1alpha1.Interface.{name}")
        assert condition is not None
        assert condition.status == "False"
        assert condition.message == f"spec invalid: mandatory field {message} is missing from " + (
            "WorkloadCluster" if message == "ClusterName" else "ClusterContext"
        )
    [warning] = list(rl.results)
    assert warning.severity.value == "warning"
    assert warning.resource_ref is not None and warning.resource_ref["kind"] == "WorkloadCluster"


def test_the_owner_annotation_note_names_five_interfaces_and_counts_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # seven Interfaces without uid (one with two children, counted once); one with a uid
    dual = "    ipFamilyPolicy: dual-stack\n    attachmentType: vlan\n"
    uid = interface("with-uid").replace("    name: with-uid\n", "    name: with-uid\n    uid: u1\n")
    names = [f"n{i}" for i in range(7)]
    items = [interface(names[0], dual), uid, *(interface(n) for n in names[1:])]
    rl, code = run(rl_text(KPTFILE, CONTEXT, *items), monkeypatch)
    assert code == 0
    notes = [r.message for r in rl.results if "record their owner" in r.message]
    assert notes == [
        "the children of Interface n0, n1, n2, n3, n4 and 2 more record their owner in the "
        "annotation krmfn.dev/owner, not in an ownerReference: an API "
        "server rejects an ownerReference without uid, and the Interface has no metadata.uid"
    ]
