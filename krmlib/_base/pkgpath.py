"""File paths inside a package: never absolute, never leaving it."""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from .errors import InputError, KrmError

if TYPE_CHECKING:
    from krmlib._model.object import KubeObject

_UNSAFE = r"[^A-Za-z0-9._/-]"  # for re.sub, compiled on first use: a new file's name only
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"^[A-Za-z]:")
PATH_ANNOTATIONS = ("internal.config.kubernetes.io/path", "config.kubernetes.io/path")


def check_relative_path(path: str, obj: KubeObject | None = None) -> str:
    """Raise unless ``path`` is a clean relative path inside the package; return it normalised.

    Refused: empty, absolute (``/x``, ``C:x``), backslashes, NUL and other control characters,
    and any path whose normal form is ``.`` or starts with ``..``."""
    if not isinstance(path, str) or not path:
        raise KrmError(f"path {path!r} must be a relative file path", obj=obj)
    if path.startswith("/") or _DRIVE.match(path):
        raise KrmError(f"path {path!r} must be relative to the package", obj=obj)
    if "\\" in path or _CONTROL.search(path):
        raise KrmError(
            f"path {path!r} holds a backslash or a control character: not a package path",
            obj=obj,
        )
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../") or normal in (".", ""):
        raise KrmError(f"path {path!r} leaves the package", obj=obj)
    return normal


def check_path_annotations(obj: KubeObject) -> None:
    """The item's path annotations, decoded (escapes, folded lines, anchors resolved), must be
    clean relative paths: kpt writes the item to that file."""
    annotations = obj.annotations
    for key in PATH_ANNOTATIONS:
        value = annotations.get(key)
        if value is None:
            continue
        try:
            check_relative_path(value, obj)
        except KrmError as exc:
            raise InputError(
                f"{exc.message}: a function must not make kpt write outside the package",
                obj=obj,
                field=f'metadata.annotations["{key}"]',
            ) from None


def default_file_name(kind: str, name: str) -> str:
    """kpt's default file for a new item: ``<lower kind>_<name>.yaml``."""
    return f"{kind.lower()}_{re.sub(_UNSAFE, '-', name)}.yaml"
