"""Files on disk for ``krmfn deployment create``: merge inputs, and copying the template.

Reading and writing the package itself is krmlib's (``krmlib.packages.Package``)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from krmlib import KrmError, KubeObject
from krmlib.packages import read_objects


def read_inputs(paths: Iterable[Path]) -> list[KubeObject]:
    """Merge inputs from files or folders (their resource files, as kpt reads a package), in the
    order given. Only regular files are read."""
    objects: list[KubeObject] = []
    for path in paths:
        if not path.exists():
            raise KrmError(f"merge file {path} not found")
        try:
            found = read_objects(path, tree=True)
        except KrmError as exc:
            raise KrmError(f"merge file {path}: {exc}") from None
        if not found:
            raise KrmError(f"merge file {path} holds no resources")
        objects.extend(found)
    return objects


def template_files(source: Path) -> dict[str, bytes]:
    """The files of the template folder ``source`` to copy (relative path: bytes): folders and
    regular files only. A symbolic link or a special file in ``source`` is refused before
    anything is written (a link could make the copy read or write outside both folders)."""
    found: dict[str, bytes] = {}
    for current, dirs, files in os.walk(source, followlinks=False):
        for name in sorted(dirs + files):
            full = Path(current) / name
            rel = full.relative_to(source).as_posix()
            mode = full.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise KrmError(f"template {source}: {rel} is a symbolic link; refused")
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                raise KrmError(f"template {source}: {rel} is not a regular file; refused")
            if stat.S_ISREG(mode):
                found[rel] = full.read_bytes()
    return found
