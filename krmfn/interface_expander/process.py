"""process(): expand every Interface, keep its children in sync, record Kptfile conditions."""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from typing import NamedTuple

from krmfn.nephio import NAD_API_VERSION, NAD_KIND, OWNER_ANNOTATION, condition_type
from krmlib import (
    Condition,
    Conditions,
    KrmError,
    KubeObject,
    ResourceList,
    is_kind,
    label_value_problem,
)
from krmlib.children import ChildChange, ChildSync

from .config import Config
from .dialect_choice import choose
from .dialects import Dialect, Outcome
from .inputs import (
    INTERFACE_API_VERSION,
    INTERFACE_KIND,
    NETWORK_NAME_ANNOTATION,
    Cluster,
    Request,
    find_cluster,
    read_interface,
)

PENDING = ("create", "update", "delete", "pending-delete")
CHANGES = ("create", "update", "delete")


def process(rl: ResourceList, config: Config) -> None:
    dialect = choose(rl, config)
    kptfile = rl.package().kptfile  # the rendered package's, not a subpackage's
    if kptfile is None:
        if dialect.requires_kptfile:
            rl.results.error(
                "mandatory Kptfile is missing from the package: the conditions that Nephio's "
                "functions read live in its status.conditions; nothing was changed"
            )
            return
        rl.results.warning(
            "the package has no Kptfile: children are kept in sync, but no conditions are recorded"
        )
    conditions = Conditions(kptfile)
    api_version, kind = dialect.cluster_kind
    found = find_cluster(list(rl.items), rl.results, api_version, kind)
    cluster, failure = read_cluster(rl, dialect, found)
    interfaces = list(rl.items.where(is_kind(INTERFACE_API_VERSION, INTERFACE_KIND)))
    if not interfaces:
        rl.results.info(
            f"no {INTERFACE_API_VERSION} Interface in the package: nothing to expand "
            f"(dialect {dialect.name})"
        )
    duplicates = report_duplicates(rl, interfaces)
    sync = ChildSync(
        rl.items,
        owns=dialect.owns,
        ownership=dialect.ownership,
        deletion=dialect.deletion,
        new_as_text=True,
    )
    nads = owned_nads(rl, dialect)
    created: dict[str, int] = {}
    # The Interfaces whose children record their owner in an annotation: the first five names
    # and how many (each Interface is expanded once: duplicate names are not expanded).
    annotated: list[str] = []
    annotated_count = 0
    annotation_key = ""
    for obj in interfaces:
        if obj.name in duplicates:
            continue  # error reported; its children and conditions stay as they are
        try:
            changes = expand_interface(
                rl, obj, dialect, Inputs(cluster, failure, config, nads), conditions, sync
            )
        except KrmError as exc:
            rl.results.from_error(exc)
            obj.release()
            continue
        counted = False
        for change in changes:
            if change.action == "create":
                created[change.child.kind] = created.get(change.child.kind, 0) + 1
                key = "" if counted else dialect.owner_annotation(obj)
                if key:
                    counted = True
                    annotated_count += 1
                    if len(annotated) < 5:
                        annotated.append(obj.name)
                    annotation_key = key
        obj.release()  # done with it: its values and scanned maps go (memory)
    if annotated:
        names = ", ".join(annotated) + (
            f" and {annotated_count - 5} more" if annotated_count > 5 else ""
        )
        rl.results.info(
            f"the children of Interface {names} record their owner in the annotation "
            f"{annotation_key}, not in an ownerReference: an API server rejects an "
            "ownerReference without uid, and the Interface has no metadata.uid"
        )
    if created:
        counts = ", ".join(f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in created.items())
        rl.results.info(f'created {counts} (each with a "False" condition in the Kptfile)')
    orphans = sync.collect_orphans((INTERFACE_API_VERSION, INTERFACE_KIND))
    sync.apply()
    del sync  # its indexes (thousands of children's identities) are not needed any more
    for change in orphans:
        why = f"its Interface {change.owner.name} is gone"
        record_child(rl, dialect, conditions, change, why, replaces=[])
    forget_gone_interfaces(rl, dialect, conditions, interfaces, nads)
    conditions.flush()


