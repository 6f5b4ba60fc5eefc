"""process(): NFTopology in; PackageVariantSets, NFDeployed and gate conditions out."""

from __future__ import annotations

from typing import Any

from krmlib import KubeObject, ResourceList, Results
from krmlib.children import ChildChange, ChildSync, OwnerNameAnnotation, RemoveChild

from .catalog import PackageIndex, held_elsewhere, index_revisions, pin_workspace
from .config import Config
from .deployed import (
    NFDEPLOYED_API_VERSION,
    NFDEPLOYED_DIR,
    NFDEPLOYED_KIND,
    desired_nfdeployed,
    entries,
)
from .downstream import package_name, package_problem
from .gates import Gate, apply_gates, gates
from .labelselector import clean, may_overlap, pinned
from .naming import dns_label
from .porch import (
    Revision,
    matching_targets,
    other_mode,
    package_revisions,
    repositories,
    revisions_of,
    target_objects,
)
from .pvs import (
    ANN_TOPOLOGY,
    CAPACITY_API_VERSION,
    CAPACITY_FIELDS,
    CAPACITY_KIND,
    PVS_API_VERSION,
    PVS_DIR,
    PVS_KIND,
    desired_pvs,
)
from .topology import (
    GROUPS,
    TOPOLOGY_KIND,
    Instance,
    Topology,
    class_objects,
    read_topology,
    topologies,
)

GENERATED = ((PVS_API_VERSION, PVS_KIND), (NFDEPLOYED_API_VERSION, NFDEPLOYED_KIND))
"""The generated kinds, recognised by group and kind (any version: an older one is updated)."""

OWNERSHIP = OwnerNameAnnotation(ANN_TOPOLOGY, TOPOLOGY_KIND, GROUPS)
"""A generated item names its NFTopology (either group) in one annotation, by name only."""


class _Planned:
    """One readable topology with everything it would write, before anything is written."""

    __slots__ = ("by_waiter", "desired", "matched", "revisions", "topology")

    def __init__(
        self,
        topology: Topology,
        desired: list[dict[str, Any]],
        by_waiter: dict[str, list[Gate]],
        revisions: dict[str, list[Revision]],
        matched: dict[str, list[str]] | None,
    ) -> None:
        self.topology = topology
        self.desired = desired
        self.by_waiter = by_waiter
        self.revisions = revisions
        self.matched = matched  # instance → the targets (downstream repositories) it selects


def process(rl: ResourceList, config: Config) -> None:
    items, results = rl.items, rl.results
    classes = class_objects(items)
    revisions_in = package_revisions(items)
    targets_in = target_objects(items, config)
    repositories_in = repositories(items)
    mismatch = other_mode(items, config)
    if mismatch is not None:
        results.warning(mismatch, rl.function_config, config.field_path("targetSelector"))
    seen: set[tuple[str, str]] = set()
    planned: list[_Planned] = []
    by_package = index_revisions(revisions_in)
    unpinnable: set[int] = set()  # topologies naming a class revision the catalog lacks
    warned: set[int] = set()  # classes already reported
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
            if config.target_selector == "objectSelector" and repositories_in:
                _report_missing_repositories(topology, matched, repositories_in, results)
        by_waiter = gates(topology, config.wait_rules)
        pins: dict[str, str | None] = {}
        for i in topology.instances:
            ok, pins[i.name] = pin_workspace(i.nf_class, by_package, config, results, warned)
            if not ok:
                unpinnable.add(id(obj))
            if matched is not None:
                _report_held(topology, i, matched[i.name], by_package, config, results)
            if config.capacity_mode == "capacityResource":
                _report_capacity(topology, i, results)
        desired = [
            desired_pvs(
                topology,
                i,
                config,
                [g.condition_type for g in by_waiter.get(i.name, [])],
                pins[i.name],
            )
            for i in topology.instances
        ]
        listed = entries(topology, config, revisions, matched)
        desired.append(desired_nfdeployed(topology, listed))
        planned.append(_Planned(topology, desired, by_waiter, revisions, matched))
    clashing = _report_name_clashes(planned, results)
    clashing |= _report_refused_clones(planned, config, results)
    clashing |= unpinnable
    if not seen:
        results.info(
            "no NFTopology (topology.nephio.org or req.nephio.org) in the package: nothing to "
            "generate"
        )
    sync = ChildSync(
        items,
        owns=GENERATED,
        ownership=OWNERSHIP,
        deletion=RemoveChild(),
        compare=("apiVersion", "spec"),
        merge=("metadata.labels", "metadata.annotations"),  # hand-added keys stay
        namespaced=True,
        any_version=True,
        in_desired_order=True,
    )
    for plan in planned:
        if id(plan.topology.obj) in clashing:
            continue  # errors reported; its generated items stay as they are
        changes = sync.sync(plan.topology.obj, [_new_item(data) for data in plan.desired])
        _report_changes(plan.topology.obj, changes, results)
        apply_gates(plan.topology, config.wait_rules, plan.by_waiter, plan.revisions)
    for change in sync.collect_orphans(("", TOPOLOGY_KIND)):
        results.info(f"removed: its NFTopology {change.owner.name} is gone", change.child)
    sync.apply()


