"""TKO's merge of resources into a package: inputs meet the target by apiVersion, kind and name
(after ``nephio.org/rename``); ``nephio.org/merge`` says whether a match is merged or replaced."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any

from krmlib import Items, KrmError, KubeObject, Results, check_names, default_file_name
from krmlib.packages import ANN_ID, ANN_LEGACY_ID, content_of, is_kpt_internal, without_annotations

from .annotations import (
    MERGE,
    METADATA,
    OVERRIDE,
    PREPARE,
    RENAME,
    REPLACE,
    annotation_field,
    moved_on,
)

# The merge-control annotations steer one merge and are not carried into its result.
CONTROL = (MERGE, RENAME)
# Annotations a merge moves when the inputs leave their package (TKO's UpdateAnnotationsForMerge).
MOVED = (PREPARE, METADATA)


def merge_mode(obj: KubeObject) -> str:
    """``Override`` (also when absent) or ``Replace``; anything else is an error."""
    value = obj.annotations.get(MERGE)
    if value is None or value == "":
        return OVERRIDE
    if value not in (OVERRIDE, REPLACE):
        raise KrmError(
            f"{MERGE} is {value!r}: expected {OVERRIDE} or {REPLACE} (case-sensitive)",
            obj=obj,
            field=annotation_field(MERGE),
        )
    return value


def _moves(obj: KubeObject) -> dict[str, str]:
    """The moved ``nephio.org/prepare`` and ``nephio.org/metadata`` values of an input."""
    moved = {}
    for key in MOVED:
        value = moved_on(obj, key)
        if value is not None:
            moved[key] = value
    return moved


class Planned:
    """One input with its identity in the destination (immutable: nothing assigns to it)."""

    __slots__ = ("api_version", "dest", "kind", "mode", "name", "obj", "position")

    def __init__(
        self,
        position: int,  # 1-based, as users count merge inputs
        obj: KubeObject,
        api_version: str,
        kind: str,
        name: str,
        dest: str,
        mode: str,
    ) -> None:
        self.position = position
        self.obj = obj
        self.api_version = api_version
        self.kind = kind
        self.name = name
        self.dest = dest
        self.mode = mode

    @property
    def renamed(self) -> bool:
        return self.dest != self.name

    def describe(self, name: str | None = None) -> str:
        return f"{self.kind} {name or self.name}"

    def lands_on(self, obj: KubeObject) -> bool:
        """The identity: apiVersion (group and version), kind, and the name after rename."""
        return (obj.api_version, obj.kind, obj.name) == (self.api_version, self.kind, self.dest)


MergeInput = Planned


def plan(inputs: Sequence[KubeObject], from_package: bool = False) -> list[Planned]:
    """Read every input's identity and merge mode; reject rename cycles and conflicts.

    Every check happens here, before anything is merged.
    """
    planned = []
    for position, obj in enumerate(inputs, start=1):
        obj.validate()
        _check_metadata_maps(obj)
        name = obj.name
        dest = obj.annotations.get(RENAME, name)
        if not dest:
            raise KrmError(
                f"{RENAME} is empty: give the name in the destination",
                obj=obj,
                field=annotation_field(RENAME),
            )
        if RENAME in obj.annotations and dest == name:
            raise KrmError(
                f"{RENAME} renames {obj.kind} {name} to itself: remove the annotation",
                obj=obj,
                field=annotation_field(RENAME),
            )
        if RENAME in obj.annotations and not obj.is_local_config:  # a name to be applied
            field = annotation_field(RENAME)
            check_names(dest, obj.namespace, kind=obj.kind, source=obj, field=field)
        if from_package:
            _moves(obj)  # a bad value fails here, before anything is merged
        planned.append(
            Planned(position, obj, obj.api_version, obj.kind, name, dest, merge_mode(obj))
        )
    _check_cycles(planned)
    _check_conflicts(planned)
    return planned


def _check_metadata_maps(obj: KubeObject) -> None:
    """``metadata.labels`` and ``metadata.annotations`` of an input are maps (or null): a
    string or a list there would be merged into the package's resource as it is."""
    metadata = obj.get("metadata")
    for key in ("labels", "annotations"):
        value = metadata.get(key) if isinstance(metadata, dict) else None
        if value is not None and not isinstance(value, dict):
            import json  # a refusal only

            raise KrmError(
                f"metadata.{key} must be a map of strings, got {json.dumps(value, default=str)}",
                obj=obj,
                field=f"metadata.{key}",
            )