class Inputs(NamedTuple):
    """What every Interface is expanded with."""

    cluster: Cluster | None
    failure: str  # Nephio: why the cluster cannot be used ('' when it can)
    config: Config
    nads: dict[str, list[KubeObject]]  # condkptsdk: Interface name → the NADs it owns


def read_cluster(
    rl: ResourceList, dialect: Dialect, found: KubeObject | None
) -> tuple[Cluster | None, str]:
    """The cluster's values; for Nephio an unusable cluster is a failure message, not an error."""
    if found is None:
        return None, ""
    try:
        return dialect.read_cluster(found), ""
    except KrmError as exc:
        if not dialect.failures_are_conditions:
            raise
        rl.results.warning(
            f"{exc.message}: no Interface is expanded until the {found.kind} is filled in "
            "(each Interface's condition in the Kptfile says so)",
            found,
            exc.field,
        )
        return None, exc.message


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
    inputs: Inputs,
    conditions: Conditions,
    sync: ChildSync,
) -> list[ChildChange]:
    """Sync one Interface's children and conditions; KrmError leaves its children untouched."""
    req = read_interface(obj, rl.results)
    interface_type = dialect.interface_type(req.name)
    if inputs.failure:  # Nephio: the cluster is unusable; children and their conditions stay
        outcome = Outcome(expanded=False, failure=inputs.failure)
        condition = dialect.interface_condition(req.name, outcome, conditions.get(interface_type))
        if condition is not None:
            conditions.set(condition)
        return []
    desired, failure, why = plan(rl, obj, req, dialect, inputs)
    expanded = not failure and (inputs.cluster is not None or req.default_network)
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
    if dialect.condkptsdk:
        replace_updated(changes, desired)
    needs_nad = expanded and req.needs_nad
    nad_type = dialect.nad_type(obj)
    nad_status = conditions.status(nad_type)
    child_statuses = [conditions.status(dialect.child_type(c.child)) for c in changes]
    drop_nad = nad_status is not None and not needs_nad
    if not dialect.failures_are_conditions:
        drop_nad = drop_nad and not req.needs_nad and nad_status == "False"
    stale_nads = [] if needs_nad else inputs.nads.get(req.name, [])
    outcome = Outcome(
        expanded=expanded,
        children=len(desired),
        failure=failure,
        changed=any(c.action in CHANGES for c in changes)
        or None in child_statuses
        or (needs_nad and nad_status is None)
        or drop_nad
        or bool(stale_nads),
        ready=expanded
        and all(c.action not in PENDING for c in changes)
        and all(status == "True" for status in child_statuses)
        and (not needs_nad or nad_status == "True"),
    )
    before = conditions.get(interface_type)
    condition = dialect.interface_condition(req.name, outcome, before)
    if condition is not None:
        conditions.set(condition)
    if dialect.writes_status and outcome.ready and (before is None or before.status != "True"):
        rl.results.info(
            f"Interface {req.name} is ready: every child condition is True, the claims' status "
            "is copied to its status and its condition set True",
            obj,
        )
    nad_request = nad_type if needs_nad else None
    record_children(rl, dialect, conditions, changes, why, req.name, nad_request)
    if drop_nad and not stale_nads:
        conditions.remove(nad_type)
    for nad in stale_nads:
        retire_nad(rl, dialect, conditions, nad, req.name, why)
    if dialect.writes_status and outcome.ready:
        copy_claim_status(obj, [c.child for c in changes])
    return changes


