"""The Nephio/TKO vocabulary shared by the functions (``krmfn.tko``).

What preparer and merger both speak: the ``nephio.org/*`` annotations and their values
(:mod:`.annotations`), the package's Deployment resource and the topology/catalog API names
(:mod:`.resources`), DNS-label names with the hash cap (:mod:`.naming`), TKO's escaped ids in
Kubernetes names (:mod:`.ids`), TKO's merge of resources
into a package (:mod:`.merge`) and the making of a child deployment package (:mod:`.child`).
It imports krmlib only; the functions import it, never each other's internals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .annotations import (
    APPROVE,
    APPROVED,
    AUTO,
    DEFAULT,
    HERE,
    MANUAL,
    MERGE,
    METADATA,
    NEVER,
    OVERRIDE,
    POSTPONE,
    PREPARE,
    PREPARED,
    RENAME,
    REPLACE,
    TRUE,
    annotation_field,
    approve_mode,
    clear_marks,
    is_approved,
    is_prepared,
    moved_on,
    prepare_mode,
)
from .ids import from_kubernetes_name, from_kubernetes_names, id_forms, to_kubernetes_name
from .merge import MergeInput, merge_resources, plan
from .naming import cap_label, dns_label, short_hash, slug
from .resources import (
    ANN_CATALOG_ID,
    ANN_CATALOG_TEMPLATE,
    DEPLOYMENT_API,
    DEPLOYMENT_FILE,
    DEPLOYMENT_KIND,
    DEPLOYMENT_NAME,
    METADATA_GROUP,
    TKO_API,
    TOPOLOGY,
    catalog_index,
    deployment_id,
    find_deployment,
    metadata_of,
    new_deployment,
    object_reference,
)

if TYPE_CHECKING:
    from .child import (
        PREPARER_MARKERS,
        detached_copy,
        is_deployment_package,
        new_child,
        preparer_step,
    )

__all__ = [
    "ANN_CATALOG_ID",
    "ANN_CATALOG_TEMPLATE",
    "APPROVE",
    "APPROVED",
    "AUTO",
    "DEFAULT",
    "DEPLOYMENT_API",
    "DEPLOYMENT_FILE",
    "DEPLOYMENT_KIND",
    "DEPLOYMENT_NAME",
    "HERE",
    "MANUAL",
    "MERGE",
    "METADATA",
    "METADATA_GROUP",
    "NEVER",
    "OVERRIDE",
    "POSTPONE",
    "PREPARE",
    "PREPARED",
    "PREPARER_MARKERS",
    "RENAME",
    "REPLACE",
    "TKO_API",
    "TOPOLOGY",
    "TRUE",
    "MergeInput",
    "annotation_field",
    "approve_mode",
    "cap_label",
    "catalog_index",
    "clear_marks",
    "deployment_id",
    "detached_copy",
    "dns_label",
    "find_deployment",
    "from_kubernetes_name",
    "from_kubernetes_names",
    "id_forms",
    "is_approved",
    "is_deployment_package",
    "is_prepared",
    "merge_resources",
    "metadata_of",
    "moved_on",
    "new_child",
    "new_deployment",
    "object_reference",
    "plan",
    "prepare_mode",
    "preparer_step",
    "short_hash",
    "slug",
    "to_kubernetes_name",
]


_CHILD = (
    "PREPARER_MARKERS",
    "detached_copy",
    "is_deployment_package",
    "new_child",
    "preparer_step",
)


def __getattr__(name: str) -> Any:
    """The child-package makers load on first use (krmlib._io.package, pathlib): a KRM run of the
    merger or the preparer does not make a child package in process."""
    if name in _CHILD:
        from . import child

        return getattr(child, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
