"""Porch upgrades of settled packages, as Nephio's interface-fn handles them (`nephio` dialect).

Inputs: testdata/interface-expander-upgrades (nephio-project/catalog revisions named there).
Rules: nephio-project/nephio a29054b, krm-functions/lib/condkptsdk. ``inventory_diff.go``
``diff``: an owned object whose spec differs from the desired one goes to ``updateObjs``, an
Interface that is gone puts its existing children in ``deleteObjs`` (the NAD too: interface-fn
owns it as a ``ChildRemoteCondition``) and sets ``deleteForCondition``;
``sdk_stage1_update_children.go`` ``updateChildren``: on the ready path ``updateObjs`` are
upserted as the desired object (``sdk_updates.go`` ``upsertChildObject`` →
``setObjectInResourceList``: the claim is replaced, its status with it), ``deleteObjs`` get the
``specializer.nephio.org/delete`` annotation and a "False" ``delete resource`` condition
(``deleteChildObject``), and ``deleteForCondition`` is acted on only on the not-ready path, so a
gone Interface's own condition stays.

Each test settles the old revision with real kpt (krmfn in interface-fn's place; claims, NADs and
their conditions fulfilled as ipam-fn, vlan-fn and nad-fn would), applies the new revision as
Porch's upgrade merge does, renders again, checks the result, and renders once more (no change).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from krmlib import KubeObject, get_conditions
from krmlib.testing import read_tree

from .kpt_packages import assert_render_changes_nothing, kptfile_conditions, render

DATA = Path(__file__).resolve().parent.parent / "testdata" / "interface-expander-upgrades"
KPTFILE = """\
apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: {name}
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
  - exec: krmfn-interface-expander
"""
# What Porch injects in place of the catalog's placeholder WorkloadCluster.
WORKLOAD_CLUSTER = """\
apiVersion: infra.nephio.org/v1alpha1
kind: WorkloadCluster
metadata:
  name: workload-cluster
  annotations:
    config.kubernetes.io/local-config: "true"
    kpt.dev/config-injection: required
spec:
  clusterName: edge01
  cnis: [macvlan, ipvlan, sriov]
  masterInterface: eth1
"""
DELETE = "specializer.nephio.org/delete"
OWNER = "specializer.nephio.org/owner"
INTERFACE = "req.nephio.org/v1alpha1.Interface."
NAD = "k8s.cni.cncf.io/v1.NetworkAttachmentDefinition."

pytestmark = pytest.mark.kpt


def load(path: Path) -> KubeObject:
    return KubeObject.from_yaml(path.read_text())


def settle(tmp_path: Path, revision: Path) -> Path:
    """The old revision rendered, fulfilled by the other functions, and rendered again."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(KPTFILE.format(name=revision.parent.name))
    (pkg / "workload-cluster.yaml").write_text(WORKLOAD_CLUSTER)
    for source in sorted(revision.glob("*.yaml")):
        shutil.copy(source, pkg / source.name)
    render(pkg)
    for number, path in enumerate(sorted(pkg.glob("ipclaim_*.yaml")), start=10):
        claim = load(path)
        claim.set("status", {"prefix": f"10.0.{number}.10/24", "gateway": f"10.0.{number}.1"})
        path.write_text(claim.to_yaml())
    for path in sorted(pkg.glob("vlanclaim_*.yaml")):
        claim = load(path)
        claim.set("status", {"vlanID": 10})
        path.write_text(claim.to_yaml())
    kptfile = load(pkg / "Kptfile")
    for index, condition in enumerate(get_conditions(kptfile)):
        if condition.type.startswith(NAD):  # nad-fn's NAD, owned by the Interface
            name = condition.type[len(NAD) :]
            nad = KubeObject.from_dict(
                {
                    "apiVersion": "k8s.cni.cncf.io/v1",
                    "kind": "NetworkAttachmentDefinition",
                    "metadata": {"name": name, "annotations": {OWNER: condition.reason}},
                    "spec": {"config": '{"cniVersion":"0.3.1","plugins":[{"type":"macvlan"}]}'},
                }
            )
            (pkg / f"networkattachmentdefinition_{name}.yaml").write_text(nad.to_yaml())
        if not condition.type.startswith(INTERFACE):
            kptfile.set(f"status.conditions[{index}].status", "True")
    (pkg / "Kptfile").write_text(kptfile.to_yaml())
    render(pkg)
    for type_, condition in kptfile_conditions(pkg).items():
        assert condition.status == "True", (type_, condition)
    return pkg


# (package folder, NF deployment, the Interface left unchanged, the new Interface)
CHANGED = [
    ("oai-cuup", "cuup-example", "f1u", "n3"),
    ("oai-cucp", "cucp-example", "f1c", "n2"),
]


