"""Owned children: a function declares the children it wants per owner; this module syncs them.

A function that expands an owner (an ``Interface``, say) into children (``IPAllocation``s) says
*what* it wants; :meth:`ChildSync.sync` finds the children the owner already has and decides,
per child, whether to create, leave, update or mark it for deletion;
:meth:`ChildSync.collect_orphans` marks the children whose owner is gone. The function then
reacts to the returned changes (conditions, results). Nothing here knows about a particular kind.

Two policies are pluggable:

- *ownership*, how a child names its owner: :class:`OwnerReferences` (``metadata.ownerReferences``
  with apiVersion, kind, name) or :class:`OwnerAnnotation` (one annotation whose value is
  ``<apiVersion>.<Kind>.<name>``, as Nephio's specializer writes it);
- *deletion*, how a child is marked for deletion (it stays in the package until a controller
  removes it): :class:`DeletionTimestamp` (``metadata.deletionTimestamp``, RFC 3339 UTC, honouring
  ``SOURCE_DATE_EPOCH``; a child already marked keeps its first timestamp) or
  :class:`DeleteAnnotation`.

Children are matched to the desired ones by apiVersion, kind and name, so a function that puts a
hash of the spec into the name gets "mark the old one, create the new one" on a spec change, and one
that keeps names stable gets an update in place. Namespaces are not compared (a package is one
scope).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, Protocol

from .collection import Items
from .errors import KrmError
from .object import KubeObject
from .pkgpath import default_file_name

__all__ = [
    "Action",
    "ChildChange",
    "ChildSync",
    "DeleteAnnotation",
    "Deletion",
    "DeletionTimestamp",
    "OwnerAnnotation",
    "OwnerKey",
    "OwnerReferenceOrAnnotation",
    "OwnerReferences",
    "Ownership",
    "default_child_path",
    "now_rfc3339",
    "parse_owner",
]

Action = Literal["create", "unchanged", "update", "delete", "pending-delete", "conflict"]
"""What happened to a child:

- ``create``: added to the package;
- ``unchanged``: already as desired;
- ``update``: the compared fields were rewritten in place (or a child marked for deletion was
  wanted again and got its mark removed);
