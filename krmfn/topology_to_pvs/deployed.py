"""The NFDeployed summary: deployed (or planned) instances and their connectivity."""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from collections.abc import Mapping
from typing import Any, NamedTuple

from .config import Config
from .naming import label_value
from .porch import Revision, published_repositories
from .pvs import ANN_TOPOLOGY, LABEL_DEPLOYMENT
from .topology import Instance, Topology

NFDEPLOYED_API_VERSION = "workload.nephio.org/v1alpha1"
NFDEPLOYED_KIND = "NFDeployed"
NFDEPLOYED_DIR = "nfdeployed"


class Entry(NamedTuple):
    instance: Instance
    cluster: str | None

    @property
    def id(self) -> str:
        return f"{self.instance.name}-{self.cluster}" if self.cluster else self.instance.name


def entries(
    topology: Topology,
    config: Config,
    revisions: Mapping[str, list[Revision]],
    targets: Mapping[str, list[str]] | None,
) -> list[Entry]:
    """Deployed instances: one per (instance, repository with a Published revision).

    With ``listPlanned`` every known (instance, repository) is listed, Published or not; an
    instance without PackageRevisions is listed per matching Repository (WorkloadCluster) when
    those are given, else once without a cluster name.
    """
    out: list[Entry] = []
    for instance in topology.instances:
        repos = published_repositories(revisions.get(instance.name, []))
        if repos:
            out.extend(
                Entry(instance, repo)
                for repo, published in repos.items()
                if published or config.list_planned
            )
        elif config.list_planned:
            clusters = targets.get(instance.name, []) if targets is not None else []
            out.extend(Entry(instance, c) for c in clusters)
            if targets is None:
                out.append(Entry(instance, None))
    return out


def connected(a: Instance, b: Instance) -> bool:
    """Two different instances are neighbours when they attach to a same-named network."""
    return a.name != b.name and bool(a.networks & b.networks)


def desired_nfdeployed(topology: Topology, listed: list[Entry]) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": topology.name}
    if topology.namespace:
        metadata["namespace"] = topology.namespace
    metadata["labels"] = {LABEL_DEPLOYMENT: label_value(topology.name)}
    metadata["annotations"] = {ANN_TOPOLOGY: topology.name}
    instances = []
    for entry in listed:
        cls = entry.instance.nf_class
        item: dict[str, Any] = {"id": entry.id}
        if entry.cluster:
            item["clustername"] = entry.cluster
        item["nftype"] = entry.instance.nf_type
        if cls.vendor:
            item["nfvendor"] = cls.vendor
        if cls.version:
            item["nfversion"] = cls.version
        neighbours = sorted(
            {other.id for other in listed if connected(entry.instance, other.instance)}
        )
        if neighbours:
            item["connectivities"] = [{"neighborName": name} for name in neighbours]
        instances.append(item)
    return {
        "apiVersion": NFDEPLOYED_API_VERSION,
        "kind": NFDEPLOYED_KIND,
        "metadata": metadata,
        "spec": {"nfinstances": instances},
    }
