"""Owned children: a function declares the children it wants per owner; this module syncs them.

A function that expands an owner (an ``Interface``, say) into children (IPAllocations) says
*what* it wants; :meth:`ChildSync.sync` finds the children the owner already has and decides,
per child, whether to create, leave, update or mark it for deletion;
:meth:`ChildSync.collect_orphans` marks the children whose owner is gone. The function then
reacts to the returned changes (conditions, results). Nothing here knows about a particular kind.

Two policies are pluggable:

- *ownership*, how a child names its owner: :class:`OwnerReferences` (``metadata.ownerReferences``
  with apiVersion, kind, name), :class:`OwnerAnnotation` (one annotation whose value is
  ``<apiVersion>.<Kind>.<name>``, as Nephio's specializer writes it) or
  :class:`OwnerNameAnnotation` (one annotation holding the owner's name only; the owner is in the
  child's namespace);
- *deletion*, what happens to a child no longer wanted: marked for deletion (it stays in the
  package until a controller removes it) by :class:`DeletionTimestamp`
  (``metadata.deletionTimestamp``, RFC 3339 UTC, honouring ``SOURCE_DATE_EPOCH``; a child already
  marked keeps its first timestamp) or :class:`DeleteAnnotation`; or removed from the package by
  :class:`RemoveChild` (for generated items nothing in a cluster waits on).

Children are matched to the desired ones by apiVersion, kind and name, so a function that puts a
hash of the spec into the name gets "mark the old one, create the new one" on a spec change, and one
that keeps names stable gets an update in place. By default namespaces are not compared (a package
is one scope); ``namespaced=True`` compares them, and ``any_version=True`` matches by group instead
of apiVersion (an older apiVersion is then updated in place).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Literal, NamedTuple, Protocol

from ._base.errors import KrmError
from ._base.paths import parse_path
from ._base.pkgpath import default_file_name
from ._model import object as _object
from ._model.collection import Items
from ._model.object import KubeObject
from ._model.storage import of

__all__ = [
    "Action",
    "ChildChange",
    "ChildSync",
    "DeleteAnnotation",
    "Deletion",
    "DeletionTimestamp",
    "OwnerAnnotation",
    "OwnerKey",
    "OwnerNameAnnotation",
    "OwnerReferenceOrAnnotation",
    "OwnerReferences",
    "Ownership",
    "RemoveChild",
    "default_child_path",
    "now_rfc3339",
    "parse_owner",
]

Action = Literal["create", "unchanged", "update", "delete", "pending-delete", "remove", "conflict"]
"""What happened to a child:

- ``create``: added to the package;
- ``unchanged``: already as desired;
- ``update``: the compared fields were rewritten in place (or a child marked for deletion was
  wanted again and got its mark removed);
