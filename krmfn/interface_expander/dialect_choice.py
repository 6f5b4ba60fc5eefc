"""Which dialect a run uses: the configured one, or the one the package's shapes show.

Evidence, strongest first:

- an ``infra.nephio.org/v1alpha1 WorkloadCluster`` (or an ``IPClaim``/``VLANClaim`` owned by an
  Interface) is current Nephio: ``nephio``;
- a ``ClusterContext`` with a ``specializer.nephio.org/*`` annotation, on it or on an Interface
  (or ``ipam.alloc.nephio.org`` / ``vlan.alloc.nephio.org`` allocations), is Nephio's May-June
  2023 main: ``nephio-2023-05``;
- a ``ClusterContext`` without those annotations (or ``ipam.nephio.org`` allocations) is the
  design: ``design`` (weak evidence: the 2023 shapes may lack the annotations too).

With no evidence at all the default is ``design``.
"""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from typing import NamedTuple

from krmfn.nephio import SPECIALIZER_PREFIX
from krmlib import ResourceList

from .config import Config
from .dialects import DEPRECATED, DIALECTS, Dialect
from .inputs import (
    CLUSTER_CONTEXT_API_VERSION,
    CLUSTER_CONTEXT_KIND,
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
    WORKLOAD_CLUSTER_KIND,
)

DEFAULT = "design"


class Evidence(NamedTuple):
    dialect: str
    why: str
    strong: bool


def detect(rl: ResourceList) -> Evidence | None:
    """The dialect the package's shapes point at, or None when nothing does."""
    # One pass over the items: the (apiVersion, kind) pairs present, and the objects to look at.
    present: set[tuple[str, str]] = set()
    workload_clusters = []
    contexts = []
    interfaces = []
    for obj in rl.items:
        shape = (obj.api_version, obj.kind)
        present.add(shape)
        if shape == _WORKLOAD_CLUSTER:
            workload_clusters.append(obj)
        elif shape == _CLUSTER_CONTEXT:
            contexts.append(obj)
        elif shape == _INTERFACE:
            interfaces.append(obj)

    def children_of(dialect: str) -> bool:
        return not present.isdisjoint(DIALECTS[dialect].owns)

    if workload_clusters:
        return Evidence("nephio", f"it has a WorkloadCluster ({workload_clusters[0].name})", True)
    if children_of("nephio"):
        return Evidence("nephio", "it has IPClaims or VLANClaims", True)
    specialized = any(
        key.startswith(SPECIALIZER_PREFIX)
        for obj in [*contexts, *interfaces]
        if obj.may_mention(SPECIALIZER_PREFIX)
        for key in obj.annotations
    )
    if contexts and specialized:
        return Evidence(
            "nephio-2023-05",
            "it has a ClusterContext and specializer.nephio.org annotations",
            True,
        )
    if children_of("nephio-2023-05"):
        return Evidence("nephio-2023-05", "it has ipam.alloc.nephio.org allocations", True)
    if contexts:
        return Evidence(
            "design", "it has a ClusterContext without specializer.nephio.org annotations", False
        )
    if children_of("design"):
        return Evidence("design", "it has ipam.nephio.org allocations", False)
    return None


_WORKLOAD_CLUSTER = (CLUSTER_CONTEXT_API_VERSION, WORKLOAD_CLUSTER_KIND)
_CLUSTER_CONTEXT = (CLUSTER_CONTEXT_API_VERSION, CLUSTER_CONTEXT_KIND)
_INTERFACE = (INTERFACE_API_VERSION, INTERFACE_KIND)


def choose(rl: ResourceList, config: Config) -> Dialect:
    """The dialect of this run, with a warning when the configured one looks wrong."""
    evidence = detect(rl)
    if config.dialect is None:
        return DIALECTS[evidence.dialect if evidence is not None else DEFAULT]
    configured: str = config.dialect
    if configured in DEPRECATED:
        new = DEPRECATED[configured]
        rl.results.warning(
            f"dialect {configured} is deprecated: Nephio R1 (v1.0.0) already used "
            f"WorkloadCluster and IPClaim (dialect nephio); the ClusterContext/IPAllocation "
            f"shapes are those of Nephio's main in May-June 2023: write dialect: {new}",
            rl.function_config,
            config.field_path("dialect"),
        )
        configured = new
    # A plain ClusterContext is weak evidence: the 2023 shapes may lack the annotations.
    if (
        evidence is not None
        and evidence.dialect != configured
        and (evidence.strong or configured != "nephio-2023-05")
    ):
        rl.results.warning(
            f"dialect {configured} is configured, but the package looks like dialect "
            f"{evidence.dialect}: {evidence.why}. Set dialect: {evidence.dialect} (or leave "
            "it out to choose from the package)",
            rl.function_config,
            config.field_path("dialect"),
        )
    return DIALECTS[configured]
