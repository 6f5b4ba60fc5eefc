"""Reading the inputs: ``Interface`` requirements and the cluster object."""

from __future__ import annotations

from typing import Any, NamedTuple

from krmfn.nephio import (
    CLUSTER_CONTEXT_KIND,
    DEFAULT_NETWORK,
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
    NETWORK_NAME_ANNOTATION,
    PLACEHOLDER_CLUSTER_NAME,
    WORKLOAD_CLUSTER_KIND,
)
from krmfn.nephio import INFRA_API_VERSION as CLUSTER_CONTEXT_API_VERSION
from krmlib import KrmError, KubeObject, Results, text_of

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


def _text(obj: KubeObject, path: str) -> str:
    value = obj.get(path)
    if value is None:
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise KrmError(f"{path} must be a string", obj=obj, field=path)
    if isinstance(value, str):
        return value
    return text_of(obj, path) or str(value)  # a string field written as a number: 0123


def _spec_text(obj: KubeObject, spec: dict[str, Any], path: str) -> str:
    """``_text(obj, "spec." + path)`` read from ``spec`` (the copy ``obj.get("spec")`` gave):
    one parse and one copy per Interface instead of one walk and copy per field. A shape the
    walk would refuse (a scalar where a map is needed) is read through ``_text`` for its error."""
    node: Any = spec
    for key in path.split("."):
        if not isinstance(node, dict):
            return _text(obj, f"spec.{path}") if node is not None else ""
        node = node.get(key)
    if node is None:
        return ""
    if type(node) is str:
        return node
    return _text(obj, f"spec.{path}")


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


def _mandatory(obj: KubeObject, fields: list[str]) -> None:
    for field in fields:
        if not _text(obj, f"spec.{field}"):
            short = field.rsplit(".", 1)[-1]
            raise KrmError(
                f"spec invalid: mandatory field {short} is missing from {obj.kind}",
                obj=obj,
                field=f"spec.{field}",
            )


def read_cluster_context(obj: KubeObject, *, r1: bool) -> Cluster:
    """The ClusterContext's values; KrmError when a mandatory field is missing.

    The design dialect needs ``spec.siteCode``; ``nephio-2023-05`` also needs ``spec.cniConfig``
    with ``cniType`` and ``masterInterface``, as Nephio R1 validated them.
    """
    mandatory = ["siteCode"]
    if r1:
        mandatory += ["cniConfig.cniType", "cniConfig.masterInterface"]
    _mandatory(obj, mandatory)
    return Cluster(
        site=_text(obj, "spec.siteCode"),
        region=_text(obj, "spec.region"),
        cni_type=_text(obj, "spec.cniConfig.cniType"),
        master_interface=_text(obj, "spec.cniConfig.masterInterface"),
        obj=obj,
    )


def read_workload_cluster(obj: KubeObject) -> Cluster:
    """A WorkloadCluster's values, checked as Nephio checks them (KrmError with its message).

    ``spec.clusterName`` must be set and not the catalog's placeholder ``example``, ``spec.cnis``
    must list at least one CNI and ``spec.masterInterface`` must be set.
    """
    name = _text(obj, "spec.clusterName")
    if not name or name == PLACEHOLDER_CLUSTER_NAME:
        raise KrmError(
            "spec invalid: mandatory field ClusterName is missing from WorkloadCluster",
            obj=obj,
            field="spec.clusterName",
        )
    cnis = obj.get("spec.cnis", [])
    if not isinstance(cnis, list) or not all(isinstance(c, str) for c in cnis):
        raise KrmError("spec.cnis must be a list of strings", obj=obj, field="spec.cnis")
    if not cnis:
        raise KrmError(
            "spec invalid: mandatory field CNIConfig is missing from ClusterContext",
            obj=obj,
            field="spec.cnis",
        )
    if not _text(obj, "spec.masterInterface"):
        raise KrmError(
            "spec invalid: mandatory field MasterInterface is missing from ClusterContext",
            obj=obj,
            field="spec.masterInterface",
        )
    return Cluster(
        site="",
        region="",
        cni_type="",
        master_interface=_text(obj, "spec.masterInterface"),
        obj=obj,
        cluster_name=name,
        cnis=tuple(cnis),
    )
