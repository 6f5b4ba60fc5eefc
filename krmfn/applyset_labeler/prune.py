"""Prune preview: the package against a snapshot of the set's live objects."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from krmlib import (
    FunctionPackage,
    Items,
    KrmError,
    KubeObject,
    ResourceList,
    Results,
    format_path,
    read_named_file,
    read_roots,
)

from .config import Config, ParentRef
from .members import Member
from .scope import Scopes

# Annotations a live object never has, or the server adds: not a difference.
_LOCAL_ANNOTATION_PREFIXES = (
    "internal.config.kubernetes.io/",
    "config.kubernetes.io/",
    "config.k8s.io/",
)
# kpt's round-trip id: ``internal.config.k8s.io/`` up to v1.0.0-beta.67, renamed to
# ``internal.config.kubernetes.io/`` on kpt's main (kptdev/kpt fe84ac7b, pkg/fn/runtime/utils.go).
RESOURCE_ID_ANNOTATIONS = (
    "internal.config.k8s.io/kpt-resource-id",
    "internal.config.kubernetes.io/kpt-resource-id",
)
_LOCAL_ANNOTATIONS = RESOURCE_ID_ANNOTATIONS


def load_live_objects(value: list[dict[str, Any]] | str, items: Items) -> list[KubeObject]:
    """Inline objects, or a file (stream, v1 List, ResourceList) relative to the package."""
    if isinstance(value, list):
        out = []
        for index, data in enumerate(value):
            if not isinstance(data.get("kind"), str) or not isinstance(data.get("metadata"), dict):
                raise KrmError(
                    f"liveObjects[{index}] is not a KRM object (kind, metadata.name)",
                    field=f"spec.liveObjects[{index}]",
                )
            out.append(KubeObject.from_dict(data))
        return out
    from pathlib import Path  # a live objects file only: not at start-up

    base = FunctionPackage.of(items).folder  # the rendered package's folder (or None)
    path = Path(value)
    if not path.is_absolute():
        path = Path(base or os.getcwd()) / path
    try:
        text = read_named_file(path, read_roots(base), "the live objects file")
    except KrmError as exc:
        raise KrmError(
            f"{exc.message} (spec.liveObjects {value!r}; a relative path is read from the "
            "package folder, which kpt names only in `kpt fn render`)",
            field="spec.liveObjects",
        ) from None
    try:
        return list(ResourceList.parse(text).items)
    except KrmError as exc:
        raise KrmError(
            f"live objects file {value!r}: {exc.message}", field="spec.liveObjects"
        ) from None


def _identity(obj: KubeObject, scopes: Scopes) -> tuple[str, str, str, str]:
    namespace = "" if scopes.cluster_scoped(obj.kind, obj.group) else obj.namespace
    return (obj.group, obj.kind, namespace, obj.name)


def first_difference(want: Any, have: Any, keys: tuple[str | int, ...] = ()) -> str | None:
    """The first field the package sets differently from the live object (None: a subset).

    Fields the server adds (status, uid, defaults) are not differences; kpt's and
    kustomize's local annotations are ignored.
    """
    if isinstance(want, dict):
        have = have if isinstance(have, dict) else {}
        for key, value in want.items():
            if keys == ("metadata", "annotations") and (
                str(key).startswith(_LOCAL_ANNOTATION_PREFIXES) or key in _LOCAL_ANNOTATIONS
            ):
                continue
            found = first_difference(value, have.get(key), (*keys, str(key)))
            if found is not None:
                return found
        return None
    if isinstance(want, list):
        if not isinstance(have, list) or len(have) != len(want):
            return format_path(keys)
        for index, (a, b) in enumerate(zip(want, have, strict=True)):
            found = first_difference(a, b, (*keys, index))
            if found is not None:
                return found
        return None
    if want != have and not (want is not None and have is not None and str(want) == str(have)):
        return format_path(keys)
    return None


class PruneScope:
    """Where a prune looks: the group-kinds, and the namespaces for namespaced kinds.

    kubectl prunes only the group-kinds of the live parent's ``contains-group-kinds`` and, for
    namespaced kinds, only the parent's namespace and its ``additional-namespaces``
    (kubernetes/kubectl pkg/cmd/apply/applyset.go ``fetchParent``, ``AllPrunableNamespaces``;
    applyset_pruner.go lists each kind in each of those namespaces). Only the live parent gives
    them (it holds what earlier applies recorded): without it in the snapshot the scope is
    unknown and nothing is left out.
    """

    __slots__ = ("group_kinds", "namespaces")

    def __init__(self, group_kinds: set[str], namespaces: set[str]) -> None:
        self.group_kinds = group_kinds
        self.namespaces = namespaces

    def holds(self, obj: KubeObject, cluster_scoped: bool) -> bool:
        if obj.group_kind not in self.group_kinds:
            return False
        return cluster_scoped or obj.namespace in self.namespaces


def _split(value: object) -> set[str]:
    return {part for part in str(value or "").split(",") if part}


def prune_scope(
    live: Sequence[KubeObject], ref: ParentRef, namespace: str, set_id: str, config: Config
) -> PruneScope | None:
    """The scope of the live parent in the snapshot, or None (not in the snapshot)."""
    for obj in live:
        if (
            obj.kind == ref.kind
            and obj.group == ref.group
            and obj.name == ref.name
            and obj.namespace == namespace
            and obj.labels.get(config.key("id")) == set_id
        ):
            annotations = obj.annotations
            kinds = _split(annotations.get(config.key("contains-group-kinds")))
            spaces = _split(annotations.get(config.key("additional-namespaces")))
            return PruneScope(kinds, spaces | ({namespace} if namespace else set()))
    return None


def preview(
    members: Sequence[Member],
    live: Iterable[KubeObject],
    set_id: str,
    part_of_key: str,
    scopes: Scopes,
    results: Results,
    scope: PruneScope | None = None,
) -> None:
    """Results: what kubectl apply --prune would prune (warning), create, update (info).

    A live member of the set outside ``scope`` is not pruned (kubectl never looks there): an
    info result says so.
    """
    live_by_id: dict[tuple[str, str, str, str], KubeObject] = {}
    for obj in live:
        live_by_id.setdefault(_identity(obj, scopes), obj)
    wanted = {m.identity for m in members}
    counts = {"prune": 0, "create": 0, "update": 0, "unchanged": 0}
    for key, obj in live_by_id.items():
        if key not in wanted and obj.labels.get(part_of_key) == set_id:
            if scope is not None and not scope.holds(
                obj, scopes.cluster_scoped(obj.kind, obj.group)
            ):
                results.info(
                    "not pruned: a live member of the set outside the live parent's "
                    "group-kinds and namespaces (kubectl prunes only there)",
                    obj,
                )
                continue
            counts["prune"] += 1
            results.warning("would be pruned: live member of the set, not in the package", obj)
    for member in members:
        current = live_by_id.get(member.identity)
        if current is None:
            counts["create"] += 1
            results.info("would be created: not in the live snapshot", member.obj)
            continue
        field = first_difference(member.obj.to_dict(), current.to_dict())
        if field is None:
            counts["unchanged"] += 1
            continue
        counts["update"] += 1
        adopt = "" if current.labels.get(part_of_key) == set_id else " (and adopted into the set)"
        results.info(f"would be updated{adopt}: {field} differs", member.obj, field)
    results.info(
        f"prune preview for {set_id}: {counts['prune']} pruned, {counts['create']} created, "
        f"{counts['update']} updated, {counts['unchanged']} unchanged"
    )
