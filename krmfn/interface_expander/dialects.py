"""The shapes of children, ownership and conditions, per dialect."""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
import functools
import posixpath
from typing import Any, ClassVar, Literal, NamedTuple, Protocol

from krmfn.nephio import (
    DELETE_ANNOTATION,
    DESIGN_OWNER_ANNOTATION,
    FOR_ANNOTATION,
    NAD_API_VERSION,
    NAD_KIND,
    OWNER_ANNOTATION,
    VLAN_CLAIM_NAME_ANNOTATION,
    condition_type,
    design_condition_type,
)
from krmlib import (
    ANN_LEGACY_PATH,
    ANN_LOCAL_CONFIG,
    ANN_PATH,
    Condition,
    KubeObject,
    check_names,
    default_file_name,
)
from krmlib.children import (
    DeleteAnnotation,
    Deletion,
    DeletionTimestamp,
    OwnerAnnotation,
    OwnerReferenceOrAnnotation,
    Ownership,
    parse_owner,
)

from .config import Config
from .inputs import (
    CLUSTER_CONTEXT_API_VERSION,
    CLUSTER_CONTEXT_KIND,
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
    WORKLOAD_CLUSTER_KIND,
    Cluster,
    Request,
    cluster_of_context,
    cluster_of_workload,
)
from .naming import child_name, spec_hash

PREFIX_LENGTH = {"ipv4": 32, "ipv6": 128}


class Outcome(NamedTuple):
    """What happened to one Interface in this run, for its own condition."""

    expanded: bool  # its children were computed (the cluster was usable)
    children: int = 0  # how many children it wants
    failure: str = ""  # why it could not be expanded (Nephio: the condition's message)
    changed: bool = False  # a child or a condition was created, updated, marked or removed
    ready: bool = False  # every child (and the NAD) condition is "True", nothing pending


CniPolicy = Literal["warning", "error", "condition"]


class Dialect(Protocol):
    """What differs between the design and Nephio's shipped functions."""

    name: str
    owns: tuple[tuple[str, str], ...]
    ownership: Ownership
    deletion: Deletion
    cni_policy: CniPolicy  # what a cniType the cluster lacks gives
    failures_are_conditions: bool  # Nephio: an unusable cluster is a condition, not an error
    requires_kptfile: bool
    writes_status: bool  # claim status copied back to the Interface once ready
    families: bool  # the IP children have address families
    cluster_kind: tuple[str, str]
    # Nephio's condkptsdk rules: a changed child is replaced by the desired object (status
    # emptied), a gone Interface keeps its condition, the NAD object of an Interface that no
    # longer needs one is marked for deletion (its condition "False" "delete resource")
    condkptsdk: bool

    def read_cluster(self, obj: KubeObject) -> Cluster: ...

    def owner_annotation(self, owner: KubeObject) -> str | None: ...

    def cni_mismatch(self, cni_type: str, cluster: Cluster) -> str | None: ...

    def missing_cluster(self) -> str: ...

    def children(
        self, owner: KubeObject, req: Request, cluster: Cluster, config: Config
    ) -> list[KubeObject]: ...

    def interface_type(self, name: str) -> str: ...

    def nad_type(self, owner: KubeObject) -> str: ...

    def child_type(self, child: KubeObject) -> str: ...

    def condition_order(self, kind: str) -> int: ...

    def reason(self, name: str) -> str: ...

    def created(self, child: KubeObject, replaces: list[str]) -> str: ...

    def condition_missing(self, child: KubeObject) -> str: ...

    def updated(self, child: KubeObject) -> str: ...

    def deleted(self, child: KubeObject, why: str) -> str: ...

    def nad_requested(self, name: str) -> str: ...

    def interface_condition(
        self, name: str, outcome: Outcome, existing: Condition | None
    ) -> Condition | None: ...

    def is_interface_condition(self, type_: str) -> bool: ...

    def is_nad_condition(self, type_: str) -> bool: ...


