"""What differs between the package shapes nad-generator reads: current Nephio (R1 to today),
Nephio's main of May-June 2023, and the Interface function design. Each is the NAD step of the
interface-expander dialect of the same name.
"""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from collections.abc import Callable
from typing import NamedTuple

from krmfn.nephio import (
    CLUSTER_CONTEXT_KIND,
    DESIGN_IPAM_API_VERSION,
    DESIGN_OWNER_ANNOTATION,
    FOR_ANNOTATION,
    INFRA_API_VERSION,
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
    IPALLOC_2023_API_VERSION,
    IPALLOCATION_KIND,
    IPCLAIM_API_VERSION,
    IPCLAIM_KIND,
    NAD_API_VERSION,
    NAD_KIND,
    NAMESPACE_ANNOTATION,
    OWNER_ANNOTATION,
    UPDATE_DONE,
    VLANALLOC_2023_API_VERSION,
    VLANALLOCATION_KIND,
    VLANCLAIM_API_VERSION,
    VLANCLAIM_KIND,
    WORKLOAD_CLUSTER_KIND,
    condition_type,
    design_condition_type,
    last_segment,
    parse_condition_type,
    read_cluster_context,
    read_workload_cluster,
)
from krmlib import Condition, KrmError, KubeObject, ResourceList
from krmlib.children import OwnerAnnotation, OwnerReferenceOrAnnotation, Ownership

from .cni import Address, CniError, Route, cni_config, vlan_only_config
from .config import Config


class Cluster(NamedTuple):
    """The cluster's values a NAD needs (from a WorkloadCluster or a ClusterContext)."""

    obj: KubeObject
    cnis: tuple[str, ...]  # the WorkloadCluster's spec.cnis (() for a ClusterContext)
    cni_type: str  # the ClusterContext's spec.cniConfig.cniType
    master_interface: str


class Claims(NamedTuple):
    """The claim (or allocation) objects of one Interface, in item order."""

    ip: list[KubeObject]
    vlan: list[KubeObject]


class Inputs(NamedTuple):
    """What a NAD is built from."""

    interface: KubeObject
    cni_type: str
    cluster: Cluster
    claims: Claims
    networks: list[KubeObject]
    notes: list[KrmError]  # values written that look wrong but Nephio accepts (warnings)