def _check_cycles(planned: list[Planned]) -> None:
    """A chain of renames that comes back to where it started only swaps names: refuse it."""
    edges: dict[tuple[str, str, str], list[Planned]] = {}
    for item in planned:
        if item.renamed:
            edges.setdefault((item.api_version, item.kind, item.name), []).append(item)
    for start in planned:
        if not start.renamed:
            continue
        chain = [start]
        seen = {start.name}
        current = start
        while True:
            following = edges.get((current.api_version, current.kind, current.dest))
            if not following:
                break
            current = following[0]
            if current.name == start.name:
                names = " → ".join([*(c.name for c in chain), start.name])
                raise KrmError(
                    f"{RENAME} cycle among merge inputs: {start.kind} {names}; renames "
                    "are not transitive and a cycle only swaps names: rename in the "
                    "template or merge in separate steps",
                    obj=start.obj,
                    field=annotation_field(RENAME),
                )
            if current.name in seen:
                break
            seen.add(current.name)
            chain.append(current)


def _check_conflicts(planned: list[Planned]) -> None:
    """Two inputs may land on one identity only when neither got there by a rename."""
    landing: dict[tuple[str, str, str], list[Planned]] = {}
    for item in planned:
        landing.setdefault((item.api_version, item.kind, item.dest), []).append(item)
    for (_group, kind, dest), items in landing.items():
        if len(items) > 1 and any(item.renamed for item in items):
            renamed = next(item for item in items if item.renamed)
            others = ", ".join(
                f"#{item.position} {item.describe()}" + (" (renamed)" if item.renamed else "")
                for item in items
                if item is not renamed
            )
            raise KrmError(
                f"merge input #{renamed.position} {renamed.describe()} is renamed to "
                f"{dest}, where input {others} also lands: a rename may not land on "
                f"another input's {kind}",
                obj=renamed.obj,
                field=annotation_field(RENAME),
            )


def merge_planned(
    target: Items,
    planned: Sequence[Planned],
    *,
    from_package: bool,
    results: Results | None,
    file_dir: str,
) -> list[KubeObject]:
    for item in planned:  # ambiguous matches and invalid new names fail before any change
        if _find(target, item) is None and not item.obj.is_local_config:
            check_names(item.dest, item.obj.namespace, kind=item.kind, source=item.obj)
    out: list[KubeObject] = []
    for item in planned:
        match = _find(target, item)
        if match is None:
            obj = _append(target, item, from_package, file_dir)
            verb = f"added as {obj.path}"
        elif item.mode == REPLACE:
            obj = _replace(target, match, item, from_package)
            out = [obj if o is match else o for o in out]  # an earlier result replaced
            verb = "replaced" if obj is not match else "already as given (Replace): unchanged"
        else:
            changed = _override(match, item, from_package)
            obj = match
            verb = "merged (Override)" if changed else "already merged (Override): unchanged"
        if results is not None:
            rename = f" (renamed from {item.name})" if item.renamed else ""
            results.info(f"merge input #{item.position} {verb}{rename}", obj)
        if not any(o is obj for o in out):
            out.append(obj)
    return out


def _find(target: Items, item: Planned) -> KubeObject | None:
    found = [obj for obj in target if item.lands_on(obj)]
    if len(found) > 1:
        spaces = ", ".join(repr(o.namespace or "") for o in found)
        raise KrmError(
            f"merge input #{item.position} {item.describe(item.dest)} matches {len(found)} "
            f"resources of the package (namespaces {spaces}); the namespace is not part of "
            "the identity, so the match must be unique",
            obj=item.obj,
        )
    return found[0] if found else None


def _dropped(key: str) -> bool:
    return key in CONTROL or is_kpt_internal(key)