def _new_child(
    owner: KubeObject,
    api_version: str,
    kind: str,
    name: str,
    annotations: dict[str, str],
    owner_refs: bool,
    body: dict[str, Any],
) -> KubeObject:
    """A new child in its own file next to the owner (kpt's ``<lower kind>_<name>.yaml``); a
    name or namespace an API server would refuse is an error on the owner (issue 27.1)."""
    check_names(name, owner.namespace, kind=kind, source=owner)
    folder = posixpath.dirname(owner.path or "")
    path = posixpath.join(folder, default_file_name(kind, name))
    metadata: dict[str, Any] = {"name": name}
    if owner.namespace:
        metadata["namespace"] = owner.namespace
    metadata["annotations"] = {**annotations, ANN_PATH: path, ANN_LEGACY_PATH: path}
    if owner_refs:
        metadata["ownerReferences"] = [
            {"apiVersion": owner.api_version, "kind": owner.kind, "name": owner.name}
        ]
    # The values are built here for this child alone (no map or list shared with another
    # child or kept by the caller): handed over, not copied.
    return KubeObject.from_dict(
        {"apiVersion": api_version, "kind": kind, "metadata": metadata, **body}, owned=True
    )


# The design's Interface condition types without the name: "req-nephio-org-v1alpha1-interface-".
_DESIGN_INTERFACE_PREFIX = design_condition_type(INTERFACE_API_VERSION, INTERFACE_KIND, "x")[:-1]

# The condition types of an Interface and of its children are asked for again and again while
# that Interface is expanded (its condition, each child's reason, the statuses, the records):
# the last few are remembered (a bounded cache: no memory per item).
_design_type = functools.lru_cache(maxsize=16)(design_condition_type)


class Design:
    """The Interface function design: ``ipam.nephio.org/v1alpha1`` children with hashed names."""

    IPAM: ClassVar[str] = "ipam.nephio.org/v1alpha1"
    name = "design"
    owns: tuple[tuple[str, str], ...] = (
        ("ipam.nephio.org/v1alpha1", "IPAllocation"),
        ("ipam.nephio.org/v1alpha1", "VLANAllocation"),
    )
    ownership: Ownership = OwnerReferenceOrAnnotation(DESIGN_OWNER_ANNOTATION)
    deletion: Deletion = DeletionTimestamp()
    cni_policy: CniPolicy = "warning"
    failures_are_conditions = False
    requires_kptfile = False
    writes_status = False
    families = True
    cluster_kind = (CLUSTER_CONTEXT_API_VERSION, CLUSTER_CONTEXT_KIND)
    condkptsdk = False

    def read_cluster(self, obj: KubeObject) -> Cluster:
        return cluster_of_context(obj, r1=False)

    def owner_annotation(self, owner: KubeObject) -> str | None:
        """The annotation that records ``owner`` instead of an ownerReference (no uid)."""
        if OwnerReferenceOrAnnotation.uses_annotation(owner):
            return DESIGN_OWNER_ANNOTATION
        return None

    def cni_mismatch(self, cni_type: str, cluster: Cluster) -> str | None:
        if not cluster.cni_type or cni_type == cluster.cni_type:
            return None
        return (
            f"cniType {cni_type} differs from the cluster's cniType {cluster.cni_type} "
            f"(ClusterContext {cluster.obj.name} spec.cniConfig.cniType); expanded all the same"
        )

    def missing_cluster(self) -> str:
        return "waiting for a ClusterContext"

    def children(
        self, owner: KubeObject, req: Request, cluster: Cluster, config: Config
    ) -> list[KubeObject]:
        labels: dict[str, str] = {}
        if cluster.region:
            labels["nephio.org/region"] = cluster.region
        labels["nephio.org/site"] = cluster.site
        if req.network_name:
            labels["nephio.org/network-name"] = req.network_name

        def common() -> dict[str, Any]:  # each child's own maps (handed over to it)
            return {
                "networkInstanceRef": {
                    "namespace": config.network_instance_namespace,
                    "name": req.network,
                },
                "selector": {"matchLabels": dict(labels)},
            }

        annotations = (
            {ANN_LOCAL_CONFIG: "true"} if config.keep_local_config and req.local_config else {}
        )
        out = []
        for family in req.families:
            spec = {
                "kind": "loopback" if req.loopback else "network",
                "prefixLength": PREFIX_LENGTH[family],
                "addressFamily": family,
                **common(),
            }
            tag = family if len(req.families) > 1 else "ip"
            out.append(self._child(owner, "IPAllocation", tag, spec, annotations))
        if req.vlan:
            out.append(self._child(owner, "VLANAllocation", "vlan", common(), annotations))
        return out

    def _child(
        self,
        owner: KubeObject,
        kind: str,
        tag: str,
        spec: dict[str, Any],
        annotations: dict[str, str],
    ) -> KubeObject:
        name = child_name(owner.name, tag, spec_hash(self.IPAM, kind, owner.name, spec))
        return _new_child(owner, self.IPAM, kind, name, annotations, False, {"spec": spec})

    def interface_type(self, name: str) -> str:
        return _design_type(INTERFACE_API_VERSION, INTERFACE_KIND, name)

    def nad_type(self, owner: KubeObject) -> str:
        return self.interface_type(owner.name) + "-nad-generated"

    def child_type(self, child: KubeObject) -> str:
        return _design_type(child.api_version, child.kind, child.name)

    def condition_order(self, kind: str) -> int:
        return {"IPAllocation": 0, "VLANAllocation": 1}.get(kind, 2)

    def reason(self, name: str) -> str:
        return self.interface_type(name)

    def created(self, child: KubeObject, replaces: list[str]) -> str:
        if replaces:
            return (
                f"{child.kind} {child.name} replaces {', '.join(replaces)}; waiting for allocation"
            )
        return f"{child.kind} {child.name} created; waiting for allocation"

    def condition_missing(self, child: KubeObject) -> str:
        return self.created(child, [])

    def updated(self, child: KubeObject) -> str:
        return f"{child.kind} {child.name} updated; waiting for allocation"

    def deleted(self, child: KubeObject, why: str) -> str:
        return f"{child.kind} {child.name} awaits deletion: {why}"

    def nad_requested(self, name: str) -> str:
        return f"Interface {name} needs a NetworkAttachmentDefinition; waiting for a NAD generator"

    def interface_condition(
        self, name: str, outcome: Outcome, existing: Condition | None
    ) -> Condition | None:
        reason = self.reason(name)
        if not outcome.expanded:
            return Condition(self.interface_type(name), "False", reason, self.missing_cluster())
        if not outcome.children:
            message = "expanded: no children needed"
        else:
            count = outcome.children
            message = f"expanded into {count} {'child' if count == 1 else 'children'}"
        return Condition(self.interface_type(name), "True", reason, message)

    def is_interface_condition(self, type_: str) -> bool:
        return type_.startswith(_DESIGN_INTERFACE_PREFIX)

    def is_nad_condition(self, type_: str) -> bool:
        return self.is_interface_condition(type_) and type_.endswith("-nad-generated")


