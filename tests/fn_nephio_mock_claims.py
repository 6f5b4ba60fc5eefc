"""Nephio's IPAM and VLAN specializers with their mock backends, as a test function.

What ``ipam-fn`` and ``vlan-fn`` do in nephio-project/nephio ``krm-functions/pipeline-tests``
(``ipam_fn.New(ipam.NewMock())``, ``vlan_fn.New(vlan.NewMock())``; nokia/k8s-ipam
``pkg/proxy/clientproxy/{ipam,vlan}/*_mock.go`` at de66a47): condkptsdk with the claim kind as
the for kind and nothing owned, so every claim is answered on every run; the answer depends only on
``spec.kind`` and ``spec.addressFamily`` (IPClaim) and is ``vlanID: 10`` (VLANClaim). The claim's
status is replaced, its owner annotation set to its condition's reason, its condition ``"True"``
``update done``. krmfn's own allocator (``krmfn-ipam-allocator``) replaces this double where it
is installed; the pipeline tests play the IPAM/VLAN step with these values, Nephio's.

Run as a program (``kpt fn eval --exec``): ``fn_nephio_mock_claims.py ip|vlan``.
"""

from __future__ import annotations

import sys
from typing import Any

from krmfn.specializer import SpecializeError, Specializer
from krmlib import KubeObject, ResourceList, run

IPCLAIM = ("ipam.resource.nephio.org/v1alpha1", "IPClaim")
VLANCLAIM = ("vlan.resource.nephio.org/v1alpha1", "VLANClaim")
IP_ANSWERS: dict[tuple[str, str], dict[str, Any]] = {
    ("network", "ipv4"): {"prefix": "10.0.0.10/24", "gateway": "10.0.0.1"},
    ("network", "ipv6"): {"prefix": "1000::2/64", "gateway": "1000::1"},
    ("loopback", "ipv4"): {"prefix": "172.0.0.10/32"},
    ("loopback", "ipv6"): {"prefix": "2000::2/128"},
    ("pool", "ipv4"): {"prefix": "172.0.0.0/8"},
    ("pool", "ipv6"): {"prefix": "3000::/32"},
}


def answer_ip(claim: KubeObject, owned: list[KubeObject]) -> None:
    kind = str(claim.get("spec.kind") or "")
    family = "ipv6" if claim.get("spec.addressFamily") == "ipv6" else "ipv4"
    status = IP_ANSWERS.get((kind, family))
    if status is None:
        raise SpecializeError(f"unexpected prefix kind: got: {kind}", claim, "spec.kind")
    claim.set("status", dict(status))


def answer_vlan(claim: KubeObject, owned: list[KubeObject]) -> None:
    claim.set("status", {"vlanID": 10})


def process(rl: ResourceList, which: str) -> None:
    """One specializer run: ``ip`` (ipam-fn) or ``vlan`` (vlan-fn)."""
    Specializer(
        rl,
        for_kind=IPCLAIM if which == "ip" else VLANCLAIM,
        owns={},
        watches={},
        populate=lambda obj: [],
        update=answer_ip if which == "ip" else answer_vlan,
    ).run()


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "ip"
    sys.exit(run(lambda rl, config: process(rl, which), None, name="mock-claims", argv=[]))
