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

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
import posixpath
from collections.abc import Sequence
from typing import Literal, NamedTuple

from ._base.paths import parse_path
from ._base.pkgpath import check_relative_path, default_file_name
from ._model import storage as _storage
from ._model.collection import Items
from ._model.object import ANN_LEGACY_PATH, ANN_PATH, KubeObject
from ._model.ownership import (
    DeleteAnnotation,
    Deletion,
    DeletionTimestamp,
    OwnerAnnotation,
    OwnerKey,
    OwnerNameAnnotation,
    OwnerReferenceOrAnnotation,
    OwnerReferences,
    Ownership,
    RemoveChild,
    annotation_value,
    now_rfc3339,
    parse_owner,
)
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


class ChildChange(NamedTuple):
    action: Action
    child: KubeObject
    owner: OwnerKey


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
        header = of(obj).head()
        if not self.any_version and (self.namespaced or not header[3]):
            return header  # (apiVersion, kind, name, namespace) itself: no tuple more per child
        group_or_version, kind = self._kind(header[0], header[1])
        return (group_or_version, kind, header[2], header[3] if self.namespaced else "")

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
        """A new child marked as owned and given a path (held as its text with ``new_as_text``:
        the mark and path go straight into its values, no write through the object, and the
        text child's creation is what the output gate notes)."""
        if not (self.new_as_text and self._place_values(want, owner)):
            self.ownership.mark(want, owner)
            if want.path is None:
                want.set_path(default_child_path(owner, want))
            if not self.new_as_text:
                return want
        as_text = KubeObject.from_item(want.to_item())
        of(as_text).new_item(of(want).head())  # the tuple the identity may be: shared
        return as_text

    def _place_values(self, want: KubeObject, owner: KubeObject) -> bool:
        """The mark and the path written straight into the values of a new object made of
        plain values (what :meth:`Ownership.mark` and :meth:`KubeObject.set_path` write there,
        without a write through the object each: its text is made next); False, with nothing
        written, when ``want`` is not such an object or the ownership offers no
        ``mark_values`` or is unsure (then the general way)."""
        store = of(want)
        mark_values = getattr(self.ownership, "mark_values", None)
        values = store.plain
        if mark_values is None or not store.is_new or not isinstance(values, dict):
            return False
        metadata = values.get("metadata")
        if not isinstance(metadata, dict):
            return False
        annotations = metadata.get("annotations")
        if annotations is not None and not isinstance(annotations, dict):
            return False
        if not mark_values(metadata, owner):
            return False
        _storage.IDENTITY_EDITS[0] += 1  # a write to metadata, as set() counts one
        annotations = metadata.get("annotations")
        found = {} if annotations is None else annotations
        if (annotation_value(found, ANN_PATH) or annotation_value(found, ANN_LEGACY_PATH)) is None:
            path = default_child_path(owner, want)
            check_relative_path(path, obj=want)
            if annotations is None:
                annotations = metadata["annotations"] = {}
            annotations[ANN_PATH] = path
            annotations[ANN_LEGACY_PATH] = path
        return True

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