class Nephio202305:
    """Nephio's main of May-June 2023 (before R1): ``ClusterContext`` in, ``ipam.alloc``/
    ``vlan.alloc`` allocations named like the Interface out."""

    IPAM: ClassVar[str] = "ipam.alloc.nephio.org/v1alpha1"
    VLAN: ClassVar[str] = "vlan.alloc.nephio.org/v1alpha1"
    name = "nephio-2023-05"
    owns: tuple[tuple[str, str], ...] = (
        ("ipam.alloc.nephio.org/v1alpha1", "IPAllocation"),
        ("vlan.alloc.nephio.org/v1alpha1", "VLANAllocation"),
    )
    ownership: Ownership = OwnerAnnotation(OWNER_ANNOTATION)
    deletion: Deletion = DeleteAnnotation(DELETE_ANNOTATION)
    cni_policy: CniPolicy = "error"
    failures_are_conditions = False
    requires_kptfile = False
    writes_status = False
    families = False
    cluster_kind = (CLUSTER_CONTEXT_API_VERSION, CLUSTER_CONTEXT_KIND)
    condkptsdk = True

    def read_cluster(self, obj: KubeObject) -> Cluster:
        return cluster_of_context(obj, r1=True)

    def owner_annotation(self, owner: KubeObject) -> str | None:
        return None  # ownership is an annotation by design in Nephio's shapes

    def cni_mismatch(self, cni_type: str, cluster: Cluster) -> str | None:
        if cni_type == cluster.cni_type:
            return None
        return (
            f"cluster cniType not supported: cluster cniType: {cluster.cni_type}, "
            f"interface cniType: {cni_type}"
        )

    def missing_cluster(self) -> str:
        return f"missing {self.cluster_kind[1]}"

    def children(
        self, owner: KubeObject, req: Request, cluster: Cluster, config: Config
    ) -> list[KubeObject]:
        annotations = {OWNER_ANNOTATION: f"{owner.api_version}.{owner.kind}.{owner.name}"}
        if config.keep_local_config and req.local_config:
            annotations[ANN_LOCAL_CONFIG] = "true"
        ip_spec = {
            "kind": "loopback" if req.loopback else "network",
            "networkInstance": {"name": req.network},
            "selector": {"matchLabels": {"nephio.org/site": cluster.site}},
        }
        out = [
            _new_child(
                owner,
                self.IPAM,
                "IPAllocation",
                owner.name,
                annotations,
                False,
                {"spec": ip_spec, "status": {}},
            )
        ]
        if req.vlan:
            vlan_spec = {"vlanDatabase": {"name": cluster.site}}
            out.append(
                _new_child(
                    owner,
                    self.VLAN,
                    "VLANAllocation",
                    owner.name,
                    annotations,
                    False,
                    {"spec": vlan_spec, "status": {}},
                )
            )
        return out

    def interface_type(self, name: str) -> str:
        return condition_type(INTERFACE_API_VERSION, INTERFACE_KIND, name)

    def nad_type(self, owner: KubeObject) -> str:
        return condition_type(NAD_API_VERSION, NAD_KIND, owner.name)

    def child_type(self, child: KubeObject) -> str:
        return condition_type(child.api_version, child.kind, child.name)

    def condition_order(self, kind: str) -> int:
        return {"IPAllocation": 0, "VLANAllocation": 1}.get(kind, 2)

    def reason(self, name: str) -> str:
        return self.interface_type(name)

    def created(self, child: KubeObject, replaces: list[str]) -> str:
        return "create resource"

    def condition_missing(self, child: KubeObject) -> str:
        return "create resource"

    def updated(self, child: KubeObject) -> str:
        return "update resource"

    def deleted(self, child: KubeObject, why: str) -> str:
        return "delete resource"

    def nad_requested(self, name: str) -> str:
        return "create resource"

    def interface_condition(
        self, name: str, outcome: Outcome, existing: Condition | None
    ) -> Condition | None:
        type_ = self.interface_type(name)
        if not outcome.expanded:
            return Condition(type_, "False", "", outcome.failure or self.missing_cluster())
        if outcome.ready:
            return Condition(type_, "True", "", "update done")
        return Condition(type_, "False", "", "update for condition")

    def is_interface_condition(self, type_: str) -> bool:
        return type_.startswith(self.interface_type("")) or self.is_nad_condition(type_)

    def is_nad_condition(self, type_: str) -> bool:
        return type_.startswith(condition_type(NAD_API_VERSION, NAD_KIND, ""))