def plan(
    rl: ResourceList, obj: KubeObject, req: Request, dialect: Dialect, inputs: Inputs
) -> tuple[list[KubeObject], str, str]:
    """(desired children, failure message for the Interface's condition, why others go)."""
    cluster = inputs.cluster
    if cluster is None and (dialect.failures_are_conditions or not req.default_network):
        rl.results.warning(
            f"Interface {req.name} is not expanded: the package has no "
            f"{' '.join(dialect.cluster_kind)}",
            obj,
        )
        failure = dialect.missing_cluster() if dialect.failures_are_conditions else ""
        return [], failure, f"the package has no {dialect.cluster_kind[1]}"
    if req.default_network or cluster is None:
        return [], "", f"Interface {req.name} uses the default network"
    mismatch = dialect.cni_mismatch(req.cni_type, cluster) if req.cni_type else None
    if mismatch is not None:
        if dialect.cni_policy == "error":
            raise KrmError(mismatch, obj=obj, field="spec.cniType")
        if dialect.cni_policy == "warning":
            rl.results.warning(mismatch, obj, "spec.cniType")
        else:
            where = f"{cluster.obj.kind} {cluster.obj.name}"
            rl.results.warning(
                f"Interface {req.name} is not expanded: cniType {req.cni_type} is not in the "
                f"{where} spec.cnis ({', '.join(cluster.cnis)}); its Kptfile condition says so",
                obj,
                "spec.cniType",
            )
            return [], mismatch, f"the {where} does not support cniType {req.cni_type}"
    if len(req.families) > 1 and not dialect.families:
        rl.results.warning(
            f"the {dialect.name} IPAllocation has no address family: one IPAllocation is requested",
            obj,
            "spec.ipFamilyPolicy",
        )
    desired = dialect.children(obj, req, cluster, inputs.config)
    for child in desired:
        check_selector(child, obj, cluster)
    return desired, "", f"no longer needed by Interface {req.name}"


# Where each selector label's value comes from: (on the cluster object?, its field).
_SELECTOR_SOURCES = {
    "nephio.org/site": (True, "spec.siteCode"),
    "nephio.org/region": (True, "spec.region"),
    "nephio.org/cluster-name": (True, "spec.clusterName"),
    "nephio.org/network-name": (False, f'metadata.annotations["{NETWORK_NAME_ANNOTATION}"]'),
}


# Label values found valid: the same site, region and network names on thousands of claims
# (bounded: no memory per item).
_GOOD_LABEL_VALUES: dict[str, None] = {}


def check_selector(child: KubeObject, interface: KubeObject, cluster: Cluster) -> None:
    """The claim's ``spec.selector.matchLabels`` values are label values (the IPAM controller
    parses the selector with Kubernetes' rules): else a KrmError on the item and field the value
    comes from, before anything is written."""
    labels = child.get("spec.selector.matchLabels") or {}
    for key, value in labels.items() if isinstance(labels, dict) else ():
        text = str(value)
        if text in _GOOD_LABEL_VALUES:
            continue
        problem = label_value_problem(text)
        if problem is None:
            if len(_GOOD_LABEL_VALUES) >= 256:
                _GOOD_LABEL_VALUES.clear()
            _GOOD_LABEL_VALUES[text] = None
            continue
        on_cluster, field = _SELECTOR_SOURCES.get(key, (False, "spec"))
        source = cluster.obj if on_cluster else interface
        import json  # a refusal only

        raise KrmError(
            f"{source.kind} {source.name}: {field} {json.dumps(str(value), ensure_ascii=False)} "
            f"would be the {child.kind}'s selector label {key}, which is not a label value: "
            f"{problem}",
            obj=source,
            field=field,
        )


def record_children(
    rl: ResourceList,
    dialect: Dialect,
    conditions: Conditions,
    changes: list[ChildChange],
    why: str,
    owner: str,
    nad_type: str | None,
) -> None:
    """The children's conditions (and the NAD request), in the dialect's order."""
    steps: list[tuple[int, int, ChildChange | None]] = [
        (dialect.condition_order(c.child.kind), i, c) for i, c in enumerate(changes)
    ]
    if nad_type is not None:
        steps.append((dialect.condition_order(NAD_KIND), len(changes), None))
    for _, _, change in sorted(steps, key=lambda step: step[:2]):
        if change is None:
            assert nad_type is not None
            conditions.ensure(
                Condition(nad_type, "False", dialect.reason(owner), dialect.nad_requested(owner))
            )
            continue
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


def copy_claim_status(obj: KubeObject, children: list[KubeObject]) -> None:
    """Nephio: each IPClaim's status (with a prefix) into ``status.ipClaimStatus`` (claims in
    name order), the VLANClaim's into ``status.vlanClaimStatus``; nfdeploy-fn reads them."""
    ip_status = [
        status
        for child in sorted(children, key=lambda c: c.name)
        if child.kind == "IPClaim"
        and isinstance(status := child.get("status"), dict)
        and status.get("prefix")
    ]
    vlan_status = [
        status
        for child in children
        if child.kind == "VLANClaim" and isinstance(status := child.get("status"), dict) and status
    ]
    if ip_status and obj.get("status.ipClaimStatus") != ip_status:
        obj.set("status.ipClaimStatus", ip_status)
    if vlan_status and obj.get("status.vlanClaimStatus") != vlan_status[-1]:
        obj.set("status.vlanClaimStatus", vlan_status[-1])


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
        conditions.ensure(Condition(type_, "False", reason, dialect.condition_missing(child)))


