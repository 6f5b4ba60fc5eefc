"""Nephio's condition choreography (condkptsdk), shared by dnn-generator and nfdeploy.

A function is configured with a *for* kind, the kinds it *owns* (each a :data:`ChildKind`) and
the kinds it *watches* (a callback per object), plus two callbacks: ``populate(for object) ->
desired children`` (stage 1) and ``update(for object, owned children)`` (stage 2, editing the for
object in place). :class:`Specializer` then plays condkptsdk's run on a ResourceList: the Kptfile
conditions are the state machine, one condition per for object and per child, the child's
``reason`` naming its for object; children carry ``specializer.nephio.org/owner``.

Read from nephio-project/nephio ``krm-functions/lib/condkptsdk`` (sdk.go, sdk_populate_inventory.go,
inventory_diff.go, inventory_ready.go, sdk_stage1_*.go, sdk_stage2.go, sdk_updates.go,
condition.go) and ``krm-functions/lib/kptfile/v1/kptfile.go`` at a29054b; the summary with its
quirks is ``../shared/spec/specialize.md`` section 1. The inventory keeps its own copy of each
condition, updated where condkptsdk updates it (not by every Kptfile write): stage 2's readiness
reads that copy, as upstream does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from krmlib import (
    Condition,
    Conditions,
    KrmError,
    KubeObject,
    ResourceList,
    add_readiness_gate,
    get_readiness_gates,
)
from krmlib.children import default_child_path

from .nephio import (
    DELETE_ANNOTATION,
    INFRA_API_VERSION,
    OWNER_ANNOTATION,
    WORKLOAD_CLUSTER_KIND,
    WorkloadCluster,
    condition_type,
    read_workload_cluster,
)

ChildKind = Literal["remote", "local", "initial", "remote-condition"]
GVK = tuple[str, str]  # (apiVersion, kind)
Ref = tuple[str, str, str]  # (apiVersion, kind, name)

SPECIALIZE = "nephio.org.Specializer.specialize"  # the package's readiness gate (Root)
MISSING_KPTFILE = "mandatory Kptfile is missing from the package"


class SpecializeError(Exception):
    """A callback's failure: its message goes into the for object's condition (as upstream's
    error strings do)."""

    def __init__(self, message: str, obj: KubeObject | None = None, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.obj = obj
        self.field = field


WORKLOAD_CLUSTER: GVK = (INFRA_API_VERSION, WORKLOAD_CLUSTER_KIND)
MISSING_CLUSTER = "workload cluster is missing from the kpt package"
MULTIPLE_CLUSTERS = "multiple WorkloadCluster objects found in the kpt package"


class ClusterWatch:
    """The watch on the package's one ``WorkloadCluster`` that dnn-generator and nfdeploy share
    (upstream's dnn-fn and nfdeploy-fn each keep the same one): ``watch_cluster`` is the watch
    callback, ``cluster`` what it saw."""

    __slots__ = ("cluster",)

    def __init__(self) -> None:
        self.cluster: WorkloadCluster | None = None

    def watch_cluster(self, obj: KubeObject) -> None:
        if self.cluster is not None:
            raise SpecializeError(MULTIPLE_CLUSTERS, obj)
        try:
            self.cluster = read_workload_cluster(obj)
        except KrmError as exc:
            raise SpecializeError(exc.message, obj, exc.field) from None


Populate = Callable[[KubeObject], list[KubeObject]]
Update = Callable[[KubeObject, list[KubeObject]], None]
Watch = Callable[[KubeObject], None]


def parse_reference(value: str) -> Ref | None:
    """(apiVersion, kind, name) of a condition type or owner annotation, as condkptsdk's
    ``GetGVKNFromConditionType`` splits it (the part before the first ``/`` is the group, the
    part after it must be exactly ``<version>.<Kind>.<name>``); None when it is not one."""
    group, slash, rest = value.partition("/")
    if not slash:
        group, rest = "", value
    else:
        rest = rest.split("/", 1)[0]
    parts = rest.split(".")
    if len(parts) != 3 or not all(parts):
        return None
    return f"{group}/{parts[0]}", parts[1], parts[2]


class Entry:
    """One node of the inventory: a child (or the for object itself)."""

    __slots__ = ("child_kind", "condition", "desired", "obj")

    def __init__(self, child_kind: ChildKind | None = None) -> None:
        self.child_kind = child_kind
        self.obj: KubeObject | None = None
        self.condition: Condition | None = None
        self.desired: KubeObject | None = None


class Instance(Entry):
    """A for object (or a condition or children naming one) and its children."""

    __slots__ = ("children", "failed", "name")

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.children: dict[Ref, Entry] = {}
        self.failed = False


class Diff:
    """What stage 1 does to one instance (inventory_diff.go)."""

    __slots__ = (
        "create_conditions",
        "create_objs",
        "delete_conditions",
        "delete_for_condition",
        "delete_objs",
        "undelete",
        "update_for",
        "update_objs",
    )

    def __init__(self) -> None:
        self.delete_for_condition = False
        self.update_for = False
        self.create_conditions: list[tuple[Ref, Entry]] = []
        self.delete_conditions: list[tuple[Ref, Entry]] = []
        self.create_objs: list[tuple[Ref, Entry]] = []
        self.update_objs: list[tuple[Ref, Entry]] = []
        self.delete_objs: list[tuple[Ref, Entry]] = []
        self.undelete: list[tuple[Ref, Entry]] = []


class Specializer:
    """One condkptsdk run over a ResourceList."""

    def __init__(
        self,
        rl: ResourceList,
        *,
        for_kind: GVK,
        owns: dict[GVK, ChildKind],
        watches: dict[GVK, Watch],
        populate: Populate,
        update: Update,
        root: bool = False,
        missing_for: str = "expected a for object but got nil",
    ) -> None:
        self.rl = rl
        self.for_kind = for_kind
        self.owns = owns
        self.watches = watches
        self.populate = populate
        self.update = update
        self.root = root
        self.missing_for = missing_for  # the update's error for a condition without its object
        self.ready = True
        self.instances: dict[str, Instance] = {}
        self.global_watches: list[tuple[GVK, KubeObject]] = []
        self.conditions: Conditions | None = None

    # --- the run --------------------------------------------------------------------------

    def run(self) -> None:
        """The run (krmlib's runner has the cyclic garbage collector off meanwhile)."""
        rl = self.rl
        if not len(rl.items):
            rl.results.info("no resources present in the resourcelist")
            return
        kptfile = rl.package().kptfile  # the rendered package's, not a subpackage's
        if kptfile is None:
            rl.results.error(f"{MISSING_KPTFILE}, error: {MISSING_KPTFILE}")
            return
        self.conditions = Conditions(kptfile)
        if self.root:
            if SPECIALIZE not in get_readiness_gates(kptfile):
                add_readiness_gate(kptfile, SPECIALIZE)
            self.conditions.ensure(Condition(SPECIALIZE, "False", "Specialize", "initialized"))
        self.populate_inventory()
        error = self.call_global_watches()
        if error is not None:
            if self.root:
                self.conditions.set(Condition(SPECIALIZE, "False", "Failed", error.message))
            else:
                for obj in rl.items:
                    if (obj.api_version, obj.kind) == self.for_kind:
                        self.set_failed(obj.name, error.message)
            rl.results.warning(error.message, error.obj, error.field)
        if self.ready and self.owns:
            self.populate_children()
        self.update_children()
        self.stage2()
        if self.root and self.ready:
            prefix = condition_type(*self.for_kind, "").rstrip(".")
            statuses = [
                self.conditions.status(t) for t in self.conditions.types() if t.startswith(prefix)
            ]
            if statuses and "False" not in statuses:
                self.conditions.set(Condition(SPECIALIZE, "True", "Ready"))
            else:
                self.conditions.set(Condition(SPECIALIZE, "False", "Specialize", "not ready"))
        self.conditions.flush()

    # --- the inventory --------------------------------------------------------------------

    def instance(self, name: str) -> Instance:
        found = self.instances.get(name)
        if found is None:
            found = self.instances[name] = Instance(name)
        return found

    def owner_instance(self, owner: str) -> Instance | None:
        ref = parse_reference(owner) if owner else None
        if ref is None or (ref[0], ref[1]) != self.for_kind:
            return None
        return self.instance(ref[2])

    def populate_inventory(self) -> None:
        """Conditions first (for kind: the instance's; owned kinds whose reason is a for
        object: a child's), then the objects (owner annotation instead of the reason)."""
        assert self.conditions is not None
        for type_ in self.conditions.types():
            condition = self.conditions.get(type_)
            ref = parse_reference(type_)
            if ref is None or condition is None:
                continue
            gvk = (ref[0], ref[1])
            if gvk == self.for_kind:
                self.instance(ref[2]).condition = condition
            elif gvk in self.owns and (owner := self.owner_instance(condition.reason)):
                owner.children.setdefault(ref, Entry(self.owns[gvk])).condition = condition
        for obj in self.rl.items:
            gvk = (obj.api_version, obj.kind)
            if gvk == self.for_kind:
                self.instance(obj.name).obj = obj
            elif gvk in self.owns:
                owner = self.owner_instance(obj.annotations.get(OWNER_ANNOTATION, ""))
                if owner is not None:
                    ref = (*gvk, obj.name)
                    owner.children.setdefault(ref, Entry(self.owns[gvk])).obj = obj
            elif (
                gvk in self.watches
                # bound to a for object by its owner annotation: not a global watch (such
                # bindings are not used by the functions here, see the README)
                and parse_reference(obj.annotations.get(OWNER_ANNOTATION, "")) is None
            ):
                self.global_watches.append((gvk, obj))

    def call_global_watches(self) -> SpecializeError | None:
        for gvk, obj in self.global_watches:
            try:
                self.watches[gvk](obj)
            except SpecializeError as exc:
                self.ready = False
                if exc.obj is None:
                    exc.obj = obj
                return exc
        return None

    # --- conditions, as condkptsdk writes them -------------------------------------------------

    def for_type(self, name: str) -> str:
        return condition_type(*self.for_kind, name)

    def set_for(self, instance: Instance, message: str, *, failed: bool) -> None:
        """setCondition on the for object: ``"False"`` without reason (inventory updated)."""
        assert self.conditions is not None
        condition = Condition(self.for_type(instance.name), "False", "", message)
        self.conditions.set(condition)
        instance.condition = condition
        instance.failed = failed

    def set_failed(self, name: str, message: str) -> None:
        """SetConditionRefFailed: ``"False"`` with the message, an existing reason kept (the
        Kptfile only: the inventory is not told)."""
        assert self.conditions is not None
        type_ = self.for_type(name)
        current = self.conditions.get(type_)
        self.conditions.set(Condition(type_, "False", current.reason if current else "", message))

    def child_condition(self, instance: Instance, ref: Ref, status: str, message: str) -> Condition:
        return Condition(
            condition_type(*ref),
            "True" if status == "True" else "False",
            self.for_type(instance.name),
            message,
        )

    # --- stage 1 --------------------------------------------------------------------------

    def populate_children(self) -> None:
        for instance in list(self.instances.values()):
            if instance.obj is None:
                continue
            try:
                desired = self.populate(instance.obj)
            except SpecializeError as exc:
                self.set_for(
                    instance,
                    f"stage1: cannot populate new resource err: {exc.message}",
                    failed=True,
                )
                continue
            for obj in desired:
                gvk = (obj.api_version, obj.kind)
                obj.annotations[OWNER_ANNOTATION] = self.for_type(instance.name)
                ref = (*gvk, obj.name)
                instance.children.setdefault(ref, Entry(self.owns[gvk])).desired = obj

    def diff(self, instance: Instance) -> Diff:
        diff = Diff()
        for_condition = instance.condition
        flag = for_condition is None or for_condition.status != "False"
        children = sorted(instance.children.items(), key=lambda kv: (kv[0][1], kv[0][2]))
        if instance.obj is None:
            for ref, child in children:
                diff.delete_for_condition = True
                if child.condition is not None:
                    diff.delete_conditions.append((ref, child))
                if child.obj is not None and child.child_kind != "initial":
                    diff.delete_objs.append((ref, child))
            return diff
        for ref, child in children:
            kind = child.child_kind
            if child.desired is None and child.condition is None:
                diff.update_for |= flag
                if self.ready:
                    diff.create_conditions.append((ref, child))
            elif child.desired is None:
                diff.update_for |= flag
                if kind not in ("initial", "local"):
                    diff.delete_conditions.append((ref, child))
            elif child.condition is None:
                diff.update_for |= flag
                diff.create_conditions.append((ref, child))
            if child.obj is None and child.desired is not None:
                diff.update_for |= flag
                diff.create_objs.append((ref, child))
            elif child.obj is not None and child.desired is None:
                diff.update_for |= flag
                if kind not in ("initial", "local"):
                    diff.delete_objs.append((ref, child))
            elif child.obj is not None and child.desired is not None:
                if kind == "remote-condition":
                    continue
                spec = child.obj.get("spec")
                if not isinstance(spec, dict):
                    continue  # upstream: "cannot get spec from existing obj", skipped
                if spec != child.desired.get("spec"):
                    diff.update_for |= flag
                    diff.update_objs.append((ref, child))
                if DELETE_ANNOTATION in child.obj.annotations:
                    diff.update_for |= flag
                    diff.undelete.append((ref, child))
        return diff

    def update_children(self) -> None:
        assert self.conditions is not None
        names = sorted(self.instances)
        if not self.ready:
            for name in names:
                instance = self.instances[name]
                diff = self.diff(instance)
                if diff.delete_for_condition:
                    self.conditions.remove(self.for_type(name))
                    instance.condition = None
                for ref, child in diff.delete_objs:
                    self.mark_deleted(instance, ref, child, "not ready")
            return
        for name in names:
            instance = self.instances[name]
            diff = self.diff(instance)
            if diff.update_for:
                self.set_for(instance, "update for condition", failed=False)
            # A child whose object is created too gets its condition set twice, the second
            # time in place: the Kptfile gets the second one at the first one's place (the
            # inventory keeps the first, as upstream's does), one set instead of two.
            created = {ref for ref, _ in diff.create_objs}
            for ref, child in diff.create_conditions:
                status, message = "False", "create condition"
                if child.child_kind == "local":
                    status, message = "True", "child local resource -> done"
                elif child.child_kind == "initial":
                    message = "create initial resource condition"
                child.condition = self.child_condition(instance, ref, status, message)
                if ref in created:
                    self.conditions.set(self.created(instance, ref, child))
                else:
                    self.conditions.set(child.condition)
            for ref, child in diff.delete_conditions:
                self.conditions.remove(condition_type(*ref))
                child.condition = None
            conditioned = {ref for ref, _ in diff.create_conditions}
            for ref, child in diff.create_objs:
                if ref not in conditioned:
                    self.conditions.set(self.created(instance, ref, child))
                if child.child_kind in ("remote", "local"):
                    self.put(instance, child, child.desired)
            for ref, child in diff.update_objs:
                self.conditions.set(self.child_condition(instance, ref, "False", "update resource"))
                if child.child_kind in ("remote", "local"):
                    self.put(instance, child, child.desired)
            for ref, child in diff.delete_objs:
                self.mark_deleted(instance, ref, child, "delete resource")
            for ref, child in diff.undelete:
                self.conditions.set(self.child_condition(instance, ref, "False", "update resource"))
                if child.child_kind in ("remote", "local"):
                    self.put(instance, child, child.desired)

    def created(self, instance: Instance, ref: Ref, child: Entry) -> Condition:
        """The condition of a child whose object is created."""
        status = "True" if child.child_kind == "local" else "False"
        return self.child_condition(instance, ref, status, "create initial resource")

    def mark_deleted(self, instance: Instance, ref: Ref, child: Entry, message: str) -> None:
        assert self.conditions is not None and child.obj is not None
        self.conditions.set(self.child_condition(instance, ref, "False", message))
        if child.obj.annotations.get(DELETE_ANNOTATION) != "true":
            child.obj.annotations[DELETE_ANNOTATION] = "true"

    def put(self, instance: Instance, child: Entry, desired: KubeObject | None) -> None:
        """The desired object in the package: a new item next to its for object, or the
        existing one replaced whole (upstream's upsert; its file is kept)."""
        assert desired is not None
        items = self.rl.items
        old = child.obj
        if old is None:
            if instance.obj is not None:
                desired.set_path(default_child_path(instance.obj, desired))
            items.append(desired)
        else:
            if old.path:
                desired.set_path(old.path)
            objects = list(items)
            objects[items.index(old)] = desired
            items.replace_all(objects)
        child.obj = desired

    # --- stage 2 --------------------------------------------------------------------------

    def stage2(self) -> None:
        assert self.conditions is not None
        if not self.ready:
            if not self.owns:
                for instance in self.instances.values():
                    if instance.obj is not None and instance.obj in self.rl.items:
                        self.rl.items.remove(instance.obj)
            return
        for name in sorted(self.instances):
            instance = self.instances[name]
            if instance.failed:
                continue
            children = sorted(instance.children.items(), key=lambda kv: (kv[0][1], kv[0][2]))
            if any(c.condition is None or c.condition.status == "False" for _, c in children):
                continue
            if instance.obj is None:  # a condition whose object left: upstream's update fails
                self.set_failed(name, self.missing_for)
                continue
            owned = [c.obj for _, c in children if c.obj is not None]
            try:
                self.update(instance.obj, owned)
            except SpecializeError as exc:
                self.set_failed(name, exc.message)
                self.rl.results.warning(
                    f"{self.for_type(name)}: {exc.message}", exc.obj or instance.obj, exc.field
                )
                continue
            reason = instance.condition.reason if instance.condition is not None else ""
            if reason and instance.obj.annotations.get(OWNER_ANNOTATION) != reason:
                instance.obj.annotations[OWNER_ANNOTATION] = reason
            self.conditions.set(Condition(self.for_type(name), "True", reason, "update done"))
