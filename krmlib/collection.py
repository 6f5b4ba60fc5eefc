"""Items: the ordered objects of a package, with selection by composable predicates."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, overload

from .object import KubeObject

Predicate = Callable[[KubeObject], bool]

KPTFILE_API_VERSION = "kpt.dev/v1"
KPTFILE_KIND = "Kptfile"


def is_kind(api_version: str | None, kind: str | None = None) -> Predicate:
    """Objects of ``api_version`` (exact, ``group/*`` or ``*``; None: any) and ``kind`` (None:
    any): the arguments in the order of :meth:`KubeObject.is_kind`."""
    return lambda obj: obj.is_kind(api_version, kind)


def has_name(name: str, namespace: str | None = None) -> Predicate:
    """Objects named ``name`` (in ``namespace``, when given)."""
    return lambda obj: obj.name == name and (namespace is None or obj.namespace == namespace)


def has_labels(labels: Mapping[str, str]) -> Predicate:
    """Objects with every label of ``labels`` (key and value)."""
    return lambda obj: all(obj.labels.get(k) == v for k, v in labels.items())


def has_annotations(annotations: Mapping[str, str]) -> Predicate:
    """Objects with every annotation of ``annotations`` (key and value)."""
    return lambda obj: all(obj.annotations.get(k) == v for k, v in annotations.items())


def is_local_config(obj: KubeObject) -> bool:
    """A predicate: :attr:`KubeObject.is_local_config`."""
    return obj.is_local_config


def is_kptfile(obj: KubeObject) -> bool:
    """A predicate: a ``kpt.dev`` Kptfile."""
    return obj.kind == KPTFILE_KIND and obj.group == "kpt.dev"


class Items:
    """An ordered, mutable list of objects. Order is the user's: never sorted."""

    def __init__(self, objects: Iterable[KubeObject] = ()) -> None:
        self._objects = list(objects)

    def __iter__(self) -> Iterator[KubeObject]:
        return iter(list(self._objects))

    def __len__(self) -> int:
        return len(self._objects)

    @overload
    def __getitem__(self, index: int) -> KubeObject: ...
    @overload
    def __getitem__(self, index: slice) -> list[KubeObject]: ...
    def __getitem__(self, index: int | slice) -> KubeObject | list[KubeObject]:
        return self._objects[index]

    def __contains__(self, obj: object) -> bool:
        return any(o is obj for o in self._objects)

    def where(self, *predicates: Predicate, **fields: Any) -> Items:
        """Objects matching every predicate and field (``kind=``, ``name=``, ``api_version=``,
        ``namespace=``)."""
        preds = list(predicates) + [_field_predicate(k, v) for k, v in fields.items()]
        return Items(o for o in self._objects if all(p(o) for p in preds))

    def where_not(self, *predicates: Predicate) -> Items:
        """The objects that match none of ``predicates`` (in order)."""
        return Items(o for o in self._objects if not any(p(o) for p in predicates))

    def first(self, *predicates: Predicate, **fields: Any) -> KubeObject | None:
        """The first object :meth:`where` selects, or None."""
        for obj in self.where(*predicates, **fields):
            return obj
        return None

    def find(self, api_version: str | None, kind: str, name: str) -> KubeObject | None:
        """The object with this identity (namespace ignored), if any."""
        return self.first(is_kind(api_version, kind), has_name(name))

    @property
    def kptfile(self) -> KubeObject | None:
        """The package's root Kptfile (the one at path ``Kptfile``, else the first)."""
        kptfiles = [o for o in self._objects if is_kptfile(o)]
        for obj in kptfiles:
            if obj.path in (None, "Kptfile"):
                return obj
        return kptfiles[0] if kptfiles else None

    def append(self, obj: KubeObject, after: KubeObject | None = None) -> KubeObject:
        """Add ``obj`` at the end, or right after ``after`` (and its earlier followers)."""
        if after is None:
            self._objects.append(obj)
        else:
            index = self.index(after)
            self._objects.insert(index + 1, obj)
        return obj

    def index(self, obj: KubeObject) -> int:
        """The place of ``obj`` itself (by identity, not equality); ValueError when absent."""
        for index, other in enumerate(self._objects):
            if other is obj:
                return index
        raise ValueError(f"{obj!r} is not in the list")

    def remove(self, obj: KubeObject) -> None:
        """Remove ``obj`` itself (by identity) from the items."""
        self._objects.pop(self.index(obj))

    def replace_all(self, objects: Iterable[KubeObject]) -> None:
        """Make ``objects`` the items, in their order (a function that rebuilds the list)."""
        self._objects = list(objects)


def _field_predicate(name: str, value: Any) -> Predicate:
    if name == "kind":
        return lambda obj: obj.kind == value
    if name == "api_version":
        return lambda obj: obj.is_kind(value, None)
    if name == "name":
        return lambda obj: obj.name == value
    if name == "namespace":
        return lambda obj: obj.namespace == value
    if name == "labels":
        return has_labels(value)
    if name == "annotations":
        return has_annotations(value)
    raise TypeError(f"unknown selection field {name!r}")
