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
from dataclasses import dataclass
from pathlib import Path

from krmlib import ANN_PACKAGE_PATH, Items, KubeObject, is_kptfile

ANN_PREPARED = "nephio.org/prepared"
ANN_PREPARE = "nephio.org/prepare"
DEPLOYMENT_API = "deployment.nephio.org/v1alpha1"
DEPLOYMENT_KIND = "Deployment"
DEPLOYMENT_NAME = "deployment"
DEPLOYMENT_FILE = "deployment.yaml"


def is_prepared(obj: KubeObject) -> bool:
    return obj.annotations.get(ANN_PREPARED) == "true"


def prepare_mode(obj: KubeObject) -> str:
    return obj.annotations.get(ANN_PREPARE) or "Here"


@dataclass(frozen=True)
class PackageView:
    """The root package of a ResourceList: its folder (if known) and its own items."""

    root: Path | None
    subpackages: frozenset[str]

    @classmethod
    def of(cls, items: Iterable[KubeObject]) -> PackageView:
        objects = list(items)
        paths = [p for p in (o.package_path for o in objects) if p]
        root = min(paths, key=len) if paths else None
        view = cls(Path(root) if root else None, frozenset())
        subs = {
            posixpath.dirname(view.file_of(o))
            for o in objects
            if is_kptfile(o) and posixpath.dirname(view.file_of(o))
        }
        return cls(view.root, frozenset(subs))

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
        file = self.file_of(obj)
        best: str | None = None
        for sub in self.subpackages:
            if file.startswith(sub + "/") and (best is None or len(sub) > len(best)):
                best = sub
        return best

    def own(self, items: Items) -> list[KubeObject]:
        return [o for o in items if self.subpackage_of(o) is None]

    def has_subpackage(self, folder: str) -> bool:
        return folder in self.subpackages


def find_deployment(objects: Iterable[KubeObject]) -> KubeObject | None:
    for obj in objects:
        if obj.is_kind(DEPLOYMENT_API, DEPLOYMENT_KIND) and obj.name == DEPLOYMENT_NAME:
            return obj
    return None


def new_deployment(spec: dict[str, str] | None = None) -> KubeObject:
    data: dict[str, object] = {
        "apiVersion": DEPLOYMENT_API,
        "kind": DEPLOYMENT_KIND,
        "metadata": {"name": DEPLOYMENT_NAME},
    }
    if spec:
        data["spec"] = dict(spec)
    return KubeObject.from_dict(data)


__all__ = [
    "ANN_PACKAGE_PATH",
    "ANN_PREPARE",
    "ANN_PREPARED",
    "DEPLOYMENT_API",
    "DEPLOYMENT_FILE",
    "DEPLOYMENT_KIND",
    "DEPLOYMENT_NAME",
    "PackageView",
    "find_deployment",
    "is_prepared",
    "new_deployment",
    "prepare_mode",
]
