"""process(): expand every Interface, keep its children in sync, record Kptfile conditions."""

from __future__ import annotations

from krmlib import Condition, Conditions, KrmError, KubeObject, ResourceList, is_kind
from krmlib.children import ChildChange, ChildSync

from .config import Config
from .dialects import DIALECTS, Dialect
from .inputs import (
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
    Cluster,
    find_cluster,
    read_interface,
)

PENDING = ("create", "update", "delete", "pending-delete")


def process(rl: ResourceList, config: Config) -> None:
    dialect = DIALECTS[config.dialect]
    kptfile = rl.items.kptfile
    if kptfile is None:
        rl.results.warning(
            "the package has no Kptfile: children are kept in sync, but no conditions are recorded"
        )
    conditions = Conditions(kptfile)
    api_version, kind = dialect.cluster_kind
    found = find_cluster(list(rl.items), rl.results, api_version, kind)
    cluster = dialect.read_cluster(found) if found is not None else None
    interfaces = list(rl.items.where(is_kind(INTERFACE_API_VERSION, INTERFACE_KIND)))
    duplicates = report_duplicates(rl, interfaces)
    sync = ChildSync(
        rl.items, owns=dialect.owns, ownership=dialect.ownership, deletion=dialect.deletion
    )
    created: dict[str, int] = {}
    for obj in interfaces:
        if obj.name in duplicates:
            continue  # error reported; its children and conditions stay as they are
        try:
            changes = expand_interface(rl, obj, dialect, cluster, config, conditions, sync)
        except KrmError as exc:
            rl.results.from_error(exc)
            continue
        for change in changes:
            if change.action == "create":
                created[change.child.kind] = created.get(change.child.kind, 0) + 1
    if created:
        counts = ", ".join(f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in created.items())
        rl.results.info(f'created {counts} (each with a "False" condition in the Kptfile)')
    orphans = sync.collect_orphans((INTERFACE_API_VERSION, INTERFACE_KIND))
    sync.apply()
    for change in orphans:
        why = f"its Interface {change.owner.name} is gone"
        record_child(rl, dialect, conditions, change, why, replaces=[])
    forget_gone_interfaces(dialect, conditions, {obj.name for obj in interfaces})
    conditions.flush()


def report_duplicates(rl: ResourceList, interfaces: list[KubeObject]) -> set[str]:
    """Names held by more than one Interface, each of them with an error result.

    Children are matched to their Interface by name only (not namespace), so two Interfaces of
    one name, in any namespaces, would fight over the same children: none of them is expanded.
    """
    by_name: dict[str, list[KubeObject]] = {}
    for obj in interfaces:
        by_name.setdefault(obj.name, []).append(obj)
    duplicates: set[str] = set()
    for name, group in by_name.items():
        if len(group) < 2:
            continue
        duplicates.add(name)
        for obj in group:
            others = ", ".join(where(other) for other in group if other is not obj)
            rl.results.error(
                f"duplicate Interface name {name!r}: also used by the Interface in {others}; "
                "Interface names must be unique in the package (whatever the namespace), so "
                "none of them is expanded: rename or remove one",
                obj,
                "metadata.name",
            )
    return duplicates


def where(obj: KubeObject) -> str:
    """The file of an item (and its namespace when it has one), for a message."""
    text = obj.path or "an item without a path annotation"
    return f"{text} (namespace {obj.namespace})" if obj.namespace else text