- ``delete``: marked for deletion in this run;
- ``pending-delete``: was already marked, left as it is;
- ``conflict``: a desired child's name is taken by an item this owner does not own (not touched).
"""


@dataclass(frozen=True)
class OwnerKey:
    """The identity of an owner: apiVersion, kind and name."""

    api_version: str
    kind: str
    name: str

    @classmethod
    def of(cls, obj: KubeObject) -> OwnerKey:
        return cls(obj.api_version, obj.kind, obj.name)

    def __str__(self) -> str:
        return f"{self.api_version}.{self.kind}.{self.name}"


@dataclass(frozen=True)
class ChildChange:
    action: Action
    child: KubeObject
    owner: OwnerKey


class Ownership(Protocol):
    """How a child points at its owner."""

    def owners(self, child: KubeObject) -> list[OwnerKey]: ...

    def mark(self, child: KubeObject, owner: KubeObject) -> None: ...


class Deletion(Protocol):
    """How a child is marked for deletion."""

    def is_marked(self, child: KubeObject) -> bool: ...

    def mark(self, child: KubeObject) -> None: ...

    def unmark(self, child: KubeObject) -> None: ...


@dataclass(frozen=True)
class OwnerReferences:
    """Ownership by ``metadata.ownerReferences`` (apiVersion, kind, name; no uid in a package)."""

    def owners(self, child: KubeObject) -> list[OwnerKey]:
        return [
            OwnerKey(str(ref["apiVersion"]), str(ref["kind"]), str(ref["name"]))
            for ref in child.owner_references
            if isinstance(ref, dict) and all(ref.get(k) for k in ("apiVersion", "kind", "name"))
        ]

    def mark(self, child: KubeObject, owner: KubeObject) -> None:
        child.add_owner_reference(owner)


@dataclass(frozen=True)
class OwnerAnnotation:
    """Ownership by one annotation whose value is ``<apiVersion>.<Kind>.<name>``."""

    key: str

    def owners(self, child: KubeObject) -> list[OwnerKey]:
        value = child.annotations.get(self.key, "")
        key = parse_owner(value)
        return [key] if key is not None else []

    def mark(self, child: KubeObject, owner: KubeObject) -> None:
        value = str(OwnerKey.of(owner))
        if child.annotations.get(self.key) != value:
            child.annotations[self.key] = value


@dataclass(frozen=True)
class OwnerReferenceOrAnnotation:
    """An API server accepts an ownerReference only with the owner's ``uid``, which a package
    has only when its objects came from a cluster. So: ``metadata.ownerReferences`` with the
    uid when the owner has ``metadata.uid``, else the annotation ``key`` (as
    :class:`OwnerAnnotation`). Both forms, and a uid-less reference written before, are read as
    ownership; marking an existing child moves it to the form the owner allows now.
    """

    key: str

    def owners(self, child: KubeObject) -> list[OwnerKey]:
        found = OwnerReferences().owners(child) + OwnerAnnotation(self.key).owners(child)
        return list(dict.fromkeys(found))

    def mark(self, child: KubeObject, owner: KubeObject) -> None:
        key = OwnerKey.of(owner)
        uid = owner.get("metadata.uid")
        refs = child.owner_references
        others = [r for r in refs if not (isinstance(r, dict) and _refers_to(r, key))]
        if isinstance(uid, str) and uid:
            wanted = [*others, {**_reference(key), "uid": uid}]
            if refs != wanted:
                child.set("metadata.ownerReferences", wanted)
            if self.key in child.annotations:
                del child.annotations[self.key]
            return
        if others != refs:
            if others:
                child.set("metadata.ownerReferences", others)
            else:
                child.delete("metadata.ownerReferences")
        OwnerAnnotation(self.key).mark(child, owner)

    @staticmethod
    def uses_annotation(owner: KubeObject) -> bool:
        """True when children of ``owner`` get the annotation (it has no uid)."""
        uid = owner.get("metadata.uid")
        return not (isinstance(uid, str) and uid)


def _reference(key: OwnerKey) -> dict[str, str]:
    return {"apiVersion": key.api_version, "kind": key.kind, "name": key.name}


def _refers_to(ref: dict[str, object], key: OwnerKey) -> bool:
    return all(ref.get(k) == v for k, v in _reference(key).items())


def parse_owner(value: str) -> OwnerKey | None:
    """``group/version.Kind.name`` (or ``version.Kind.name`` for the core group)."""
    group, slash, rest = value.rpartition("/")
    parts = rest.split(".", 2)
    if len(parts) != 3 or not all(parts):
        return None
    version, kind, name = parts
    return OwnerKey(f"{group}/{version}" if slash else version, kind, name)


def now_rfc3339() -> str:
    """The current UTC time as RFC 3339 (seconds), or ``SOURCE_DATE_EPOCH`` when set."""
    raw = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if raw:
        try:
            moment = datetime.fromtimestamp(int(raw), UTC)
        except (ValueError, OverflowError, OSError):
            raise KrmError(
                f"SOURCE_DATE_EPOCH must be whole seconds since 1970, got {raw!r}"
            ) from None
    else:
        moment = datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class DeletionTimestamp:
    """Mark with ``metadata.deletionTimestamp`` (the first mark is kept)."""

    def is_marked(self, child: KubeObject) -> bool:
        return bool(child.get("metadata.deletionTimestamp"))

    def mark(self, child: KubeObject) -> None:
        if not self.is_marked(child):
            child.set("metadata.deletionTimestamp", now_rfc3339())

    def unmark(self, child: KubeObject) -> None:
        child.delete("metadata.deletionTimestamp")


@dataclass(frozen=True)
class DeleteAnnotation:
    """Mark with an annotation (``value``, ``"true"`` by default)."""

    key: str
    value: str = "true"

    def is_marked(self, child: KubeObject) -> bool:
        return child.annotations.get(self.key, "").lower() == self.value.lower()

    def mark(self, child: KubeObject) -> None:
        if not self.is_marked(child):
            child.annotations[self.key] = self.value

    def unmark(self, child: KubeObject) -> None:
        annotations = child.annotations
        if self.key in annotations:
            del annotations[self.key]


def default_child_path(owner: KubeObject, child: KubeObject) -> str:
    """``<owner's folder>/<lower kind>_<name>.yaml`` (kpt's default file name)."""
    folder = posixpath.dirname(owner.path or "")
    name = default_file_name(child.kind, child.name)
    return posixpath.join(folder, name) if folder else name


class ChildSync:
    """Children of many owners, synced in one pass over the items (no quadratic lookups).

    Index the items once, call :meth:`sync` per owner and :meth:`collect_orphans` once, then
    :meth:`apply` to insert the new children into ``items`` (after their owner's last child, or
    after the owner). The desired objects passed to :meth:`sync` are taken over, not copied.
    """

    def __init__(
        self,
        items: Items,
        *,
        owns: Sequence[tuple[str, str]],
        ownership: Ownership,
        deletion: Deletion,
        compare: Sequence[str] = ("spec",),
    ) -> None:
        self.items = items
        self.ownership = ownership
        self.deletion = deletion
        self.compare = tuple(compare)
        kinds = set(owns)
        self._taken: dict[tuple[str, str, str], KubeObject] = {}
        self._children: dict[OwnerKey, list[KubeObject]] = {}
        self._owned: list[tuple[KubeObject, list[OwnerKey]]] = []
        self._position: dict[int, int] = {}
        for position, obj in enumerate(items):
            self._position[id(obj)] = position
            if (obj.api_version, obj.kind) not in kinds:
                continue
            self._taken.setdefault((obj.api_version, obj.kind, obj.name), obj)
            owners = ownership.owners(obj)
            if owners:
                self._owned.append((obj, owners))
                for key in dict.fromkeys(owners):
                    self._children.setdefault(key, []).append(obj)
        self._inserts: dict[int, list[KubeObject]] = {}

    def sync(self, owner: KubeObject, desired: Sequence[KubeObject]) -> list[ChildChange]:
        """Make ``owner``'s children of the ``owns`` kinds (apiVersion, kind) equal to ``desired``.

        - a desired child with no current counterpart (same apiVersion, kind, name) is marked as
          owned, placed in the owner's folder (unless it has a path) and inserted after the
          owner's last child (or the owner) by :meth:`apply`; the desired object itself is
          inserted, not a copy;
        - a counterpart whose ``compare`` fields equal the desired ones is left alone; otherwise
          those fields are rewritten in place; a counterpart marked for deletion is unmarked;
        - a current child that is not desired is marked for deletion (once);
        - a desired name already taken by an item the owner does not own is a ``conflict``.

        Returns one change per desired child (in order), then one per child marked for deletion.
        """
        key = OwnerKey.of(owner)
        current = self._children.get(key, [])
        by_identity = {(c.api_version, c.kind, c.name): c for c in current}
        owner_at = self._position.get(id(owner), -1)
        after = [c for c in current if self._position.get(id(c), -1) > owner_at]
        anchor = after[-1] if after else owner
        changes: list[ChildChange] = []
        wanted: set[tuple[str, str, str]] = set()
        for want in desired:
            identity = (want.api_version, want.kind, want.name)
            wanted.add(identity)
            have = by_identity.get(identity)
            if have is None:
                other = self._taken.get(identity)
                if other is not None:
                    changes.append(ChildChange("conflict", other, key))
                    continue
                self.ownership.mark(want, owner)
                if want.path is None:
                    want.set_path(default_child_path(owner, want))
                self._inserts.setdefault(id(anchor), []).append(want)
                self._taken[identity] = want
                changes.append(ChildChange("create", want, key))
                continue
            self.ownership.mark(have, owner)  # moves it to the form the owner allows now
            changes.append(ChildChange(self._update(have, want), have, key))
        for child in current:
            if (child.api_version, child.kind, child.name) not in wanted:
                self.ownership.mark(child, owner)
                changes.append(_mark(child, key, self.deletion))
        return changes

    def _update(self, have: KubeObject, want: KubeObject) -> Action:
        changed = False
        if self.deletion.is_marked(have):
            self.deletion.unmark(have)
            changed = True
        for path in self.compare:
            value = want.get(path)
            if value is None:
                changed = have.delete(path) or changed
            elif have.get(path) != value:
                changed = have.set(path, value) or changed
        return "update" if changed else "unchanged"

    def collect_orphans(self, owner_kind: tuple[str, str]) -> list[ChildChange]:
        """Mark the children whose ``owner_kind`` (apiVersion, kind) owners are all gone."""
        api_version, kind = owner_kind
        present = {
            OwnerKey.of(obj)
            for obj in self.items
            if obj.api_version == api_version and obj.kind == kind
        }
        changes = []
        for child, owners in self._owned:
            relevant = [o for o in owners if (o.api_version, o.kind) == owner_kind]
            if relevant and not any(o in present for o in relevant):
                self.ownership.mark(child, _stand_in(relevant[0]))
                changes.append(_mark(child, relevant[0], self.deletion))
        return changes

    def apply(self) -> None:
        """Insert the created children into the items (one pass)."""
        if not self._inserts:
            return
        out: list[KubeObject] = []
        for obj in self.items:
            out.append(obj)
            self._emit(obj, out)
        self.items.replace_all(out)
        self._inserts = {}

    def _emit(self, anchor: KubeObject, out: list[KubeObject]) -> None:
        for child in self._inserts.pop(id(anchor), []):
            out.append(child)
            self._emit(child, out)


def _stand_in(key: OwnerKey) -> KubeObject:
    """An owner that is gone, for :meth:`Ownership.mark` (no uid: it is not in the package)."""
    return KubeObject.from_dict(
        {"apiVersion": key.api_version, "kind": key.kind, "metadata": {"name": key.name}}
    )


def _mark(child: KubeObject, owner: OwnerKey, deletion: Deletion) -> ChildChange:
    if deletion.is_marked(child):
        return ChildChange("pending-delete", child, owner)
    deletion.mark(child)
    return ChildChange("delete", child, owner)
