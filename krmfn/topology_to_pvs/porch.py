"""Cluster state piped in: Porch PackageRevisions and Repositories (and WorkloadClusters)."""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from collections.abc import Iterable
from typing import NamedTuple

from krmlib import Items, KubeObject

from .config import Config
from .labelselector import matches
from .pvs import LABEL_DEPLOYMENT, LABEL_INSTANCE, WORKLOAD_CLUSTER, template_labels
from .topology import Instance, Topology

PUBLISHED = "Published"


class Revision(NamedTuple):
    """One PackageRevision of an instance."""

    obj: KubeObject
    repository: str
    lifecycle: str

    @property
    def published(self) -> bool:
        return self.lifecycle == PUBLISHED


def package_revisions(items: Items) -> list[KubeObject]:
    return list(items.where(kind="PackageRevision", api_version="porch.kpt.dev/*"))


def revisions_of(
    topology: Topology, instance: Instance, objects: Iterable[KubeObject]
) -> list[Revision]:
    """The PackageRevisions labelled for this instance (same namespace when both have one)."""
    wanted = template_labels(topology, instance)
    out = []
    for obj in objects:
        labels = obj.labels
        if labels.get(LABEL_DEPLOYMENT) != wanted[LABEL_DEPLOYMENT]:
            continue
        if labels.get(LABEL_INSTANCE) != wanted[LABEL_INSTANCE]:
            continue
        if topology.namespace and obj.namespace and obj.namespace != topology.namespace:
            continue
        out.append(
            Revision(
                obj=obj,
                repository=str(obj.get("spec.repository", "")),
                lifecycle=str(obj.get("spec.lifecycle", "")),
            )
        )
    return out


def published_repositories(revisions: list[Revision]) -> dict[str, bool]:
    """Repository → whether some revision of the instance there is Published (sorted keys)."""
    out: dict[str, bool] = {}
    for rev in sorted(revisions, key=lambda r: r.repository):
        out[rev.repository] = out.get(rev.repository, False) or rev.published
    return out


def _workload_clusters(items: Items) -> list[KubeObject]:
    api_version, kind = WORKLOAD_CLUSTER
    return list(items.where(kind=kind, api_version=api_version))


def repositories(items: Items) -> list[KubeObject]:
    return list(items.where(kind="Repository", api_version="config.porch.kpt.dev/*"))


def target_objects(items: Items, config: Config) -> list[KubeObject] | None:
    """What a target selects from, when the input has any: Repositories or WorkloadClusters."""
    if config.target_selector == "objectSelector":
        found = _workload_clusters(items)
    else:
        found = repositories(items)
    return found or None


def other_mode(items: Items, config: Config) -> str | None:
    """A warning when the inputs fit the other targetSelector (WorkloadClusters but no
    Repositories under repositorySelector, or the reverse), else None."""
    clusters, repos = _workload_clusters(items), repositories(items)
    if config.target_selector == "repositorySelector" and clusters and not repos:
        return (
            f"targetSelector is repositorySelector, but the package has WorkloadClusters "
            f"({', '.join(sorted(o.name for o in clusters))}) and no Repository: with "
            "targetSelector: objectSelector the sets select WorkloadClusters (and inject them)"
        )
    if config.target_selector == "objectSelector" and repos and not clusters:
        return (
            f"targetSelector is objectSelector, but the package has Repositories "
            f"({', '.join(sorted(o.name for o in repos))}) and no WorkloadCluster: with "
            "targetSelector: repositorySelector the sets select the Repositories"
        )
    return None


def matching_targets(
    topology: Topology, instance: Instance, objects: list[KubeObject]
) -> list[str]:
    """Names of the objects the instance's selector matches (Porch: same namespace only)."""
    names = {
        obj.name
        for obj in objects
        if not (topology.namespace and obj.namespace and obj.namespace != topology.namespace)
        and matches(instance.selector, obj.labels)
    }
    return sorted(names)
