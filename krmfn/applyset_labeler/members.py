"""Members of the set: which items, in which namespace, with which labels and ownerReferences."""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
from typing import NamedTuple

from krmlib import KubeObject, Results, format_path, is_kptfile

from .config import PREFIXES, Config

CONFIG_GROUP = "krmfn.dev"


class Member(NamedTuple):
    obj: KubeObject
    namespace: str  # effective namespace ('' for cluster-scoped)
    cluster_scoped: bool

    @property
    def identity(self) -> tuple[str, str, str, str]:
        return (self.obj.group, self.obj.kind, self.namespace, self.obj.name)


def is_member_candidate(obj: KubeObject, parent: KubeObject | None) -> bool:
    """Would the item be applied? Not the parent, local-config items, the Kptfile, our configs."""
    return not (
        obj is parent or is_kptfile(obj) or obj.is_local_config or obj.group == CONFIG_GROUP
    )


def resolve(obj: KubeObject, cluster: bool, parent_namespace: str) -> Member:
    """The member with its effective namespace (a namespace-less namespaced item: the parent's);
    ``cluster``: its kind is cluster-scoped (``Scopes.cluster_scoped``)."""
    namespace = "" if cluster else (obj.namespace or parent_namespace)
    return Member(obj, namespace, cluster)


def label_path(key: str) -> str:
    return format_path(("metadata", "labels", key))


def _no_labels(obj: KubeObject) -> bool:
    """Certainly no ``metadata.labels``: the word is nowhere in the item's unedited text (and
    no escape could spell it), so reading the map would say ``{}`` (a read per item saved)."""
    return not obj.may_mention("labels")


def _no_label(obj: KubeObject, key: str) -> bool:
    """Certainly no label ``key`` (nor any key ``key`` starts): the key is nowhere in the item's
    unedited text and no escape could spell it (a key is on one line: a quoted key over lines
    folds its line break into a space, or escapes it). The labels are not read."""
    return not obj.may_mention(key)


_PART_OF_KEYS = tuple(f"{prefix}/part-of" for prefix in PREFIXES)
APPLYSET_KEYS = "applyset.k"  # what every key of every prefix starts with (PREFIXES)


def check_part_of(member: Member, set_id: str, results: Results) -> bool:
    """An object belongs to at most one set: another set's part-of label is an error."""
    if _no_labels(member.obj) or _no_label(member.obj, APPLYSET_KEYS):
        return True
    labels = member.obj.labels
    ok = True
    for key in _PART_OF_KEYS:
        value = labels.get(key)
        if value and value != set_id:
            results.error(
                f"already a member of ApplySet {value} (an object belongs to at most one set); "
                f"remove the label or choose that set's parent",
                member.obj,
                label_path(key),
                current=value,
                proposed=set_id,
            )
            ok = False
    return ok


def label_members(members: list[Member], set_id: str, config: Config, results: Results) -> None:
    """part-of (managed mode) and the tool labels; only what changes is written. Each label's
    path is made once (thousands of members share it, and the output gate keeps each write's)."""
    key = config.key("part-of")
    part_of = ("metadata", "labels", key)
    tools = [(("metadata", "labels", name), value) for name, value in config.tool_labels.items()]
    managed = config.mode == "managed"
    for member in members:
        obj = member.obj
        if _no_labels(obj):  # nothing to read: write (the labels map is new)
            if managed:
                obj.set(part_of, set_id)
            for path, value in tools:
                obj.set(path, value)
            continue
        labels = obj.labels
        if managed:
            if _no_label(obj, key) or labels.get(key) != set_id:
                obj.set(part_of, set_id)
        elif not _no_label(obj, key) and key in labels:
            del labels[key]
            results.info(
                f"removed {key}: kubectl refuses input objects that already carry it",
                obj,
                label_path(key),
            )
        for path, value in tools:
            if labels.get(path[2]) != value:
                obj.set(path, value)


def owner_reference_allowed(member: Member, parent_namespace: str, parent_cluster: bool) -> bool:
    """Kubernetes allows a cluster-scoped owner, or a namespaced owner in the same namespace."""
    if parent_cluster:
        return True
    return not member.cluster_scoped and member.namespace == parent_namespace


def _same_owner(ref: dict[str, object], other: dict[str, object]) -> bool:
    group = str(ref["apiVersion"]).rsplit("/", 1)[0]
    return (
        other.get("kind") == ref["kind"]
        and other.get("name") == ref["name"]
        and str(other.get("apiVersion", "")).rsplit("/", 1)[0] == group
    )


def check_controller(member: Member, ref: dict[str, object], results: Results) -> bool:
    """An object has at most one controller: the parent cannot replace another one."""
    if not ref.get("controller"):
        return True
    for index, other in enumerate(member.obj.owner_references):
        if not _same_owner(ref, other) and other.get("controller") is True:
            results.error(
                f"already has a controller ({other.get('kind')}/{other.get('name')}); "
                f"an object can have only one, so the parent cannot be its controller",
                member.obj,
                f"metadata.ownerReferences[{index}].controller",
            )
            return False
    return True


def set_owner_reference(member: Member, ref: dict[str, object]) -> None:
    """Add or update the reference to the parent (matched by group, kind and name)."""
    refs = member.obj.owner_references
    new = list(refs)
    for index, other in enumerate(refs):
        if _same_owner(ref, other):
            new[index] = {**other, **ref}
            break
    else:
        new.append(ref)
    if new != refs:
        member.obj.set("metadata.ownerReferences", new)