class Dialect:
    """Current Nephio: ``WorkloadCluster``, ``IPClaim``/``VLANClaim``, conditions
    ``<group>/<version>.<Kind>.<name>`` as condkptsdk writes them, the NAD named
    ``<for>-<interface>`` in the namespace of ``specializer.nephio.org/namespace``."""

    name = "nephio"
    cluster_kind = (INFRA_API_VERSION, WORKLOAD_CLUSTER_KIND)
    ip_kind = (IPCLAIM_API_VERSION, IPCLAIM_KIND)
    vlan_kind = (VLANCLAIM_API_VERSION, VLANCLAIM_KIND)
    ownership: Ownership = OwnerAnnotation(OWNER_ANNOTATION)
    requires_kptfile = True
    single_cluster = True  # a second cluster object is a failure, not a warning
    NAD_PREFIX = condition_type(NAD_API_VERSION, NAD_KIND, "")
    missing_cluster = "workload cluster is missing from the kpt package"
    no_interface = "expected Interface object to generate the nad"
    # the Interface fields the NAD's name and namespace come from (named in a refusal)
    name_field = f'metadata.annotations["{FOR_ANNOTATION}"]'
    namespace_field = f'metadata.annotations["{NAMESPACE_ANNOTATION}"]'

    def read_cluster(self, obj: KubeObject) -> Cluster:
        values = read_workload_cluster(obj)
        return Cluster(obj, values.cnis, "", values.master_interface)

    def nad_interface(self, condition: Condition) -> str | None:
        """The Interface a NAD condition is for ('' when its reason names none); None when it is
        not a NAD condition of this dialect."""
        if not condition.type.startswith(self.NAD_PREFIX):
            return None
        if parse_condition_type(condition.type) is None:
            return None
        return self._interface_in(condition.reason)

    @staticmethod
    def _interface_in(reference: str) -> str:
        ref = parse_condition_type(reference)
        if ref is None or ref[:2] != (INTERFACE_API_VERSION, INTERFACE_KIND):
            return ""
        return ref[2]

    def claim_condition_interface(self, condition: Condition) -> str:
        """The Interface a claim condition belongs to (by its reason; '' if none)."""
        ref = parse_condition_type(condition.type)
        if ref is None or ref[:2] not in (self.ip_kind, self.vlan_kind):
            return ""
        return self._interface_in(condition.reason)

    def owner_interface(self, obj: KubeObject) -> str:
        """The Interface that owns a claim or a NAD ('' if none)."""
        for key in self.ownership.owners(obj):
            if (key.api_version, key.kind) == (INTERFACE_API_VERSION, INTERFACE_KIND):
                return key.name
        return ""

    def claim_type(self, obj: KubeObject) -> str:
        return condition_type(obj.api_version, obj.kind, obj.name)

    def owner_annotation(self, interface: KubeObject) -> dict[str, str]:
        """The annotation a new NAD records its Interface in ({}: ``ownership.mark`` does it)."""
        return {
            OWNER_ANNOTATION: condition_type(interface.api_version, interface.kind, interface.name)
        }

    def identity(self, interface: KubeObject) -> tuple[str, str]:
        """(name, namespace) of the Interface's NAD; CniError when it cannot be named."""
        annotations = interface.annotations
        reference = annotations.get(OWNER_ANNOTATION, "")
        if FOR_ANNOTATION in annotations:
            reference = annotations[FOR_ANNOTATION]
        for_name = last_segment(reference)
        for_namespace = annotations.get(NAMESPACE_ANNOTATION, "")
        if not for_name or not for_namespace:
            raise CniError(
                "expecting a for name and for namespace, got forName: "
                f"{for_name}, forNamespace: {for_namespace}"
            )
        return f"{for_name}-{interface.name}", for_namespace

    def no_claims(self) -> str:
        return (
            f"expected one of {self.ip_kind[1]} or {self.vlan_kind[1]} objects to generate the nad"
        )

    def config(self, inputs: Inputs, networks: Callable[[str, str, str], list[Route]]) -> str:
        vlan_id = _vlan_id(inputs.claims.vlan)
        if not inputs.claims.ip:
            return vlan_only_config(vlan_id)
        cluster = inputs.cluster
        if inputs.cni_type not in cluster.cnis:
            raise CniError(
                "cniType not supported in workload cluster; workload cluster CNI(s): "
                f"[{' '.join(cluster.cnis)}], interface cniType requested: {inputs.cni_type}"
            )
        addresses: dict[str, Address] = {}
        routes: dict[str, Route] = {}
        for claim in inputs.claims.ip:
            status = _status(claim)
            address, gateway = _address(claim, status, inputs.notes)
            addresses.setdefault(address, Address(address, gateway))
            if address and gateway:
                network = _text(claim.get("spec.networkInstance.name"))
                for route in networks(network, address, gateway):
                    routes.setdefault(route.dst, route)
        return cni_config(
            inputs.cni_type,
            cluster.master_interface,
            vlan_id,
            [addresses[k] for k in sorted(addresses)],
            [routes[k] for k in sorted(routes)],
        )

    def done(self, condition: Condition, nad_name: str) -> Condition:
        return Condition(condition.type, "True", condition.reason, UPDATE_DONE)


class Nephio202305(Dialect):
    """Nephio's main of May-June 2023 (nad-fn before commit 052a82f): ``ClusterContext``,
    ``ipam.alloc``/``vlan.alloc`` allocations, the NAD named like the Interface, the VLAN id as a
    top-level ``vlan`` and the master interface without a VLAN suffix."""

    name = "nephio-2023-05"
    cluster_kind = (INFRA_API_VERSION, CLUSTER_CONTEXT_KIND)
    ip_kind = (IPALLOC_2023_API_VERSION, IPALLOCATION_KIND)
    vlan_kind = (VLANALLOC_2023_API_VERSION, VLANALLOCATION_KIND)
    name_field = "metadata.name"
    namespace_field = "metadata.namespace"
    single_cluster = False
    missing_cluster = "expected ClusterContext object to generate the nad"

    def read_cluster(self, obj: KubeObject) -> Cluster:
        values = read_cluster_context(obj, r1=True)
        return Cluster(obj, (), values.cni_type, values.master_interface)

    def identity(self, interface: KubeObject) -> tuple[str, str]:
        return interface.name, interface.namespace

    def config(self, inputs: Inputs, networks: Callable[[str, str, str], list[Route]]) -> str:
        vlan_id = _vlan_id(inputs.claims.vlan)
        if inputs.claims.vlan and not vlan_id:
            names = ", ".join(c.name for c in inputs.claims.vlan)
            raise CniError(f"VLANAllocation {names} has no status.vlanID")
        if not inputs.claims.ip:
            return vlan_only_config(vlan_id, top_level_vlan=True)
        cluster_type = inputs.cluster.cni_type
        if cluster_type and cluster_type != inputs.cni_type:
            raise CniError("CNIType mismatch between interface and clustercontext")
        status = _status(inputs.claims.ip[-1])  # nad-fn of May 2023: the last allocation's
        address = _address(inputs.claims.ip[-1], status, inputs.notes)
        return cni_config(
            inputs.cni_type,
            inputs.cluster.master_interface,
            vlan_id,
            [address],
            [],
            top_level_vlan=True,
        )


