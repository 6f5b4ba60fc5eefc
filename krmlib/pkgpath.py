"""File paths inside a package: never absolute, never leaving it."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from .errors import KrmError

if TYPE_CHECKING:
    from .object import KubeObject

_UNSAFE = re.compile(r"[^A-Za-z0-9._/-]")


def check_relative_path(path: str, obj: KubeObject | None = None) -> str:
    """Raise unless ``path`` is a clean relative path inside the package; return it normalised."""
    if not path or path.startswith("/") or "\\" in path or "\x00" in path:
        raise KrmError(f"path {path!r} must be relative to the package", obj=obj)
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../") or normal in (".", ""):
        raise KrmError(f"path {path!r} leaves the package", obj=obj)
    return normal


def default_file_name(kind: str, name: str) -> str:
    """kpt's default file for a new item: ``<lower kind>_<name>.yaml``."""
    return f"{kind.lower()}_{_UNSAFE.sub('-', name)}.yaml"