def _new_item(data: dict[str, Any]) -> KubeObject:
    """A generated item, in its kind's folder."""
    obj = KubeObject.from_dict(data)
    folder = PVS_DIR if obj.kind == PVS_KIND else NFDEPLOYED_DIR
    obj.set_path(f"{folder}/{dns_label(obj.name)}.yaml")
    return obj


def _report_changes(topology: KubeObject, changes: list[ChildChange], results: Results) -> None:
    """Removed items first, then names taken by items not generated here, then a count."""
    for change in changes:
        if change.action == "remove":
            results.info("removed: no longer generated by its NFTopology", change.child)
    created: dict[str, int] = {}
    for change in changes:
        kind = change.child.kind
        if change.action == "conflict":
            results.error(
                f"a {kind} named {change.child.name} already exists and was not generated from "
                f"NFTopology {topology.name}; rename or remove it",
                change.child,
                "metadata.name",
            )
        elif change.action == "create":
            created[kind] = created.get(kind, 0) + 1
    if created:
        counts = ", ".join(
            f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in sorted(created.items())
        )
        results.info(f"created {counts}", topology)


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


def _report_capacity(topology: Topology, instance: Instance, results: Results) -> None:
    """Capacity fields a Nephio Capacity does not have reach no blueprint: a warning."""
    unknown = [key for key in instance.capacity if key not in CAPACITY_FIELDS]
    if unknown:
        results.warning(
            f"{instance.name}: capacity {', '.join(unknown)} is not a field of "
            f"{CAPACITY_API_VERSION} {CAPACITY_KIND} ({', '.join(CAPACITY_FIELDS)}): "
            "capacityMode capacityResource does not carry it",
            topology.obj,
            f"{instance.path}.nfTemplate.capacity",
        )


def _report_held(
    topology: Topology,
    instance: Instance,
    matched: list[str],
    revisions: PackageIndex,
    config: Config,
    results: Results,
) -> None:
    """Targets that already hold the downstream package (a PackageRevision not made by this set).

    Porch refuses that clone under the default ``adoptionPolicy: adoptNone`` and the variant
    stalls, with the error only in its status (porch 74d82d5, packagevariant_controller.go).
    """
    held = held_elsewhere(topology, instance, matched, revisions, config)
    if not held:
        return
    name = package_name(topology, instance, config)
    field = f"{instance.path}.clusterSelector"
    if config.adoption_policy == "adoptExisting":
        results.info(
            f"{instance.name}: {', '.join(held)} already hold package {name}: the variant adopts "
            "it (adoptionPolicy: adoptExisting)",
            topology.obj,
            field,
        )
        return
    results.warning(
        f"{instance.name}: {', '.join(held)} already hold package {name}, not made by this set: "
        "Porch refuses the clone (adoptionPolicy adoptNone) and the variant stalls; set "
        "adoptionPolicy: adoptExisting to adopt it, or downstreamPackage to clone beside it",
        topology.obj,
        field,
    )


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


def _report_missing_repositories(
    topology: Topology,
    matched: dict[str, list[str]],
    repository_objects: list[KubeObject],
    results: Results,
) -> None:
    """objectSelector targets whose WorkloadCluster has no Repository of the same name.

    Porch clones into the Repository named after the target and stalls the whole set when there
    is none (render.go: "repository ... could not be loaded", porch 74d82d5). The Repository is
    cluster state that may still be on its way, so this is a warning, not an error.
    """
    names = {
        obj.name
        for obj in repository_objects
        if not (topology.namespace and obj.namespace and obj.namespace != topology.namespace)
    }
    for instance in topology.instances:
        missing = [name for name in matched[instance.name] if name not in names]
        if missing:
            results.warning(
                f"{instance.name}: WorkloadCluster {', '.join(missing)} has no Repository of the "
                "same name: Porch clones into that Repository and stalls the whole "
                "PackageVariantSet (no package for any cluster) until it exists",
                topology.obj,
                f"{instance.path}.clusterSelector",
            )


