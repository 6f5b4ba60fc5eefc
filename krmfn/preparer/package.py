"""Which items are the package's own, where it lives on disk, and its Deployment resource.

kpt gives a package's pipeline the items of the package and of its subpackages. In ``kpt fn
render`` every item carries its package folder (``internal.config.kubernetes.io/package-path``)
and a path relative to it; in ``kpt fn eval``/``source`` subpackage items have paths such as
``child/Kptfile``. Both are brought to one form here: an item's file relative to the root package.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING

from krmlib import FunctionPackage, Items, KubeObject, is_kptfile

if TYPE_CHECKING:  # pathlib (urllib, ipaddress) where a path is made: not a start-up cost
    from pathlib import Path


class PackageView:
    """The root package of a ResourceList: its folder (if known) and its subpackages (built
    once per pass; :meth:`add_subpackage` records a child created during the pass)."""

    __slots__ = ("root", "subpackages")

    def __init__(self, root: Path | None, subpackages: set[str]) -> None:
        self.root = root
        self.subpackages = subpackages

    @classmethod
    def of(cls, items: Iterable[KubeObject]) -> PackageView:
        objects = list(items)
        root = FunctionPackage.of(objects).folder  # the rendered package's folder (or None)
        if root:
            from pathlib import Path  # a package on disk: not a start-up cost
        view = cls(Path(root) if root else None, set())
        subs = {
            posixpath.dirname(view.file_of(o))
            for o in objects
            if is_kptfile(o) and posixpath.dirname(view.file_of(o))
        }
        view.subpackages = subs
        return view

    def file_of(self, obj: KubeObject) -> str:
        """The item's file relative to the root package."""
        path = obj.path or ""
        pkg = obj.package_path
        if pkg and self.root is not None and pkg != str(self.root):
            rel = os.path.relpath(pkg, self.root)
            if not rel.startswith(".."):
                return posixpath.normpath(posixpath.join(rel.replace(os.sep, "/"), path))
        return posixpath.normpath(path) if path else ""

    def subpackage_of(self, obj: KubeObject) -> str | None:
        """The subpackage folder (relative) an item lives in, or None for the root's items."""
        if not self.subpackages:  # a package without subpackages owns every item
            return None
        folder = posixpath.dirname(self.file_of(obj))
        while folder:  # the deepest folder of the file's path that is a subpackage
            if folder in self.subpackages:
                return folder
            folder = posixpath.dirname(folder)
        return None

    def own(self, items: Items) -> list[KubeObject]:
        return [o for o in items if self.subpackage_of(o) is None]

    def has_subpackage(self, folder: str) -> bool:
        return folder in self.subpackages

    def add_subpackage(self, folder: str) -> None:
        self.subpackages.add(folder)


__all__ = ["PackageView"]