_DESIGN_INTERFACE_PREFIX = design_condition_type(INTERFACE_API_VERSION, INTERFACE_KIND, "x")[:-1]
_DESIGN_NAD_SUFFIX = "-nad-generated"


class Design(Dialect):
    """The Interface function design: ``ClusterContext``, ``ipam.nephio.org`` allocations owned
    by an ownerReference (or ``krmfn.dev/owner``), conditions ``<group>-<version>-<kind>-<name>``;
    the NAD named like the Interface, in its namespace, owned the same way."""

    name = "design"
    cluster_kind = (INFRA_API_VERSION, CLUSTER_CONTEXT_KIND)
    ip_kind = (DESIGN_IPAM_API_VERSION, IPALLOCATION_KIND)
    vlan_kind = (DESIGN_IPAM_API_VERSION, VLANALLOCATION_KIND)
    ownership: Ownership = OwnerReferenceOrAnnotation(DESIGN_OWNER_ANNOTATION)
    requires_kptfile = False
    name_field = "metadata.name"
    namespace_field = "metadata.namespace"
    single_cluster = False
    missing_cluster = "waiting for a ClusterContext: the NAD's master interface is not known"
    no_interface = "the package has no Interface of this name"
    CLAIM_PREFIXES = (
        design_condition_type(DESIGN_IPAM_API_VERSION, IPALLOCATION_KIND, "x")[:-1],
        design_condition_type(DESIGN_IPAM_API_VERSION, VLANALLOCATION_KIND, "x")[:-1],
    )

    def read_cluster(self, obj: KubeObject) -> Cluster:
        values = read_cluster_context(obj, r1=False)
        return Cluster(obj, (), values.cni_type, values.master_interface)

    def nad_interface(self, condition: Condition) -> str | None:
        type_ = condition.type
        if not (type_.startswith(_DESIGN_INTERFACE_PREFIX) and type_.endswith(_DESIGN_NAD_SUFFIX)):
            return None
        return type_[len(_DESIGN_INTERFACE_PREFIX) : -len(_DESIGN_NAD_SUFFIX)]

    def claim_condition_interface(self, condition: Condition) -> str:
        if not condition.type.startswith(self.CLAIM_PREFIXES):
            return ""
        reason = condition.reason
        if not reason.startswith(_DESIGN_INTERFACE_PREFIX):
            return ""
        return reason[len(_DESIGN_INTERFACE_PREFIX) :]

    def claim_type(self, obj: KubeObject) -> str:
        return design_condition_type(obj.api_version, obj.kind, obj.name)

    def owner_annotation(self, interface: KubeObject) -> dict[str, str]:
        return {}  # an ownerReference when the Interface has a uid, else krmfn.dev/owner

    def identity(self, interface: KubeObject) -> tuple[str, str]:
        return interface.name, interface.namespace

    def config(self, inputs: Inputs, networks: Callable[[str, str, str], list[Route]]) -> str:
        cluster = inputs.cluster
        if not cluster.master_interface:
            raise CniError(
                f"{cluster.obj.kind} {cluster.obj.name} has no spec.cniConfig.masterInterface: "
                "the NAD's master interface is not known"
            )
        design = Cluster(cluster.obj, (inputs.cni_type,), "", cluster.master_interface)
        return Dialect.config(self, inputs._replace(cluster=design), networks)

    def done(self, condition: Condition, nad_name: str) -> Condition:
        return Condition(
            condition.type, "True", condition.reason, f"{NAD_KIND} {nad_name} generated"
        )


def _status(obj: KubeObject) -> dict[str, object]:
    status = obj.get("status")
    return status if isinstance(status, dict) else {}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def shown_value(value: object) -> str:
    """A value for a message as JSON writes it (``"100"`` quoted, ``100.0``), never a repr."""
    import json  # a wrong value only

    return json.dumps(value, ensure_ascii=False, default=str)


VLAN_MAX = 4095  # a 12-bit 802.1Q VLAN id; Nephio's vlanID is a uint16 (nephio-project/api)


def _vlan_id(claims: list[KubeObject]) -> int:
    """The last VLAN claim's ``status.vlanID`` (0 when it has none), as nad-fn reads it; a
    KrmError naming the claim's field when it is not an integer from 0 to 4095 (a quoted
    ``"100"`` or ``100.0`` included: Nephio's type is an integer, and reading it as absent would
    write an untagged ``master``)."""
    vlan_id = 0
    for claim in claims:
        value = _status(claim).get("vlanID")
        if value is None:
            vlan_id = 0
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= VLAN_MAX:
            raise KrmError(
                f"{claim.kind} {claim.name}: status.vlanID is {shown_value(value)}, expected an "
                f"integer VLAN id from 0 to {VLAN_MAX} (unquoted)",
                obj=claim,
                field="status.vlanID",
            )
        vlan_id = value
    return vlan_id