@pytest.mark.parametrize(("case", "nf", "same", "new_itfce"), CHANGED)
def test_a_changed_interface_replaces_its_claim_and_empties_its_status(
    tmp_path: Path, case: str, nf: str, same: str, new_itfce: str
) -> None:
    """OAI CU-UP and CU-CP, catalog 86ddc2b → 4414972: e1 moves from vpc-ran-e1 to vpc-cu-e1;
    n3 (CU-UP) or n2 (CU-CP) is new."""
    pkg = settle(tmp_path, DATA / case / "86ddc2b")
    before = read_tree(pkg)
    new = DATA / case / "4414972"
    # Porch's merge: the upstream's new spec; the local status (the claims' status) stays.
    local = load(pkg / "interface-e1.yaml")
    local.set("spec", load(new / "interface-e1.yaml").get("spec"))
    (pkg / "interface-e1.yaml").write_text(local.to_yaml())
    shutil.copy(new / f"interface-{new_itfce}.yaml", pkg / f"interface-{new_itfce}.yaml")
    unchanged = f"interface-{same}.yaml"
    assert load(new / unchanged).get("spec") == load(pkg / unchanged).get("spec")
    render(pkg)

    e1 = load(pkg / f"ipclaim_{nf}-e1-ipv4.yaml")
    assert e1.get("spec.networkInstance.name") == "vpc-cu-e1"
    assert e1.get("status") == {}  # replaced by the desired claim: IPAM allocates again
    assert DELETE not in e1.annotations
    found = kptfile_conditions(pkg)
    claim = found[f"ipam.resource.nephio.org/v1alpha1.IPClaim.{nf}-e1-ipv4"]
    assert (claim.status, claim.message, claim.reason) == (
        "False",
        "update resource",
        INTERFACE + "e1",
    )
    assert (found[INTERFACE + "e1"].status, found[INTERFACE + "e1"].message) == (
        "False",
        "update for condition",
    )
    # The VLANClaim's spec (vlanIndex: the cluster) did not change: Nephio leaves it alone.
    assert found[f"vlan.resource.nephio.org/v1alpha1.VLANClaim.{nf}-e1"].status == "True"
    vlan = f"vlanclaim_{nf}-e1.yaml"
    assert read_tree(pkg)[vlan] == before[vlan]
    # The other Interface is untouched; the new one is created.
    for name in (f"ipclaim_{nf}-{same}-ipv4.yaml", f"vlanclaim_{nf}-{same}.yaml"):
        assert read_tree(pkg)[name] == before[name]
    assert found[INTERFACE + same].status == "True"
    created = found[f"ipam.resource.nephio.org/v1alpha1.IPClaim.{nf}-{new_itfce}-ipv4"]
    assert (created.status, created.message) == ("False", "create initial resource")

    assert_render_changes_nothing(pkg)


def test_a_removed_interface_marks_its_claims_and_nad_and_keeps_its_condition(
    tmp_path: Path,
) -> None:
    """OAI UE, catalog 42c8399^ → 42c8399: the Interface ue-rfsim is dropped upstream."""
    pkg = settle(tmp_path, DATA / "oai-ue" / "42c8399-parent")
    settled = kptfile_conditions(pkg)[INTERFACE + "ue-rfsim"]
    (pkg / "interface-rfsim.yaml").unlink()  # Porch's merge: the upstream deleted the file
    render(pkg)

    found = kptfile_conditions(pkg)
    for kind, name in (
        ("ipam.resource.nephio.org/v1alpha1.IPClaim", "oai-nr-ue-ue-rfsim-ipv4"),
        ("vlan.resource.nephio.org/v1alpha1.VLANClaim", "oai-nr-ue-ue-rfsim"),
        ("k8s.cni.cncf.io/v1.NetworkAttachmentDefinition", "oai-nr-ue-ue-rfsim"),
    ):
        file = f"{kind.rsplit('.', 1)[1].lower()}_{name}.yaml"
        assert load(pkg / file).annotations.get(DELETE) == "true", file
        condition = found[f"{kind}.{name}"]
        assert (condition.status, condition.message, condition.reason) == (
            "False",
            "delete resource",
            INTERFACE + "ue-rfsim",
        )
    # The Interface's own condition is kept as it was (the ready path does not delete it).
    assert found[INTERFACE + "ue-rfsim"] == settled

    assert_render_changes_nothing(pkg)


def test_an_interface_that_no_longer_needs_a_nad_marks_it(tmp_path: Path) -> None:
    """OAI CU-UP at 86ddc2b with f1u made a loopback (no cniType): interface-fn no longer
    desires its NAD, so the NAD nad-fn made is marked for deletion, its condition "False"
    ``delete resource``."""
    pkg = settle(tmp_path, DATA / "oai-cuup" / "86ddc2b")
    f1u = load(pkg / "interface-f1u.yaml")
    f1u.delete("spec.cniType")
    f1u.delete("spec.attachmentType")
    (pkg / "interface-f1u.yaml").write_text(f1u.to_yaml())
    render(pkg)
    nad = load(pkg / "networkattachmentdefinition_cuup-example-f1u.yaml")
    assert nad.annotations.get(DELETE) == "true"
    condition = kptfile_conditions(pkg)[NAD + "cuup-example-f1u"]
    assert (condition.status, condition.message) == ("False", "delete resource")
    kept = load(pkg / "networkattachmentdefinition_cuup-example-e1.yaml")
    assert DELETE not in kept.annotations