NEPHIO_ORDER = {"IPClaim": 0, NAD_KIND: 1, "VLANClaim": 2}
FAILURE_PREFIXES = ("stage1: ", "spec invalid: ")  # the failure messages of Nephio's sdk


class Nephio(Nephio202305):
    """Nephio R1 (v1.0.0) to today: ``WorkloadCluster`` in, ``IPClaim``/``VLANClaim`` out,
    conditions as Nephio's condkptsdk writes them, claim status copied back to the Interface."""

    IPAM: ClassVar[str] = "ipam.resource.nephio.org/v1alpha1"
    VLAN: ClassVar[str] = "vlan.resource.nephio.org/v1alpha1"
    name = "nephio"
    owns: tuple[tuple[str, str], ...] = (
        ("ipam.resource.nephio.org/v1alpha1", "IPClaim"),
        ("vlan.resource.nephio.org/v1alpha1", "VLANClaim"),
    )
    cni_policy: CniPolicy = "condition"
    failures_are_conditions = True
    requires_kptfile = True
    writes_status = True
    families = True
    cluster_kind = (CLUSTER_CONTEXT_API_VERSION, WORKLOAD_CLUSTER_KIND)

    def read_cluster(self, obj: KubeObject) -> Cluster:
        return cluster_of_workload(obj)

    def cni_mismatch(self, cni_type: str, cluster: Cluster) -> str | None:
        if cni_type in cluster.cnis:
            return None
        return (
            "stage1: cannot populate new resource err: cniType not supported in workload "
            f"cluster; workload cluster CNI(s): [{' '.join(cluster.cnis)}], interface cniType "
            f"requested: {cni_type}"
        )

    def missing_cluster(self) -> str:
        return (
            "stage1: cannot populate new resource err: workload cluster is missing from the "
            "kpt package"
        )

    def children(
        self, owner: KubeObject, req: Request, cluster: Cluster, config: Config
    ) -> list[KubeObject]:
        annotations: dict[str, str] = {}
        if req.local_config:
            annotations[ANN_LOCAL_CONFIG] = "true"
        for_ref = for_reference(owner)
        if for_ref:
            annotations[FOR_ANNOTATION] = for_ref
        prefix = claim_prefix(owner)
        owned = {OWNER_ANNOTATION: f"{owner.api_version}.{owner.kind}.{owner.name}"}
        out = []
        for family in req.families:
            labels = {
                "nephio.org/address-family": family,
                "nephio.org/cluster-name": cluster.cluster_name,
            }
            if req.network_name:
                labels["nephio.org/network-name"] = req.network_name
            spec = {
                "kind": "loopback" if req.loopback else "network",
                "selector": {"matchLabels": labels},
                "networkInstance": {"name": req.network},
            }
            out.append(
                _new_child(
                    owner,
                    self.IPAM,
                    "IPClaim",
                    f"{prefix}-{family}",
                    {**annotations, **owned},
                    False,
                    {"spec": spec, "status": {}},
                )
            )
        if req.vlan:
            vlan_annotations = {
                **annotations,
                VLAN_CLAIM_NAME_ANNOTATION: f"{req.network}-{cluster.cluster_name}-bd",
                **owned,
            }
            out.append(
                _new_child(
                    owner,
                    self.VLAN,
                    "VLANClaim",
                    prefix,
                    vlan_annotations,
                    False,
                    {"spec": {"vlanIndex": {"name": cluster.cluster_name}}, "status": {}},
                )
            )
        return out

    def nad_type(self, owner: KubeObject) -> str:
        return condition_type(NAD_API_VERSION, NAD_KIND, claim_prefix(owner))

    def condition_order(self, kind: str) -> int:
        return NEPHIO_ORDER.get(kind, len(NEPHIO_ORDER))

    def created(self, child: KubeObject, replaces: list[str]) -> str:
        return "create initial resource"

    def condition_missing(self, child: KubeObject) -> str:
        return "create condition"

    def nad_requested(self, name: str) -> str:
        return "create initial resource"

    def interface_condition(
        self, name: str, outcome: Outcome, existing: Condition | None
    ) -> Condition | None:
        """Nephio's rules; the reason (the NF deployment that asked for the Interface) is kept.

        A failure is written as the message; a change sets ``"False"`` ``update for condition``
        unless the condition is already ``"False"`` (its message is then left as it is, unless
        it is a failure that no longer holds); once every child is done it is ``"True"``
        ``update done``; otherwise it is left alone.
        """
        type_ = self.interface_type(name)
        reason = existing.reason if existing is not None else ""
        if outcome.failure:
            return Condition(type_, "False", reason, outcome.failure)
        if outcome.changed and (existing is None or existing.status != "False"):
            return Condition(type_, "False", reason, "update for condition")
        if outcome.ready:
            return Condition(type_, "True", reason, "update done")
        if existing is None or existing.message.startswith(FAILURE_PREFIXES):
            return Condition(type_, "False", reason, "update for condition")
        return None


def for_reference(owner: KubeObject) -> str:
    """The NF deployment an Interface belongs to: its ``for`` annotation, else its ``owner``."""
    annotations = owner.annotations
    return annotations.get(FOR_ANNOTATION) or annotations.get(OWNER_ANNOTATION, "")


def claim_prefix(owner: KubeObject) -> str:
    """``<for name>-<interface>``: the names of the claims and of the NAD (``<interface>``
    alone when the Interface names no NF deployment)."""
    for_name = parse_owner_name(for_reference(owner))
    return f"{for_name}-{owner.name}" if for_name else owner.name


def parse_owner_name(value: str) -> str:
    """The name part of ``<group>/<version>.<Kind>.<name>`` ('' when it is not of that form)."""
    key = parse_owner(value)
    return key.name if key is not None else ""


DIALECTS: dict[str, Dialect] = {
    "design": Design(),
    "nephio-2023-05": Nephio202305(),
    "nephio": Nephio(),
}
DEPRECATED = {"nephio-r1": "nephio-2023-05"}
