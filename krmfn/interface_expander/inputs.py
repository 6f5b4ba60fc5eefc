"""Reading the inputs: ``Interface`` requirements and the cluster object."""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from typing import Any, NamedTuple

from krmfn.nephio import (
    CLUSTER_CONTEXT_KIND,
    DEFAULT_NETWORK,
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
    NETWORK_NAME_ANNOTATION,
    PLACEHOLDER_CLUSTER_NAME,
    WORKLOAD_CLUSTER_KIND,
    read_cluster_context,
    read_workload_cluster,
    spec_text,
)
from krmfn.nephio import INFRA_API_VERSION as CLUSTER_CONTEXT_API_VERSION
from krmlib import KrmError, KubeObject, Results

# The Nephio vocabulary is krmfn.nephio's (shared with nad-generator); named here for the dialects.
__all__ = [
    "CLUSTER_CONTEXT_API_VERSION",
    "CLUSTER_CONTEXT_KIND",
    "DEFAULT_NETWORK",
    "INTERFACE_API_VERSION",
    "INTERFACE_KIND",
    "NETWORK_NAME_ANNOTATION",
    "PLACEHOLDER_CLUSTER_NAME",
    "WORKLOAD_CLUSTER_KIND",
]

CNI_TYPES = ("sriov", "ipvlan", "macvlan")
ATTACHMENT_TYPES = ("none", "vlan")
FAMILY_POLICIES = {
    "ipv4-only": ("ipv4",),
    "ipv4only": ("ipv4",),
    "ipv6-only": ("ipv6",),
    "ipv6only": ("ipv6",),
    "dual-stack": ("ipv4", "ipv6"),
    "dualstack": ("ipv4", "ipv6"),
}


class Request(NamedTuple):
    """One Interface, read and checked."""

    name: str
    namespace: str
    network: str
    cni_type: str  # "" for a loopback interface
    vlan: bool
    families: tuple[str, ...]
    network_name: str  # the nephio.org/network-name annotation, or ""
    local_config: bool

    @property
    def loopback(self) -> bool:
        return not self.cni_type

    @property
    def default_network(self) -> bool:
        return self.network == DEFAULT_NETWORK

    @property
    def needs_nad(self) -> bool:
        return bool(self.cni_type) and not self.default_network


class Cluster(NamedTuple):
    """What the children need from the ClusterContext (or the WorkloadCluster)."""

    site: str
    region: str
    cni_type: str
    master_interface: str
    obj: KubeObject
    cluster_name: str = ""
    cnis: tuple[str, ...] = ()


def _spec_text(obj: KubeObject, spec: dict[str, Any], path: str) -> str:
    """``spec_text(obj, "spec." + path)`` read from ``spec`` (the copy ``obj.get("spec")``
    gave): one parse and one copy per Interface instead of one walk and copy per field. A shape
    the walk would refuse (a scalar where a map is needed) is read through ``spec_text`` for its
    error."""
    node: Any = spec
    for key in path.split("."):
        if not isinstance(node, dict):
            return spec_text(obj, f"spec.{path}") if node is not None else ""
        node = node.get(key)
    if node is None:
        return ""
    if type(node) is str:
        return node
    return spec_text(obj, f"spec.{path}")


def read_interface(obj: KubeObject, results: Results) -> Request:
    """The Interface's request; KrmError (naming the field) when it cannot be expanded."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        raise KrmError("Interface has no spec", obj=obj, field="spec")
    network = _spec_text(obj, spec, "networkInstance.name")
    if not network:
        raise KrmError(
            "spec.networkInstance.name is missing: name the network instance of the interface",
            obj=obj,
            field="spec.networkInstance.name",
        )
    cni_type = _spec_text(obj, spec, "cniType")
    if cni_type and cni_type not in CNI_TYPES:
        raise KrmError(
            f"spec.cniType {cni_type!r} is not supported: expected one of "
            f"{', '.join(CNI_TYPES)} (or no cniType for a loopback interface)",
            obj=obj,
            field="spec.cniType",
        )
    attachment = _attachment(obj, spec, results)
    policy = _spec_text(obj, spec, "ipFamilyPolicy") or "ipv4-only"
    families = FAMILY_POLICIES.get(policy.lower())
    if families is None:
        raise KrmError(
            f"spec.ipFamilyPolicy {policy!r} is not supported: expected ipv4-only, ipv6-only "
            "or dual-stack",
            obj=obj,
            field="spec.ipFamilyPolicy",
        )
    vlan = attachment == "vlan"
    if vlan and not cni_type:
        results.warning(
            "attachmentType vlan is ignored on a loopback interface (no cniType): "
            "no VLANAllocation is requested",
            obj,
            "spec.attachmentType",
        )
        vlan = False
    return Request(
        name=obj.name,
        namespace=obj.namespace,
        network=network,
        cni_type=cni_type,
        vlan=vlan,
        families=families,
        network_name=obj.annotations.get(NETWORK_NAME_ANNOTATION, ""),
        local_config=obj.is_local_config,
    )


def _attachment(obj: KubeObject, spec: dict[str, Any], results: Results) -> str:
    attachment = _spec_text(obj, spec, "attachmentType")
    misspelt = _spec_text(obj, spec, "attachementType")
    if misspelt:
        if attachment and attachment != misspelt:
            results.warning(
                f"spec.attachementType (misspelt) {misspelt!r} is ignored: "
                f"spec.attachmentType {attachment!r} is used",
                obj,
                "spec.attachementType",
            )
        else:
            results.warning(
                "spec.attachementType is a misspelling: write spec.attachmentType",
                obj,
                "spec.attachementType",
            )
            attachment = misspelt
    attachment = attachment or "none"
    if attachment not in ATTACHMENT_TYPES:
        raise KrmError(
            f"spec.attachmentType {attachment!r} is not supported: expected none or vlan",
            obj=obj,
            field="spec.attachmentType",
        )
    return attachment


def find_cluster(
    items: list[KubeObject], results: Results, api_version: str, kind: str
) -> KubeObject | None:
    """The package's cluster object (the first one; more than one is a warning)."""
    found = [obj for obj in items if obj.api_version == api_version and obj.kind == kind]
    if len(found) > 1:
        results.warning(
            f"{len(found)} {kind}s in the package: the first one, {found[0].name}, is used",
            found[1],
        )
    return found[0] if found else None


def cluster_of_context(obj: KubeObject, *, r1: bool) -> Cluster:
    """The ClusterContext's values as the children need them, read and checked by
    :func:`krmfn.nephio.read_cluster_context` (its KrmError when a mandatory field is missing:
    ``spec.siteCode``; with ``r1``, ``nephio-2023-05``, also ``spec.cniConfig.cniType`` and
    ``masterInterface``, as Nephio R1 validated them)."""
    values = read_cluster_context(obj, r1=r1)
    return Cluster(values.site, values.region, values.cni_type, values.master_interface, obj)


def cluster_of_workload(obj: KubeObject) -> Cluster:
    """A WorkloadCluster's values as the children need them, read and checked as Nephio checks
    them by :func:`krmfn.nephio.read_workload_cluster`."""
    values = read_workload_cluster(obj)
    return Cluster(
        site="",
        region="",
        cni_type="",
        master_interface=values.master_interface,
        obj=obj,
        cluster_name=values.cluster_name,
        cnis=values.cnis,
    )