def owned_nads(rl: ResourceList, dialect: Dialect) -> dict[str, list[KubeObject]]:
    """condkptsdk dialects: the NetworkAttachmentDefinitions that name an Interface in
    ``specializer.nephio.org/owner`` (as nad-fn writes them), by Interface name."""
    out: dict[str, list[KubeObject]] = {}
    if not dialect.condkptsdk:
        return out
    interface = f"{INTERFACE_API_VERSION}.{INTERFACE_KIND}"
    for nad in rl.items.where(is_kind(NAD_API_VERSION, NAD_KIND)):
        owner = nad.annotations.get(OWNER_ANNOTATION, "")
        if owner.startswith(interface + "."):
            out.setdefault(owner[len(interface) + 1 :], []).append(nad)
    return out


def replace_updated(changes: list[ChildChange], desired: list[KubeObject]) -> None:
    """condkptsdk: a child whose spec changed (or that was marked for deletion and is wanted
    again) becomes the desired object: the desired annotations and status (``{}``: the IPAM
    controller allocates again), its spec already rewritten. Keys added by hand stay."""
    wanted = {(c.kind, c.name): c for c in desired}
    for change in changes:
        want = wanted.get((change.child.kind, change.child.name))
        if change.action != "update" or want is None:
            continue
        child = change.child
        for key, value in want.annotations.items():
            if child.annotations.get(key) != value:
                child.set(("metadata", "annotations", key), value)
        status = want.get("status")
        if status is None:
            child.delete("status")
        elif child.get("status") != status:
            child.set("status", status)


def retire_nad(
    rl: ResourceList,
    dialect: Dialect,
    conditions: Conditions,
    nad: KubeObject,
    owner: str,
    why: str,
) -> None:
    """condkptsdk: a NAD its Interface no longer needs (or whose Interface is gone) is marked
    for deletion and its condition set "False" ``delete resource``, as interface-fn does."""
    if not dialect.deletion.is_marked(nad):
        dialect.deletion.mark(nad)
        rl.results.info(f"marked for deletion: {why}", nad)
    type_ = condition_type(NAD_API_VERSION, NAD_KIND, nad.name)
    conditions.set(Condition(type_, "False", dialect.reason(owner), dialect.deleted(nad, why)))


def forget_gone_interfaces(
    rl: ResourceList,
    dialect: Dialect,
    conditions: Conditions,
    present: list[KubeObject],
    nads: dict[str, list[KubeObject]],
) -> None:
    """The conditions of Interfaces that left the package.

    The design drops them (a fulfilled NAD one stays). Nephio's condkptsdk (ready path) keeps
    the Interface's own condition, marks the NADs it owned for deletion (their conditions
    "False" ``delete resource``) and drops a NAD condition without a NAD object.
    """
    names = {obj.name for obj in present}
    retired: set[str] = set()
    for owner, owned in nads.items():
        if owner in names:
            continue
        for nad in owned:
            retire_nad(rl, dialect, conditions, nad, owner, f"its Interface {owner} is gone")
            retired.add(condition_type(NAD_API_VERSION, NAD_KIND, nad.name))
    # The Interface conditions, less those of the Interfaces present (a dict of the types
    # held already, not a set of thousands of new strings: memory).
    gone = dict.fromkeys(t for t in conditions.types() if dialect.is_interface_condition(t))
    for obj in present:
        gone.pop(dialect.interface_type(obj.name), None)
        gone.pop(dialect.nad_type(obj), None)
    for type_ in gone:
        if type_ in retired:
            continue
        if dialect.condkptsdk:
            if dialect.is_nad_condition(type_):
                conditions.remove(type_)
            continue
        if dialect.is_nad_condition(type_) and conditions.status(type_) == "True":
            continue
        conditions.remove(type_)