def _report_refused_clones(planned: list[_Planned], config: Config, results: Results) -> set[int]:
    """Downstream package names Porch refuses, and two instances cloned into one package.

    Porch refuses a package name that is not a DNS-1123 label, and a clone into a repository that
    already has a package of that name (pkg/engine/engine.go validateCloneTask, porch 74d82d5): two
    instances (of one topology or of two, in one namespace) with the same downstream package that
    land on one repository. With Repository (WorkloadCluster) inputs the repositories are known;
    without them, equal selectors always land together (an error) and selectors that may overlap
    get a warning. Returns the ids of the topologies with an error: they write nothing.
    """
    clashing: set[int] = set()
    # by (namespace, downstream package): only instances of one group can collide
    landings: dict[tuple[str, str], list[tuple[_Planned, Instance]]] = {}
    for plan in planned:
        for instance in plan.topology.instances:
            name = package_name(plan.topology, instance, config)
            problem = package_problem(name)
            if problem is not None:
                results.error(
                    f"{instance.name}: Porch would refuse its downstream package name: {problem} "
                    f"(made from downstreamPackage {config.downstream_package!r}); shorten the "
                    "names or change downstreamPackage",
                    plan.topology.obj,
                    f"{instance.path}.name",
                )
                clashing.add(id(plan.topology.obj))
                continue
            landings.setdefault((plan.topology.namespace, name), []).append((plan, instance))
    for (_namespace, name), group in landings.items():
        for first, second in _may_land_together(group):
            (plan, instance), (other_plan, other) = group[first], group[second]
            severity, where = _landing_together(plan, instance, other_plan, other)
            if severity is None:
                continue
            for (p, i), (q, j) in (
                ((plan, instance), (other_plan, other)),
                ((other_plan, other), (plan, instance)),
            ):
                other_one = f"{j.name} of NFTopology {q.topology.name} ({j.path})"
                if severity == "error":
                    head = f"{i.name} would clone package {name} into {where}, and so would "
                    head += other_one
                else:
                    head = (
                        f"{i.name} and {other_one} may both clone package {name} into one "
                        "repository (their selectors may match the same ones; give the "
                        "Repositories as inputs to know)"
                    )
                message = (
                    f"{head}: Porch refuses the second clone; set downstreamPackage: "
                    '"{topology}-{instance}" or make the selectors disjoint'
                )
                if severity == "error":
                    results.error(message, p.topology.obj, f"{i.path}.clusterSelector")
                    clashing.add(id(p.topology.obj))
                else:
                    results.warning(message, p.topology.obj, f"{i.path}.clusterSelector")
    return clashing


def _may_land_together(group: list[tuple[_Planned, Instance]]) -> list[tuple[int, int]]:
    """The pairs (i < j, in order) of ``group`` for which :func:`_landing_together` may answer
    other than None; every pair left out answers None.

    Asking every pair was quadratic: an NFTopology of 4,000 instances of one package took 32 s
    (each instance selecting its own cluster). Pairs whose targets are both known land together
    only on a common repository (indexed by repository); other pairs only when their selectors
    may overlap, never when they pin one key to different values (split by such keys).
    """
    known = [plan.matched is not None for plan, _instance in group]
    pairs: set[tuple[int, int]] = set()
    by_repository: dict[str, list[int]] = {}
    for index, (plan, instance) in enumerate(group):
        if plan.matched is not None:
            for repository in set(plan.matched[instance.name]):
                by_repository.setdefault(repository, []).append(index)
    for members in by_repository.values():
        pairs.update(_all_pairs(members))
    pins = [pinned(instance.selector) for _plan, instance in group]
    for first, second in _unpinned_pairs(list(range(len(group))), pins):
        if not (known[first] and known[second]):
            pairs.add((first, second))
    return sorted(pairs)


def _all_pairs(members: list[int]) -> list[tuple[int, int]]:
    return [(a, b) for index, a in enumerate(members) for b in members[index + 1 :]]


def _unpinned_pairs(members: list[int], pins: list[dict[str, str]]) -> list[tuple[int, int]]:
    """The pairs of ``members`` (indices, ascending) not told apart by a key both pin to
    different values: split by the key most of them pin, per value, the unpinned ones paired
    with all (a stack, not recursion: thousands of instances)."""
    out: list[tuple[int, int]] = []
    stack: list[tuple[list[int], frozenset[str]]] = [(members, frozenset())]
    while stack:
        group, used = stack.pop()
        counts: dict[str, int] = {}
        for member in group:
            for pin in pins[member]:
                if pin not in used:
                    counts[pin] = counts.get(pin, 0) + 1
        key = max(counts, key=lambda k: (counts[k], k), default=None)
        if key is None or counts[key] < 2:
            out.extend(_all_pairs(group))
            continue
        buckets: dict[str, list[int]] = {}
        loose: list[int] = []
        for member in group:
            value = pins[member].get(key)
            if value is None:
                loose.append(member)
            else:
                buckets.setdefault(value, []).append(member)
        for bucket in buckets.values():
            stack.append((bucket, used | {key}))
            out.extend((min(a, b), max(a, b)) for a in loose for b in bucket)
        stack.append((loose, used | {key}))
    return out


def _landing_together(
    plan: _Planned, instance: Instance, other_plan: _Planned, other: Instance
) -> tuple[str | None, str]:
    """(severity, where) for two instances with one downstream package name: ``error`` when they
    land on a common repository, ``warning`` when they may, None when they cannot."""
    if plan.matched is not None and other_plan.matched is not None:
        common = sorted(set(plan.matched[instance.name]) & set(other_plan.matched[other.name]))
        return ("error" if common else None), f"repository {', '.join(common)}"
    if clean(instance.selector) == clean(other.selector):
        return "error", "every repository their (equal) selectors match"
    if may_overlap(instance.selector, other.selector):
        return "warning", ""
    return None, ""
