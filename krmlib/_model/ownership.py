"""Who owns a child, and how a child is marked for deletion: the policies
:class:`krmlib.children.ChildSync` is given. Public in :mod:`krmlib.children`, which re-exports
every name here; apart so that the sync stays one readable module.
"""

# Annotations are not postponed here (no ``from __future__ import annotations``): typing.NamedTuple
# gets the types, where a string would make a typing.ForwardRef, whose compile() costs about
# 10 M instructions at start-up (issue 37; tests/test_startup_imports.py).
import os
from typing import Any, NamedTuple, Protocol

from krmlib._base.errors import KrmError

from .object import KubeObject


class OwnerKey(NamedTuple):
    """The identity of an owner: apiVersion, kind and name (and a namespace for an ownership
    that scopes owners by namespace, as :class:`OwnerNameAnnotation`)."""

    api_version: str
    kind: str
    name: str
    namespace: str = ""

    @classmethod
    def of(cls, obj: KubeObject) -> "OwnerKey":
        return cls(obj.api_version, obj.kind, obj.name)

    def __str__(self) -> str:
        return f"{self.api_version}.{self.kind}.{self.name}"


class Ownership(Protocol):
    """How a child points at its owner."""

    def owner_key(self, owner: KubeObject) -> OwnerKey:
        """The key :meth:`owners` returns for the children of ``owner`` (of ``owner``'s kind)."""
        ...

    def owners(self, child: KubeObject) -> list[OwnerKey]: ...

    def mark(self, child: KubeObject, owner: KubeObject) -> None: ...


# An ownership may also offer ``mark_values(metadata, owner) -> bool``: the same mark written
# into the ``metadata`` map of a new child's plain values (the one :meth:`Ownership.mark` would
# write on a new object), False with nothing written when unsure. :class:`ChildSync` uses it for
# a new child it holds as text (``new_as_text``): no write through the object, one emit.


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

    def mark_values(self, metadata: dict[str, Any], owner: KubeObject) -> bool:
        """:meth:`mark` on a new child's values (no ownerReferences yet; else unsure)."""
        if "ownerReferences" in metadata:
            return False
        metadata["ownerReferences"] = [_reference(OwnerKey.of(owner))]
        return True


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

    def mark_values(self, metadata: dict[str, Any], owner: KubeObject) -> bool:
        """:meth:`mark` on a new child's values."""
        return _annotate(metadata, self.key, str(OwnerKey.of(owner)))


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

    def mark_values(self, metadata: dict[str, Any], owner: KubeObject) -> bool:
        """:meth:`mark` on a new child's values (no ownerReferences yet; else unsure)."""
        if "ownerReferences" in metadata:
            return False
        uid = owner.get("metadata.uid")
        if isinstance(uid, str) and uid:
            annotations = metadata.get("annotations")
            if isinstance(annotations, dict) and self.key in annotations:
                return False  # the annotation goes: the general way
            metadata["ownerReferences"] = [{**_reference(OwnerKey.of(owner)), "uid": uid}]
            return True
        return _annotate(metadata, self.key, str(OwnerKey.of(owner)))

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

    def mark_values(self, metadata: dict[str, Any], owner: KubeObject) -> bool:
        """:meth:`mark` on a new child's values."""
        return _annotate(metadata, self.key, owner.name)


def annotation_value(annotations: dict[str, Any], key: str) -> str | None:
    """``annotations[key]`` as :attr:`KubeObject.annotations` reads it (None when absent)."""
    if key not in annotations:
        return None
    value = annotations[key]
    return "" if value is None else str(value)


def _annotate(metadata: dict[str, Any], key: str, value: str) -> bool:
    """The annotation ``key`` set to ``value`` in a new child's ``metadata`` values, as
    ``child.annotations[key] = value`` writes it unless it reads ``value`` already (a missing or
    null map made); False, with nothing written, when the annotations are not a map."""
    annotations = metadata.get("annotations")
    if annotations is None:
        metadata["annotations"] = {key: value}
        return True
    if not isinstance(annotations, dict):
        return False
    if annotation_value(annotations, key) != value:
        annotations[key] = value
    return True


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
    from datetime import UTC, datetime  # only a deletion mark needs it: not at start-up

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
