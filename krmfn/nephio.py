"""The Nephio specializer vocabulary shared by the functions (``krmfn.nephio``).

What interface-expander and nad-generator both speak: the API versions and kinds of Nephio's
requirement, claim and infrastructure objects, the ``specializer.nephio.org/*`` annotations, the
two forms of Kptfile condition types (Nephio's ``<group>/<version>.<Kind>.<name>`` and the
Interface design's ``<group>-<version>-<kind>-<name>``) and the checks of the cluster objects.
It imports krmlib's public names only, so a function pays nothing at start-up for it
(``krmfn.tko`` loads the merge and krmlib._io.package). Sources: nephio-project/nephio
``krm-functions/lib/condkptsdk/sdk.go`` (the annotations), ``krm-functions/lib/kptfile/v1/
condition_type.go`` (the condition types), the Interface function design (``../seeds/``) for the
design's forms; the cluster checks are those of nephio-project/api ``infra/v1alpha1``
(``workload_cluster_interfaces.go``, and the ClusterContext's of May 2023).
"""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from typing import NamedTuple

from krmlib import KrmError, KubeObject, text_of

# The requirement an NF deployment expresses, and the cluster it lands on.
INTERFACE_API_VERSION = "req.nephio.org/v1alpha1"
INTERFACE_KIND = "Interface"
INFRA_API_VERSION = "infra.nephio.org/v1alpha1"
CLUSTER_CONTEXT_KIND = "ClusterContext"  # until June 2023, and the design
WORKLOAD_CLUSTER_KIND = "WorkloadCluster"  # Nephio R1 (v1.0.0) to today
NETWORK_KIND = "Network"

# The claims (R1 to today), the allocations of May-June 2023, and the design's allocations.
IPCLAIM_API_VERSION = "ipam.resource.nephio.org/v1alpha1"
VLANCLAIM_API_VERSION = "vlan.resource.nephio.org/v1alpha1"
IPCLAIM_KIND = "IPClaim"
VLANCLAIM_KIND = "VLANClaim"
IPALLOC_2023_API_VERSION = "ipam.alloc.nephio.org/v1alpha1"
VLANALLOC_2023_API_VERSION = "vlan.alloc.nephio.org/v1alpha1"
DESIGN_IPAM_API_VERSION = "ipam.nephio.org/v1alpha1"
IPALLOCATION_KIND = "IPAllocation"
VLANALLOCATION_KIND = "VLANAllocation"

# What a NAD generator writes.
NAD_API_VERSION = "k8s.cni.cncf.io/v1"
NAD_KIND = "NetworkAttachmentDefinition"

# specializer.nephio.org annotations (condkptsdk).
OWNER_ANNOTATION = "specializer.nephio.org/owner"
FOR_ANNOTATION = "specializer.nephio.org/for"
NAMESPACE_ANNOTATION = "specializer.nephio.org/namespace"
DELETE_ANNOTATION = "specializer.nephio.org/delete"
VLAN_CLAIM_NAME_ANNOTATION = "specializer.nephio.org/vlanClaimName"
SPECIALIZER_PREFIX = "specializer.nephio.org/"
NETWORK_NAME_ANNOTATION = "nephio.org/network-name"
DESIGN_OWNER_ANNOTATION = "krmfn.dev/owner"  # the design's owner when the Interface has no uid

DEFAULT_NETWORK = "default"  # the pod network: no claims, no NAD
PLACEHOLDER_CLUSTER_NAME = "example"  # the catalog blueprints' WorkloadCluster before injection

# Condition messages condkptsdk writes.
CREATE_INITIAL = "create initial resource"
UPDATE_DONE = "update done"
DELETE_RESOURCE = "delete resource"


def condition_type(api_version: str, kind: str, name: str) -> str:
    """``<group>/<version>.<Kind>.<name>``: Nephio's condition type (and owner reference)."""
    return f"{api_version}.{kind}.{name}"


def design_condition_type(api_version: str, kind: str, name: str) -> str:
    """``<group>-<version>-<kind>-<name>``, lower-cased, dots replaced by dashes (the design)."""
    group, _, version = api_version.rpartition("/")
    parts = [p for p in (group, version, kind, name) if p]
    return "-".join(parts).lower().replace(".", "-")


def parse_condition_type(value: str) -> tuple[str, str, str] | None:
    """(apiVersion, kind, name) of ``<group>/<version>.<Kind>.<name>``, as condkptsdk splits it:
    on the last ``/``, then exactly three dot-separated non-empty parts (None otherwise)."""
    group, slash, rest = value.rpartition("/")
    parts = rest.split(".")
    if not slash or len(parts) != 3 or not all(parts):
        return None
    return f"{group}/{parts[0]}", parts[1], parts[2]


def last_segment(reference: str) -> str:
    """The name at the end of ``<group>/<version>.<Kind>.<name>`` (Nephio's forName: the last
    ``.``-separated segment, whatever the value's form)."""
    return reference.rsplit(".", 1)[-1]


class WorkloadCluster(NamedTuple):
    """What the specializers read from an ``infra.nephio.org/v1alpha1 WorkloadCluster``."""

    cluster_name: str
    cnis: tuple[str, ...]
    master_interface: str


class ClusterContext(NamedTuple):
    """What the May 2023 functions and the design read from a ``ClusterContext``."""

    site: str
    region: str
    cni_type: str
    master_interface: str


def spec_text(obj: KubeObject, path: str) -> str:
    """The scalar at ``path`` as text, as written (``siteCode: 0123`` is ``0123``; '' when
    absent); KrmError naming the field when it is not a string or a number."""
    value = obj.get(path)
    if value is None:
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise KrmError(f"{path} must be a string", obj=obj, field=path)
    if isinstance(value, str):
        return value
    return text_of(obj, path) or str(value)  # a string field written as a number


def read_workload_cluster(obj: KubeObject) -> WorkloadCluster:
    """A WorkloadCluster's values, checked as Nephio checks them (KrmError with its message).

    ``spec.clusterName`` must be set and not the catalog's placeholder ``example``, ``spec.cnis``
    must list at least one CNI and ``spec.masterInterface`` must be set.
    """
    name = spec_text(obj, "spec.clusterName")
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
    master = spec_text(obj, "spec.masterInterface")
    if not master:
        raise KrmError(
            "spec invalid: mandatory field MasterInterface is missing from ClusterContext",
            obj=obj,
            field="spec.masterInterface",
        )
    return WorkloadCluster(name, tuple(cnis), master)


def read_cluster_context(obj: KubeObject, *, r1: bool) -> ClusterContext:
    """A ClusterContext's values; KrmError when a mandatory field is missing.

    The design needs ``spec.siteCode``; Nephio's May 2023 functions also need ``spec.cniConfig``
    with ``cniType`` and ``masterInterface``.
    """
    mandatory = ["siteCode"]
    if r1:
        mandatory += ["cniConfig.cniType", "cniConfig.masterInterface"]
    for field in mandatory:
        if not spec_text(obj, f"spec.{field}"):
            short = field.rsplit(".", 1)[-1]
            raise KrmError(
                f"spec invalid: mandatory field {short} is missing from {obj.kind}",
                obj=obj,
                field=f"spec.{field}",
            )
    return ClusterContext(
        site=spec_text(obj, "spec.siteCode"),
        region=spec_text(obj, "spec.region"),
        cni_type=spec_text(obj, "spec.cniConfig.cniType"),
        master_interface=spec_text(obj, "spec.cniConfig.masterInterface"),
    )
