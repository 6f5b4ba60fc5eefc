"""Items: the ordered objects of a package, with selection by composable predicates."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, overload

from krmlib._base.errors import KrmError

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
        self._version = 0

    @property
    def version(self) -> int:
        """How many times objects were added, removed or replaced here: a key for what is
        computed from the list (``ResourceList.package()`` keeps its answer by it)."""
        return self._version

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

    def append(self, obj: KubeObject, after: KubeObject | None = None) -> KubeObject:
        """Add ``obj`` at the end, or right after ``after`` (and its earlier followers)."""
        self._version += 1
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
        self._version += 1
        self._objects.pop(self.index(obj))

    def replace_all(self, objects: Iterable[KubeObject]) -> None:
        """Make ``objects`` the items, in their order (a function that rebuilds the list)."""
        self._version += 1
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


class FunctionPackage:
    """The package a function runs for: the Kptfile and the folder of the package kpt renders
    or evaluates.

    Under ``kpt fn render`` of a package with subpackages, the pipeline of the package gets the
    subpackages' items first, each with a path relative to its own package (``Kptfile``,
    ``cm.yaml``) and ``internal.config.kubernetes.io/package-path`` naming its package folder,
    then its own. So the package is the Kptfile at path ``Kptfile`` with the shortest
    package-path (the outermost folder), and every item's package-path must be that folder or a
    folder inside it. Under ``kpt fn eval`` (subpackage Kptfiles at ``sub/Kptfile``) and for
    standalone files no item has a package-path: the package is the one Kptfile at path
    ``Kptfile`` (or none) and its folder is unknown (``folder`` None: the working directory is
    the usual stand-in). Without such a Kptfile, the folder is the one package-path the items
    share. ``tests/test_package_rule.py`` checks the rule against kpt in each layout.

    Refused, as a :class:`KrmError` naming the item and the field: an item whose package-path
    lies outside the package folder (it would move the folder that files and programs resolve
    against), two Kptfiles at path ``Kptfile`` for one folder, and items naming different
    folders with no Kptfile to say which is the package.
    """

    __slots__ = ("folder", "kptfile")

    def __init__(self, kptfile: KubeObject | None, folder: str | None) -> None:
        self.kptfile = kptfile  # the package's Kptfile, None when the input has none
        self.folder = folder  # the package folder as kpt names it (absolute), or None

    def __repr__(self) -> str:
        name = self.kptfile.name if self.kptfile is not None else None
        return f"<FunctionPackage {name!r} at {self.folder!r}>"

    @classmethod
    def of(cls, items: Iterable[KubeObject]) -> FunctionPackage:
        """The package of ``items`` by the rule above."""
        import posixpath

        objects = list(items)
        kptfiles: list[KubeObject] = []
        declared: list[tuple[str, KubeObject]] = []
        for obj in objects:
            if is_kptfile(obj) and posixpath.normpath(obj.path or KPTFILE_KIND) == KPTFILE_KIND:
                kptfiles.append(obj)
            if obj.may_mention("package-path"):
                folder = obj.package_path
                if folder:
                    declared.append((posixpath.normpath(folder), obj))
        if not declared:
            if len(kptfiles) > 1:
                raise _two_kptfiles(kptfiles[1], kptfiles[0], None)
            return cls(kptfiles[0] if kptfiles else None, None)
        candidates = [
            (posixpath.normpath(k.package_path or ""), k) for k in kptfiles if k.package_path
        ]
        kptfile: KubeObject | None
        if candidates:
            folder, kptfile = min(candidates, key=lambda c: (len(_parts(c[0])), c[0]))
            for other in kptfiles:
                place = other.package_path
                if other is not kptfile and (not place or posixpath.normpath(place) == folder):
                    raise _two_kptfiles(other, kptfile, folder)
        else:
            folders = sorted({folder for folder, _obj in declared})
            if len(folders) > 1:
                obj = next(o for f, o in declared if f == folders[1])
                raise KrmError(
                    f"items name different package folders ({folders[0]}, {folders[1]}) and "
                    "no Kptfile at path Kptfile says which package this is",
                    obj=obj,
                    field=_PACKAGE_PATH_FIELD,
                )
            folder = folders[0]
            if len(kptfiles) > 1:
                raise _two_kptfiles(kptfiles[1], kptfiles[0], folder)
            kptfile = kptfiles[0] if kptfiles else None
        inside = folder.rstrip("/") + "/"
        for place, obj in declared:
            if place != folder and not place.startswith(inside):
                raise KrmError(
                    f"package-path {place} is outside the package being rendered ({folder}, "
                    f"the folder of its Kptfile): kpt gives every item its own package's "
                    "folder or a subpackage's",
                    obj=obj,
                    field=_PACKAGE_PATH_FIELD,
                )
        return cls(kptfile, folder)


_PACKAGE_PATH_FIELD = 'metadata.annotations["internal.config.kubernetes.io/package-path"]'


def _parts(folder: str) -> list[str]:
    return [part for part in folder.split("/") if part]


def _two_kptfiles(second: KubeObject, first: KubeObject, folder: str | None) -> KrmError:
    where = f"the package folder {folder}" if folder else "the package"
    return KrmError(
        f"a second Kptfile at path Kptfile for {where} (the first: {first.name}): kpt gives each "
        "package one",
        obj=second,
        field='metadata.annotations["internal.config.kubernetes.io/path"]',
    )
