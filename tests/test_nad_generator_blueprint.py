"""The free5gc UPF blueprint specialized by krmfn alone (examples/free5gc-upf), with real kpt.

Nephio's catalog blueprint (catalog 5e1a968), cloned and injected as Porch does, goes through the
stages of Porch and Nephio's specializers: rendered with claims that have no status (the NADs
wait), claims filled as Nephio's IPAM/VLAN specializers fill them (the example's specializer.py),
rendered again (the NADs appear, every Kptfile condition is True), rendered once more (nothing
changes). Every NAD is valid against the vendored NetworkAttachmentDefinition schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from krmlib import KubeObject
from krmlib.testing import run_kpt

from .kpt_packages import assert_render_changes_nothing, kptfile_conditions, render, rendered_copy

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples/free5gc-upf"
INTERFACES = ("n3", "n4", "n6")
NAD = "k8s.cni.cncf.io/v1.NetworkAttachmentDefinition"

pytestmark = pytest.mark.kpt


def test_the_upf_package_is_specialized_by_krmfn_alone(tmp_path: Path) -> None:
    pkg = tmp_path / "free5gc-upf"
    rendered_copy(
        EXAMPLE, pkg, ignore=("*.py", "*.sh", "*.md")
    )  # the claims have no status yet: the NADs wait
    found = kptfile_conditions(pkg)
    for name in INTERFACES:
        nad = found[f"{NAD}.upf-edge01-{name}"]
        assert (nad.status, nad.message, nad.reason) == (
            "False",
            "create initial resource",
            f"req.nephio.org/v1alpha1.Interface.{name}",
        )
    assert not list(pkg.glob("networkattachmentdefinition_*.yaml"))

    done = run_kpt(["fn", "eval", str(pkg), "--exec", str(EXAMPLE / "specializer.py")])
    assert done.returncode == 0, done.stderr
    render(pkg)
    found = kptfile_conditions(pkg)
    assert found and all(c.status == "True" for c in found.values()), [
        (c.type, c.message) for c in found.values() if c.status != "True"
    ]
    for name in INTERFACES:
        assert found[f"{NAD}.upf-edge01-{name}"].message == "update done"
    nads = sorted(pkg.glob("networkattachmentdefinition_*.yaml"))
    assert [p.name for p in nads] == [
        f"networkattachmentdefinition_upf-edge01-{n}.yaml" for n in INTERFACES
    ]
    deployment = KubeObject.from_yaml((pkg / "upfdeployment.yaml").read_text())
    for name, path in zip(INTERFACES, nads, strict=True):
        obj = KubeObject.from_yaml(path.read_text())
        # the free5gc operator's CreateNetworkAttachmentDefinitionName, in the Deployment's namespace
        assert (obj.name, obj.namespace) == (f"{deployment.name}-{name}", deployment.namespace)
        assert not obj.is_local_config
        config = json.loads(str(obj.get("spec.config")))
        macvlan, tuning = config["plugins"]
        assert (macvlan["type"], macvlan["master"], macvlan["mode"]) == (
            "macvlan",
            "eth1.10",
            "bridge",
        )
        assert macvlan["ipam"]["addresses"] == [{"address": "10.0.0.10/24", "gateway": "10.0.0.1"}]
        assert tuning == {"type": "tuning", "capabilities": {"mac": True}, "ipam": {}}
    assert not (pkg / "networkattachmentdefinition_upf-edge01-sbi.yaml").exists()

    assert_render_changes_nothing(pkg)