def _fresh(item: Planned, from_package: bool) -> KubeObject:
    """A copy of the input as a resource of its own (comments kept, nulls dropped): control and
    kpt annotations off (their lines cut from the text), the destination name on, the prepare
    mark moved."""
    moves = _moves(item.obj) if from_package else {}
    obj = without_annotations(item.obj, _dropped, moves)  # the moves of lines it has, in place
    if item.renamed:
        obj.set("metadata.name", item.dest)
    for key, value in moves.items():
        obj.annotations[key] = value  # the others
    for path in _null_paths(obj.to_dict(), ()):
        obj.delete(path)
    return obj


def _null_paths(value: Any, prefix: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
    out: list[tuple[str | int, ...]] = []
    if isinstance(value, dict):
        for key, sub in value.items():
            if sub is None:
                out.append((*prefix, key))
            else:
                out.extend(_null_paths(sub, (*prefix, key)))
    return out


def _append(target: Items, item: Planned, from_package: bool, file_dir: str) -> KubeObject:
    obj = _fresh(item, from_package)
    path = default_file_name(item.kind, item.dest)
    if file_dir:
        path = posixpath.join(file_dir, path)
    obj.set_path(path)  # no index: kpt puts an item without one after the file's others
    target.append(obj)
    return obj


# Without its ids kpt sees a new item in the old slot and restores none of the old comments.
_ID_KEYS = (ANN_LEGACY_ID, ANN_ID)


def _replace(target: Items, match: KubeObject, item: Planned, from_package: bool) -> KubeObject:
    obj = _fresh(item, from_package)
    if content_of(obj) == content_of(match):
        return match  # already this content: leave the item as it is
    for key, value in match.annotations.items():
        if is_kpt_internal(key) and key not in _ID_KEYS:
            obj.annotations[key] = value
    objects = list(target)
    objects[target.index(match)] = obj
    target.replace_all(objects)
    return obj


def _override(match: KubeObject, item: Planned, from_package: bool) -> bool:
    data = item.obj.to_dict()
    metadata = data.setdefault("metadata", {})
    annotations = metadata.get("annotations")
    if "annotations" in metadata and annotations is None:  # null: the user's go, kpt's stay
        annotations = metadata["annotations"] = {
            key: None for key in match.annotations if not is_kpt_internal(key)
        }
    if isinstance(annotations, dict):
        for key in [k for k in annotations if k in CONTROL or is_kpt_internal(str(k))]:
            del annotations[key]
        if from_package:
            annotations.update(_moves(item.obj))
        if not annotations:
            del metadata["annotations"]
    metadata["name"] = item.dest
    return match.merge("", data)


def merge_resources(
    target: Items,
    inputs: Sequence[KubeObject],
    *,
    from_package: bool = False,
    results: Results | None = None,
    file_dir: str = "",
) -> list[KubeObject]:
    """Merge ``inputs`` into ``target`` in order (later inputs see earlier results).

    Identity is the apiVersion (group and version), kind and the name after
    ``nephio.org/rename`` (namespace ignored): a ``v2`` input is added beside a ``v1`` resource.
    A matched resource is merged per ``nephio.org/merge``: absent or ``Override`` merges
    properties (maps recursively, lists and scalars replaced, ``null`` removes the key);
    ``Replace`` replaces the whole resource in place, keeping the target's kpt annotations (file
    path, index, ids). An unmatched input is appended as a copy, in
    ``file_dir/<lower kind>_<name>.yaml``. ``from_package=True`` moves ``nephio.org/prepare``
    and ``nephio.org/metadata`` (Postpone→Here, Here or ""→Never, Never stays, absent stays
    absent); False leaves them as they are. ``nephio.org/merge`` and ``nephio.org/rename`` are
    not carried into the result; the inputs themselves are never changed.

    Renames are not transitive: each input's rename names its own destination, resolved before
    any merge. A rename onto the input's own name, a cycle of renames among the inputs, or a
    rename that lands where another input lands raise :class:`krmlib.KrmError` before anything is
    changed. Inputs that land on one identity without a rename merge one after the other.

    Returns the resulting objects (merged, replaced or appended), once each, in input order.
    """
    planned = plan(inputs, from_package)
    return merge_planned(
        target, planned, from_package=from_package, results=results, file_dir=file_dir
    )