def expand_interface(
    rl: ResourceList,
    obj: KubeObject,
    dialect: Dialect,
    cluster: Cluster | None,
    config: Config,
    conditions: Conditions,
    sync: ChildSync,
) -> list[ChildChange]:
    """Sync one Interface's children and conditions; KrmError leaves its children untouched."""
    req = read_interface(obj, rl.results)
    desired: list[KubeObject] = []
    expanded = True
    if req.default_network:
        why = f"Interface {req.name} uses the default network"
    elif cluster is None:
        expanded = False
        why = f"the package has no {dialect.cluster_kind[1]}"
        rl.results.warning(
            f"Interface {req.name} is not expanded: the package has no "
            f"{' '.join(dialect.cluster_kind)}",
            obj,
        )
    else:
        check_cni(rl, obj, req.cni_type, cluster, dialect)
        if len(req.families) > 1 and not dialect.families:
            rl.results.warning(
                f"the {dialect.name} IPAllocation has no address family: one IPAllocation is "
                "requested",
                obj,
                "spec.ipFamilyPolicy",
            )
        desired = dialect.children(obj, req, cluster, config)
        why = f"no longer needed by Interface {req.name}"
    changes = sync.sync(obj, desired)
    for change in changes:
        if change.action == "conflict":
            rl.results.error(
                f"{change.child.kind} {change.child.name} already exists and is not owned by "
                f"Interface {req.name}: rename or remove it",
                change.child,
                "metadata.name",
            )
    changes = [c for c in changes if c.action != "conflict"]
    needs_nad = expanded and req.needs_nad
    nad_type = dialect.nad_type(req.name)
    ready = all(
        c.action not in PENDING and conditions.status(dialect.child_type(c.child)) == "True"
        for c in changes
    ) and (not needs_nad or conditions.status(nad_type) == "True")
    conditions.set(dialect.interface_condition(req.name, expanded, len(desired), ready))
    for change in changes:
        same_kind = [c for c in changes if c.child.kind == change.child.kind]
        if change.action == "create":
            replaces = [c.child.name for c in same_kind if c.action == "delete"]
            record_child(rl, dialect, conditions, change, why, replaces)
        elif change.action == "delete":
            created = [c.child.name for c in same_kind if c.action == "create"]
            reason = f"replaced by {', '.join(created)}" if created else why
            record_child(rl, dialect, conditions, change, reason, replaces=[])
        else:
            record_child(rl, dialect, conditions, change, why, replaces=[])
    if needs_nad:
        conditions.ensure(
            Condition(nad_type, "False", dialect.reason(req.name), dialect.nad_requested(req.name))
        )
    elif not req.needs_nad and conditions.status(nad_type) == "False":
        conditions.remove(nad_type)
    return changes


def check_cni(
    rl: ResourceList, obj: KubeObject, cni_type: str, cluster: Cluster, dialect: Dialect
) -> None:
    """A cniType the cluster lacks: a warning (design) or an error (Nephio dialects)."""
    message = dialect.cni_mismatch(cni_type, cluster) if cni_type else None
    if message is None:
        return
    if dialect.strict_cluster:
        raise KrmError(message, obj=obj, field="spec.cniType")
    rl.results.warning(message, obj, "spec.cniType")


def record_child(
    rl: ResourceList,
    dialect: Dialect,
    conditions: Conditions,
    change: ChildChange,
    why: str,
    replaces: list[str],
) -> None:
    """The child's condition: "False" when it changed; added if missing; else left alone."""
    child = change.child
    if change.action == "update":
        rl.results.info(f"updated for Interface {change.owner.name}", child)
    elif change.action == "delete":
        rl.results.info(f"marked for deletion: {why}", child)
    type_ = dialect.child_type(child)
    reason = dialect.reason(change.owner.name)
    if change.action == "create":
        conditions.set(Condition(type_, "False", reason, dialect.created(child, replaces)))
    elif change.action == "update":
        conditions.set(Condition(type_, "False", reason, dialect.updated(child)))
    elif change.action == "delete":
        conditions.set(Condition(type_, "False", reason, dialect.deleted(child, why)))
    elif change.action == "pending-delete":
        conditions.ensure(Condition(type_, "False", reason, dialect.deleted(child, why)))
    else:
        conditions.ensure(Condition(type_, "False", reason, dialect.created(child, [])))


def forget_gone_interfaces(dialect: Dialect, conditions: Conditions, present: set[str]) -> None:
    """Drop the conditions of Interfaces that left the package (a fulfilled NAD one stays)."""
    keep = {dialect.interface_type(n) for n in present} | {dialect.nad_type(n) for n in present}
    for type_ in conditions.types():
        if type_ in keep or not dialect.is_interface_condition(type_):
            continue
        if dialect.is_nad_condition(type_) and conditions.status(type_) == "True":
            continue
        conditions.remove(type_)
