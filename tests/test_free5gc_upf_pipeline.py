"""The free5gc UPF package through Nephio's whole pipeline (examples/free5gc-upf), with real kpt.

nfdeploy, interface-expander, dnn-generator, nad-generator, dnn-generator, interface-expander,
nfdeploy, as the catalog's Kptfile orders Nephio's functions: rendered with claims that have no
status (the readiness gate ``"False"``), claims filled as Nephio's IPAM/VLAN specializers fill them
(the example's specializer.py), rendered again (the DataNetwork's pools, the NFDeployment's spec,
the gate ``"True"``), rendered once more (nothing changes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from krmlib import KubeObject, get_readiness_gates
from krmlib.testing import run_kpt

from .kpt_packages import assert_render_changes_nothing, kptfile_conditions, render, rendered_copy

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples/free5gc-upf"
GATE = "nephio.org.Specializer.specialize"
NF = "workload.nephio.org/v1alpha1.NFDeployment.upf-edge01"

pytestmark = pytest.mark.kpt


def test_the_readiness_gate_becomes_true_through_porchs_stages(tmp_path: Path) -> None:
    pkg = tmp_path / "free5gc-upf"
    rendered_copy(EXAMPLE, pkg, ignore=("*.py", "*.sh", "*.md"))
    kptfile = KubeObject.from_yaml((pkg / "Kptfile").read_text())
    assert get_readiness_gates(kptfile) == [GATE]
    found = kptfile_conditions(pkg)
    assert (found[GATE].status, found[GATE].reason, found[GATE].message) == (
        "False",
        "Specialize",
        "not ready",
    )
    assert (found["req.nephio.org/v1alpha1.Capacity.dataplane"].status) == "True"
    for pool in ("pool1", "pool2", "pool3"):
        claim = found[f"ipam.resource.nephio.org/v1alpha1.IPClaim.upf-edge01-internet-{pool}"]
        assert (claim.status, claim.reason) == (
            "False",
            "req.nephio.org/v1alpha1.DataNetwork.internet",
        )
        assert (pkg / f"ipclaim_upf-edge01-internet-{pool}.yaml").exists()
    nf = KubeObject.from_yaml((pkg / "upfdeployment.yaml").read_text())
    assert nf.get("spec") == {"provider": "upf.free5gc.io"}

    done = run_kpt(["fn", "eval", str(pkg), "--exec", str(EXAMPLE / "specializer.py")])
    assert done.returncode == 0, done.stderr
    render(pkg)
    found = kptfile_conditions(pkg)
    assert all(c.status == "True" for c in found.values()), [
        (c.type, c.message) for c in found.values() if c.status != "True"
    ]
    assert (found[GATE].reason, found[NF].message) == ("Ready", "update done")
    dnn = KubeObject.from_yaml((pkg / "dnn.yaml").read_text())
    assert dnn.get("status.pools") == [
        {"name": p, "ipClaim": {"prefix": "172.0.0.0/8"}} for p in ("pool1", "pool2", "pool3")
    ]
    nf = KubeObject.from_yaml((pkg / "upfdeployment.yaml").read_text())
    address = {"address": "10.0.0.10/24", "gateway": "10.0.0.1"}
    assert nf.get("spec") == {
        "provider": "upf.free5gc.io",
        "networkInstances": [
            {"name": "vpc-internal", "interfaces": ["n4"]},
            {
                "name": "vpc-internet",
                "interfaces": ["n6"],
                "dataNetworks": [{"name": "internet", "pool": [{"prefix": "172.0.0.0/8"}] * 3}],
            },
            {"name": "vpc-ran", "interfaces": ["n3"]},
        ],
        "interfaces": [{"name": n, "ipv4": address, "vlanID": 10} for n in ("n3", "n4", "n6")],
        "capacity": {"maxDownlinkThroughput": "5G", "maxUplinkThroughput": "5G"},
    }

    assert_render_changes_nothing(pkg)