- ``delete``: marked for deletion in this run;
- ``pending-delete``: was already marked, left as it is;
- ``remove``: removed from the package (the :class:`RemoveChild` policy);
- ``conflict``: a desired child's name is taken by an item this owner does not own (not touched).
"""


class OwnerKey(NamedTuple):
    """The identity of an owner: apiVersion, kind and name (and a namespace for an ownership
    that scopes owners by namespace, as :class:`OwnerNameAnnotation`)."""

    api_version: str
    kind: str
    name: str
    namespace: str = ""

    @classmethod
    def of(cls, obj: KubeObject) -> OwnerKey:
        return cls(obj.api_version, obj.kind, obj.name)

    def __str__(self) -> str:
        return f"{self.api_version}.{self.kind}.{self.name}"


class ChildChange(NamedTuple):
    action: Action
    child: KubeObject
    owner: OwnerKey


class Ownership(Protocol):
    """How a child points at its owner."""

    def owner_key(self, owner: KubeObject) -> OwnerKey:
        """The key :meth:`owners` returns for the children of ``owner`` (of ``owner``'s kind)."""
        ...

    def owners(self, child: KubeObject) -> list[OwnerKey]: ...

    def mark(self, child: KubeObject, owner: KubeObject) -> None: ...


class Deletion(Protocol):
    """What happens to a child no longer wanted: marked for deletion, or removed."""

    @property
    def removes(self) -> bool:
        """True when the child is removed from the package instead of marked."""
        ...

    def is_marked(self, child: KubeObject) -> bool: ...

    def mark(self, child: KubeObject) -> None: ...

    def unmark(self, child: KubeObject) -> None: ...


class OwnerReferences:
    """Ownership by ``metadata.ownerReferences`` (apiVersion, kind, name; no uid in a package)."""

    __slots__ = ()

    def owner_key(self, owner: KubeObject) -> OwnerKey:
        return OwnerKey.of(owner)

    def owners(self, child: KubeObject) -> list[OwnerKey]:
        return [
            OwnerKey(str(ref["apiVersion"]), str(ref["kind"]), str(ref["name"]))
            for ref in child.owner_references
            if isinstance(ref, dict) and all(ref.get(k) for k in ("apiVersion", "kind", "name"))
        ]

    def mark(self, child: KubeObject, owner: KubeObject) -> None:
        child.add_owner_reference(owner)


class OwnerAnnotation:
    """Ownership by one annotation whose value is ``<apiVersion>.<Kind>.<name>``."""

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def owner_key(self, owner: KubeObject) -> OwnerKey:
        return OwnerKey.of(owner)

    def owners(self, child: KubeObject) -> list[OwnerKey]:
        value = child.annotations.get(self.key, "")
        key = parse_owner(value)
        return [key] if key is not None else []

    def mark(self, child: KubeObject, owner: KubeObject) -> None:
        value = str(OwnerKey.of(owner))
        if child.annotations.get(self.key) != value:
            child.annotations[self.key] = value


class OwnerReferenceOrAnnotation:
    """An API server accepts an ownerReference only with the owner's ``uid``, which a package
    has only when its objects came from a cluster. So: ``metadata.ownerReferences`` with the
    uid when the owner has ``metadata.uid``, else the annotation ``key`` (as
    :class:`OwnerAnnotation`). Both forms, and a uid-less reference written before, are read as
    ownership; marking an existing child moves it to the form the owner allows now.
    """

    __slots__ = ("key",)

    def __init__(self, key: str) -> None:
        self.key = key

    def owner_key(self, owner: KubeObject) -> OwnerKey:
        return OwnerKey.of(owner)

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


class OwnerNameAnnotation:
    """Ownership by one annotation holding the owner's name only.

    The annotation does not say the owner's apiVersion, so an owner is any ``kind`` object of one
    of ``groups`` (any version) with that name in the child's namespace. The keys have an empty
    apiVersion and carry the namespace; an object of another group gets its full key, so it owns
    nothing here. An annotation present but empty names an owner that cannot exist.
    """

    __slots__ = ("groups", "key", "kind")

    def __init__(self, key: str, kind: str, groups: tuple[str, ...]) -> None:
        self.key = key
        self.kind = kind
        self.groups = groups

    def owner_key(self, owner: KubeObject) -> OwnerKey:
        if owner.kind == self.kind and owner.group in self.groups:
            return OwnerKey("", self.kind, owner.name, owner.namespace)
        return OwnerKey(owner.api_version, owner.kind, owner.name, owner.namespace)

    def owners(self, child: KubeObject) -> list[OwnerKey]:
        annotations = child.annotations
        if self.key not in annotations:
            return []
        return [OwnerKey("", self.kind, str(annotations[self.key]), child.namespace)]

    def mark(self, child: KubeObject, owner: KubeObject) -> None:
        if child.annotations.get(self.key) != owner.name:
            child.annotations[self.key] = owner.name


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


class DeletionTimestamp:
    """Mark with ``metadata.deletionTimestamp`` (the first mark is kept)."""

    __slots__ = ()

    @property
    def removes(self) -> bool:
        return False

    def is_marked(self, child: KubeObject) -> bool:
        return bool(child.get("metadata.deletionTimestamp"))

    def mark(self, child: KubeObject) -> None:
        if not self.is_marked(child):
            child.set("metadata.deletionTimestamp", now_rfc3339())

    def unmark(self, child: KubeObject) -> None:
        child.delete("metadata.deletionTimestamp")


class DeleteAnnotation:
    """Mark with an annotation (``value``, ``"true"`` by default)."""

    __slots__ = ("key", "value")

    def __init__(self, key: str, value: str = "true") -> None:
        self.key = key
        self.value = value

    @property
    def removes(self) -> bool:
        return False

    def is_marked(self, child: KubeObject) -> bool:
        return child.annotations.get(self.key, "").lower() == self.value.lower()

    def mark(self, child: KubeObject) -> None:
        if not self.is_marked(child):
            child.annotations[self.key] = self.value

    def unmark(self, child: KubeObject) -> None:
        annotations = child.annotations
        if self.key in annotations:
            del annotations[self.key]


class RemoveChild:
    """Remove a child no longer wanted from the package (no mark: for generated items that no
    controller has to clean up). :meth:`ChildSync.apply` drops it from the items."""

    __slots__ = ()

    @property
    def removes(self) -> bool:
        return True

    def is_marked(self, child: KubeObject) -> bool:
        return False

    def mark(self, child: KubeObject) -> None:
        """Nothing to write: :class:`ChildSync` removes the child."""

    def unmark(self, child: KubeObject) -> None:
        """Nothing to undo: a removed child is not in the package."""


def default_child_path(owner: KubeObject, child: KubeObject) -> str:
    """``<owner's folder>/<lower kind>_<name>.yaml`` (kpt's default file name)."""
    folder = posixpath.dirname(owner.path or "")
    name = default_file_name(child.kind, child.name)
    return posixpath.join(folder, name) if folder else name


class ChildSync:
    """Children of many owners, synced in one pass over the items (no quadratic lookups).

    Index the items once, call :meth:`sync` per owner and :meth:`collect_orphans` once, then
    :meth:`apply` to insert the new children into ``items`` (after their owner's last child, or
    after the owner) and drop the removed ones. The desired objects passed to :meth:`sync` are
    taken over, not copied.

    - ``compare``: fields rewritten when they differ from the desired child's;
    - ``merge``: maps whose desired keys are set, keys added by hand being kept (labels,
      annotations);
    - ``namespaced``: match children (and name conflicts) within a namespace;
    - ``any_version``: recognise the ``owns`` kinds by group, any version (add ``"apiVersion"``
      to ``compare`` to update an older one in place);
    - ``in_desired_order``: place a new child right after the desired child before it (or the
      owner), as a function that lists its children in a fixed order expects, rather than after
      the owner's last child;
    - ``new_as_text``: hold each new child as its ``items`` text once it is marked and placed
      (:meth:`KubeObject.from_item`; the change and the items get that object): for a function
      that creates thousands of children and does not edit them afterwards (memory).
    """

    def __init__(
        self,
        items: Items,
        *,
        owns: Sequence[tuple[str, str]],
        ownership: Ownership,
        deletion: Deletion,
        compare: Sequence[str] = ("spec",),
        merge: Sequence[str] = (),
        namespaced: bool = False,
        any_version: bool = False,
        in_desired_order: bool = False,
        new_as_text: bool = False,
    ) -> None:
        self.items = items
        self.ownership = ownership
        self.deletion = deletion
        self.compare = tuple(compare)
        self.merge = tuple(merge)
        self.namespaced = namespaced
        self.any_version = any_version
        self.in_desired_order = in_desired_order
        self.new_as_text = new_as_text
        kinds = {self._kind(api_version, kind) for api_version, kind in owns}
        self._taken: dict[tuple[str, str, str, str], KubeObject] = {}
        self._children: dict[OwnerKey, list[KubeObject]] = {}
        self._owned: list[tuple[KubeObject, list[OwnerKey]]] = []
        # The items' positions, indexed when first asked for (only an owner with children or
        # in_desired_order asks: a first expansion of thousands of owners never does).
        self._initial = list(items)
        self._position: dict[int, int] | None = None
        for obj in self._initial:
            if self._kind(obj.api_version, obj.kind) not in kinds:
                continue
            self._taken.setdefault(self._identity(obj), obj)
            owners = ownership.owners(obj)
            if owners:
                self._owned.append((obj, owners))
                for key in dict.fromkeys(owners):
                    self._children.setdefault(key, []).append(obj)
        self._inserts: dict[int, list[KubeObject]] = {}
        self._removed: set[int] = set()

    def _kind(self, api_version: str, kind: str) -> tuple[str, str]:
        if self.any_version:
            return (api_version.rsplit("/", 1)[0] if "/" in api_version else "", kind)
        return (api_version, kind)

    def _identity(self, obj: KubeObject) -> tuple[str, str, str, str]:
        group_or_version, kind = self._kind(obj.api_version, obj.kind)
        return (group_or_version, kind, obj.name, obj.namespace if self.namespaced else "")

    def sync(self, owner: KubeObject, desired: Sequence[KubeObject]) -> list[ChildChange]:
        """Make ``owner``'s children of the ``owns`` kinds (apiVersion, kind) equal to ``desired``.

        - a desired child with no current counterpart (same apiVersion, kind, name) is marked as
          owned, placed in the owner's folder (unless it has a path) and inserted after the
          owner's last child (or the owner) by :meth:`apply`; the desired object itself is
          inserted, not a copy;
        - a counterpart whose ``compare`` fields equal the desired ones (and whose ``merge`` maps
          hold the desired keys) is left alone; otherwise those are rewritten in place; a
          counterpart marked for deletion is unmarked;
        - a current child that is not desired is marked for deletion (once), or removed;
        - a desired name already taken by an item the owner does not own is a ``conflict``.

        Returns one change per desired child (in order), then one per child marked or removed.
        """
        key = self.ownership.owner_key(owner)
        current = [c for c in self._children.get(key, []) if id(c) not in self._removed]
        by_identity = {self._identity(c): c for c in current}
        owner_at = self._at(owner) if current or self.in_desired_order else -1
        after = [c for c in current if self._at(c) > owner_at]
        anchor = after[-1] if after and not self.in_desired_order else owner
        anchor_at = owner_at
        changes: list[ChildChange] = []
        wanted: set[tuple[str, str, str, str]] = set()
        for want in desired:
            identity = self._identity(want)
            wanted.add(identity)
            have = by_identity.get(identity)
            if have is None:
                other = self._taken.get(identity)
                if other is not None:
                    changes.append(ChildChange("conflict", other, key))
                    continue
                created = self._place(want, owner)
                self._inserts.setdefault(id(anchor), []).append(created)
                self._taken[identity] = created
                if self.in_desired_order:
                    anchor = created  # the next new child follows this one
                changes.append(ChildChange("create", created, key))
                continue
            self.ownership.mark(have, owner)  # moves it to the form the owner allows now
            changes.append(ChildChange(self._update(have, want), have, key))
            have_at = self._at(have)
            if self.in_desired_order and have_at > anchor_at:
                anchor, anchor_at = have, have_at
        for child in current:
            if self._identity(child) not in wanted:
                if not self.deletion.removes:
                    self.ownership.mark(child, owner)
                changes.append(self._retire(child, key))
        return changes

    def _at(self, obj: KubeObject) -> int:
        """Where ``obj`` was in the items when this sync was made (-1: it was not)."""
        if self._position is None:
            self._position = {id(item): at for at, item in enumerate(self._initial)}
        return self._position.get(id(obj), -1)

    def _place(self, want: KubeObject, owner: KubeObject) -> KubeObject:
        """A new child marked as owned and given a path (held as its text with ``new_as_text``)."""
        hook = _object.WRITE_HOOK
        if hook is not None and self.new_as_text and of(want).is_new:
            # Under the output gate: new values dropped for their text, so krmlib's own marks
            # on them need no notes (a new item is checked whole); the text child is noted once.
            _object.WRITE_HOOK = None
            try:
                made = self._place_as(want, owner)
            finally:
                _object.WRITE_HOOK = hook
            hook(made, None, None)
            return made
        return self._place_as(want, owner)

    def _place_as(self, want: KubeObject, owner: KubeObject) -> KubeObject:
        self.ownership.mark(want, owner)
        if want.path is None:
            want.set_path(default_child_path(owner, want))
        if not self.new_as_text:
            return want
        as_text = KubeObject.from_item(want.to_item())
        of(as_text).new_item((want.api_version, want.kind, want.name, want.namespace))
        return as_text

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
        for path in self.merge:
            wanted = want.get(path)
            if not isinstance(wanted, dict):
                continue
            keys = tuple(parse_path(path))
            for name, value in wanted.items():
                changed = have.set((*keys, name), value) or changed
        return "update" if changed else "unchanged"

    def _retire(self, child: KubeObject, owner: OwnerKey) -> ChildChange:
        """Mark ``child`` for deletion, or remove it (and free its name)."""
        if self.deletion.removes:
            self._removed.add(id(child))
            identity = self._identity(child)
            if self._taken.get(identity) is child:
                del self._taken[identity]
            return ChildChange("remove", child, owner)
        if self.deletion.is_marked(child):
            return ChildChange("pending-delete", child, owner)
        self.deletion.mark(child)
        return ChildChange("delete", child, owner)

    def collect_orphans(self, owner_kind: tuple[str, str]) -> list[ChildChange]:
        """Mark (or remove) the children whose ``owner_kind`` owners are all gone.

        ``owner_kind`` is (apiVersion, kind) as in the keys the ownership gives (for
        :class:`OwnerNameAnnotation`, ``("", kind)``).
        """
        # An owner key keeps its object's kind: only objects of that kind can be present owners.
        kind = owner_kind[1]
        present = {self.ownership.owner_key(obj) for obj in self.items if obj.kind == kind}
        changes = []
        for child, owners in self._owned:
            if id(child) in self._removed:
                continue
            relevant = [o for o in owners if (o.api_version, o.kind) == owner_kind]
            if relevant and not any(o in present for o in relevant):
                if not self.deletion.removes:
                    self.ownership.mark(child, _stand_in(relevant[0]))
                changes.append(self._retire(child, relevant[0]))
        return changes

    def apply(self) -> None:
        """Insert the created children into the items and drop the removed ones (one pass)."""
        if not self._inserts and not self._removed:
            return
        out: list[KubeObject] = []
        for obj in self.items:
            if id(obj) not in self._removed:
                out.append(obj)
            self._emit(obj, out)
        self.items.replace_all(out)
        self._inserts = {}
        self._removed = set()

    def _emit(self, anchor: KubeObject, out: list[KubeObject]) -> None:
        """``anchor``'s new children, each followed by its own (with ``in_desired_order`` each
        new child anchors the next: a chain as long as the children, so a stack, no recursion)."""
        pending = self._inserts.pop(id(anchor), None)
        if pending is None:
            return
        stack = [iter(pending)]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                continue
            out.append(child)
            nested = self._inserts.pop(id(child), None)
            if nested is not None:
                stack.append(iter(nested))


def _stand_in(key: OwnerKey) -> KubeObject:
    """An owner that is gone, for :meth:`Ownership.mark` (no uid: it is not in the package)."""
    return KubeObject.from_dict(
        {"apiVersion": key.api_version, "kind": key.kind, "metadata": {"name": key.name}}
    )
