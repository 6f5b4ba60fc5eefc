"""The functionConfig: ``krmfn.dev/v1alpha1 IpamAllocator`` or a ConfigMap."""

from __future__ import annotations

from typing import ClassVar, Literal

from krmlib import FunctionConfig


class Config(FunctionConfig):
    """``spec`` of ``krmfn.dev/v1alpha1 IpamAllocator``."""

    KIND: ClassVar[str] = "IpamAllocator"
    CONFIGMAP_KEYS: ClassVar[dict[str, str]] = {
        "mode": "mode",
        "claims": "claims",
        "ledger": "ledger",
        "network": "network",
        "package": "package",
    }

    # ledger: the address space and the ledger in git; mock: Nephio's pipeline-test backends
    mode: Literal["ledger", "mock"] = "ledger"
    # which claims one run fills (ipam-fn: ip, vlan-fn: vlan)
    claims: Literal["ip", "vlan", "ip,vlan", "vlan,ip"] = "ip,vlan"
    # the ledger file, relative to the package folder (read only: krmfn specialize writes it)
    ledger: str = ""
    # files or folders with the Networks, IPPrefixes and the IpamInventory (relative to the
    # package folder); none: the package's own Network objects
    network: tuple[str, ...] = ()
    # the owner prefix of the package's claims in the ledger (default: the Kptfile's name)
    package: str = ""