def _address(claim: KubeObject, status: dict[str, object], notes: list[KrmError]) -> Address:
    """The claim's ``status.prefix`` and ``status.gateway`` as the NAD writes them, checked: the
    prefix an address with its prefix length, the gateway an address of the same family. A
    KrmError naming the claim's field otherwise. A gateway outside the prefix (other than a
    link-local one, or one of a single-address prefix, /32 or /128: on-link) is written, as
    nad-fn writes it (Nephio's own test claims have one), with a note: a warning."""
    address = _text(status.get("prefix"))
    gateway = _text(status.get("gateway"))
    import ipaddress  # on first use: not a start-up cost

    interface = None
    if address:
        try:
            interface = ipaddress.ip_interface(address)
        except ValueError:
            raise KrmError(
                f"{claim.kind} {claim.name}: status.prefix {shown_value(address)} is not an IP "
                "address with its prefix length (172.0.0.254/24, 2001:db8::1/64)",
                obj=claim,
                field="status.prefix",
            ) from None
        if "/" not in address:
            raise KrmError(
                f"{claim.kind} {claim.name}: status.prefix {shown_value(address)} has no "
                "prefix length",
                obj=claim,
                field="status.prefix",
            )
    if gateway:
        try:
            gw = ipaddress.ip_address(gateway)
        except ValueError:
            raise KrmError(
                f"{claim.kind} {claim.name}: status.gateway {shown_value(gateway)} is not an IP "
                "address",
                obj=claim,
                field="status.gateway",
            ) from None
        if interface is not None and gw.version != interface.version:
            raise KrmError(
                f"{claim.kind} {claim.name}: status.gateway {gateway} is an IPv{gw.version} "
                f"address and status.prefix {address} an IPv{interface.version} one",
                obj=claim,
                field="status.gateway",
            )
        host = interface is not None and interface.network.prefixlen == interface.max_prefixlen
        # a link-local next hop (fe80::/10, 169.254/16) is on-link whatever the prefix
        on_link = host or gw.is_link_local
        if interface is not None and not on_link and gw not in interface.network:
            notes.append(
                KrmError(
                    f"{claim.kind} {claim.name}: status.gateway {gateway} is outside "
                    f"status.prefix {address} (network {interface.network}): written as it is, "
                    "check the IP claim",
                    obj=claim,
                    field="status.gateway",
                )
            )
    return Address(address, gateway)


DIALECTS: dict[str, Dialect] = {
    "nephio": Dialect(),
    "nephio-2023-05": Nephio202305(),
    "design": Design(),
}


def choose(rl: ResourceList, config: Config, conditions: list[Condition]) -> Dialect:
    """The configured dialect, or the one the package's shapes show (``nephio`` when nothing
    does: the drop-in for Nephio's nad-fn). A configured dialect the package contradicts gets a
    warning."""
    evidence = detect(rl, conditions)
    if config.dialect is None:
        return DIALECTS[evidence[0] if evidence is not None else "nephio"]
    if evidence is not None and evidence[0] != config.dialect:
        rl.results.warning(
            f"dialect {config.dialect} is configured, but the package looks like dialect "
            f"{evidence[0]}: {evidence[1]}. Set dialect: {evidence[0]} (or leave it out to "
            "choose from the package)",
            rl.function_config,
            config.field_path("dialect"),
        )
    return DIALECTS[config.dialect]


def detect(rl: ResourceList, conditions: list[Condition]) -> tuple[str, str] | None:
    """(dialect, why) from the package's kinds and condition types, strongest first."""
    kinds = {(obj.api_version, obj.kind) for obj in rl.items}
    nephio, may_2023, design = DIALECTS["nephio"], DIALECTS["nephio-2023-05"], DIALECTS["design"]
    if nephio.cluster_kind in kinds:
        return "nephio", "it has a WorkloadCluster"
    for dialect in (nephio, may_2023, design):
        if dialect.ip_kind in kinds or dialect.vlan_kind in kinds:
            return dialect.name, f"it has {dialect.ip_kind[1]}s or {dialect.vlan_kind[1]}s"
    for dialect in (nephio, may_2023, design):
        if any(dialect.claim_condition_interface(c) for c in conditions):
            return (
                dialect.name,
                f"its Kptfile has {dialect.ip_kind[1]} or {dialect.vlan_kind[1]} conditions",
            )
    if any(design.nad_interface(c) is not None for c in conditions):
        return "design", "its Kptfile has -nad-generated conditions"
    if may_2023.cluster_kind in kinds:
        if any(nephio.nad_interface(c) is not None for c in conditions):
            return "nephio-2023-05", "it has a ClusterContext and Nephio's NAD conditions"
        return "design", "it has a ClusterContext"
    return None
