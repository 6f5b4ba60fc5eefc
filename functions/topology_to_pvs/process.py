"""process(): NFTopology in; PackageVariantSets, NFDeployed and gate conditions out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from krmlib import Items, KubeObject, ResourceList, Results

from .config import Config
from .deployed import NFDEPLOYED_DIR, NFDEPLOYED_KIND, desired_nfdeployed, entries
from .gates import Gate, apply_gates, gates
from .naming import dns_label
from .porch import (
    Revision,
    matching_targets,
    other_mode,
    package_revisions,
    revisions_of,
    target_objects,
)
from .pvs import ANN_TOPOLOGY, PVS_DIR, PVS_KIND, desired_pvs
from .topology import Instance, Topology, class_objects, read_topology, topologies

GENERATED_KINDS = {PVS_KIND: "config.porch.kpt.dev", NFDEPLOYED_KIND: "workload.nephio.org"}


@dataclass
class _Planned:
    """One readable topology with everything it would write, before anything is written."""

    topology: Topology
    desired: list[dict[str, Any]]
    by_waiter: dict[str, list[Gate]]
    revisions: dict[str, list[Revision]]


def process(rl: ResourceList, config: Config) -> None:
    items, results = rl.items, rl.results
    classes = class_objects(items)
    revisions_in = package_revisions(items)
    targets_in = target_objects(items, config)
    mismatch = other_mode(items, config)
    if mismatch is not None:
        results.warning(mismatch, rl.function_config, config.field_path("targetSelector"))
    seen: set[tuple[str, str]] = set()
    planned: list[_Planned] = []
    for obj in topologies(items):
        seen.add((obj.namespace, obj.name))
        topology = read_topology(obj, classes, results)
        if topology is None:
            continue  # errors reported; its generated items stay as they are
        revisions = {i.name: revisions_of(topology, i, revisions_in) for i in topology.instances}
        matched: dict[str, list[str]] | None = None
        if targets_in is not None:
            matched = {
                i.name: matching_targets(topology, i, targets_in) for i in topology.instances
            }
            _report_matches(topology.obj, topology.instances, matched, config, results)
        by_waiter = gates(topology, config.wait_rules)
        desired = [
            desired_pvs(topology, i, config, [g.condition_type for g in by_waiter.get(i.name, [])])
            for i in topology.instances
        ]
        listed = entries(topology, config, revisions, matched)
        desired.append(desired_nfdeployed(topology, listed))
        planned.append(_Planned(topology, desired, by_waiter, revisions))
    clashing = _report_name_clashes(planned, results)
    if not seen:
        results.info(
            "no NFTopology (topology.nephio.org or req.nephio.org) in the package: nothing to "
            "generate"
        )
    for plan in planned:
        if id(plan.topology.obj) in clashing:
            continue  # errors reported; its generated items stay as they are
        created = _sync(items, plan.topology.obj, plan.desired, results)
        if created:
            counts = ", ".join(
                f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in sorted(created.items())
            )
            results.info(f"created {counts}", plan.topology.obj)
        apply_gates(plan.topology, config.wait_rules, plan.by_waiter, plan.revisions)
    for obj in generated(items):
        if (obj.namespace, obj.annotations[ANN_TOPOLOGY]) not in seen:
            items.remove(obj)
            results.info(f"removed: its NFTopology {obj.annotations[ANN_TOPOLOGY]} is gone", obj)


def _report_name_clashes(planned: list[_Planned], results: Results) -> set[int]:
    """Generated items that would share a kind, namespace and name: an error per source.

    Distinct instance names can clean to one name (``UPF_1`` and ``upf-1``; topology ``a`` with
    instance ``b-c`` and topology ``a-b`` with instance ``c``). Every instance (or topology, for
    NFDeployed) involved gets an error naming the others; the ids of the topologies involved are
    returned, and none of them writes anything.
    """
    sources: dict[tuple[str, str, str], list[tuple[Topology, str, str]]] = {}
    for plan in planned:
        instances: list[Instance | None] = [*plan.topology.instances, None]  # NFDeployed last
        for data, instance in zip(plan.desired, instances, strict=True):
            meta = data["metadata"]
            key = (data["kind"], meta.get("namespace", ""), meta["name"])
            if instance is not None:
                source = (plan.topology, f"{instance.path}.name", f"instance {instance.name!r}")
            else:
                source = (plan.topology, "metadata.name", "the topology")
            sources.setdefault(key, []).append(source)
    clashing: set[int] = set()
    for (kind, _namespace, name), group in sources.items():
        if len(group) < 2:
            continue
        for index, (topology, field, what) in enumerate(group):
            others = "; ".join(
                f"{other_what} of NFTopology {other.name} ({other_field})"
                for i, (other, other_field, other_what) in enumerate(group)
                if i != index
            )
            results.error(
                f"{what} would write {kind} {name}, and so would {others}: names are "
                "cleaned to DNS labels, so rename one of them (the topologies involved "
                "write nothing)",
                topology.obj,
                field,
            )
            clashing.add(id(topology.obj))
    return clashing


def _report_matches(
    topology: KubeObject,
    instances: list[Instance],
    matched: dict[str, list[str]],
    config: Config,
    results: Results,
) -> None:
    what = "WorkloadClusters" if config.target_selector == "objectSelector" else "repositories"
    for instance in instances:
        field = f"{instance.path}.clusterSelector"
        names = matched[instance.name]
        if names:
            results.info(f"{instance.name}: matches {what} {', '.join(names)}", topology, field)
        else:
            results.warning(
                f"{instance.name}: matches none of the {what} given; Porch would create no "
                "package for it",
                topology,
                field,
            )


def generated(items: Items) -> list[KubeObject]:
    """Items this function generated (recognised by kind and the topology annotation)."""
    return [
        obj
        for obj in items
        if GENERATED_KINDS.get(obj.kind) == obj.group and ANN_TOPOLOGY in obj.annotations
    ]


def _sync(
    items: Items, topology: KubeObject, desired: list[dict[str, Any]], results: Results
) -> dict[str, int]:
    """Update this topology's generated items in place, add missing ones, remove stale ones.

    Returns how many items of each kind were created."""
    created: dict[str, int] = {}
    mine = [
        o
        for o in generated(items)
        if o.annotations[ANN_TOPOLOGY] == topology.name and o.namespace == topology.namespace
    ]
    by_key = {(o.kind, o.name): o for o in mine}
    wanted = {(d["kind"], d["metadata"]["name"]) for d in desired}
    for obj in mine:
        if (obj.kind, obj.name) not in wanted:
            items.remove(obj)
            results.info("removed: no longer generated by its NFTopology", obj)
    anchor = topology
    for data in desired:
        key = (data["kind"], data["metadata"]["name"])
        existing = by_key.get(key)
        if existing is None:
            clash = _foreign(items, data)
            if clash is not None:
                results.error(
                    f"a {data['kind']} named {key[1]} already exists and was not generated from "
                    f"NFTopology {topology.name}; rename or remove it",
                    clash,
                    "metadata.name",
                )
                continue
            obj = KubeObject.from_dict(data)
            folder = PVS_DIR if data["kind"] == PVS_KIND else NFDEPLOYED_DIR
            obj.set_path(f"{folder}/{dns_label(key[1])}.yaml")
            items.append(obj, after=anchor)
            anchor = obj
            created[data["kind"]] = created.get(data["kind"], 0) + 1
            continue
        _update(existing, data)
        if items.index(existing) > items.index(anchor):
            anchor = existing
    return created


def _foreign(items: Items, data: dict[str, Any]) -> KubeObject | None:
    namespace = data["metadata"].get("namespace", "")
    for obj in items:
        if (
            obj.kind == data["kind"]
            and obj.name == data["metadata"]["name"]
            and obj.namespace == namespace
            and GENERATED_KINDS.get(obj.kind) == obj.group
        ):
            return obj
    return None


def _update(obj: KubeObject, data: dict[str, Any]) -> None:
    """Bring a generated item to ``data``: only changed lines change; other metadata stays."""
    obj.set("apiVersion", data["apiVersion"])
    for key, value in data["metadata"]["labels"].items():
        obj.labels[key] = value
    for key, value in data["metadata"]["annotations"].items():
        obj.annotations[key] = value
    obj.set("spec", data["spec"])
