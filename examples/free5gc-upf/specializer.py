#!/usr/bin/env python3
"""What Nephio's IPAM and VLAN specializers write into a package: an exec KRM function.

In Nephio the generic specializer (nephio-project/nephio controllers/pkg/reconcilers/
generic-specializer) runs ipam-fn and vlan-fn on the package with a client of the resource backend,
writes back the claims and the Kptfile, and Porch renders the pipeline again. This stands in for
it: every IPClaim and VLANClaim without a status gets the values of the backend's mocks that
Nephio's own pipeline tests use (nokia/k8s-ipam pkg/proxy/clientproxy/ipam/ipam_mock.go and
vlan/vlan_mock.go: a network claim 10.0.0.10/24 via 10.0.0.1, IPv6 1000::2/64 via 1000::1, a
pool 172.0.0.0/8 or 3000::/32, every VLAN 10), and its Kptfile condition becomes "True"
"update done" (reason kept), as ipam-fn and vlan-fn set it.

    kpt fn eval PACKAGE --exec ./specializer.py
"""

from __future__ import annotations

import sys

from krmlib import Condition, Conditions, ResourceList, run

IPCLAIM = ("ipam.resource.nephio.org/v1alpha1", "IPClaim")
VLANCLAIM = ("vlan.resource.nephio.org/v1alpha1", "VLANClaim")


def allocate(kind: str, spec: dict[str, object]) -> dict[str, object]:
    """The mock backend's answer for a claim."""
    if kind == "VLANClaim":
        return {"vlanID": 10}
    selector = spec.get("selector")
    labels = selector.get("matchLabels", {}) if isinstance(selector, dict) else {}
    ipv6 = isinstance(labels, dict) and labels.get("nephio.org/address-family") == "ipv6"
    if spec.get("kind") == "pool":
        return {"prefix": "3000::/32" if ipv6 else "172.0.0.0/8"}
    if ipv6:
        return {"prefix": "1000::2/64", "gateway": "1000::1"}
    return {"prefix": "10.0.0.10/24", "gateway": "10.0.0.1"}


def process(rl: ResourceList, config: None) -> None:
    conditions = Conditions(rl.package().kptfile)
    filled = 0
    for obj in rl.items:
        if (obj.api_version, obj.kind) not in (IPCLAIM, VLANCLAIM) or obj.get("status"):
            continue
        spec = obj.get("spec")
        obj.set("status", allocate(obj.kind, spec if isinstance(spec, dict) else {}))
        type_ = f"{obj.api_version}.{obj.kind}.{obj.name}"
        before = conditions.get(type_)
        reason = before.reason if before is not None else ""
        conditions.set(Condition(type_, "True", reason, "update done"))
        filled += 1
    conditions.flush()
    rl.results.info(f"{filled} claims filled by the mock IPAM and VLAN backends")


if __name__ == "__main__":
    sys.exit(run(process, None, name="specializer", help_text=lambda: __doc__ or ""))
