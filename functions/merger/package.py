"""Files on disk for ``krmfn deployment create``: merge inputs, and copying the template.

Reading and writing the package itself is krmlib's (``krmlib.Package``)."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path

from krmlib import KrmError, KubeObject, read_objects, safe_target


def read_inputs(paths: Iterable[Path]) -> list[KubeObject]:
    """Merge inputs from files or folders (their resource files, as kpt reads a package), in the
    order given. Only regular files are read."""
    objects: list[KubeObject] = []
    for path in paths:
        if not path.exists():
            raise KrmError(f"merge file {path} not found")
        try:
            found = read_objects(path)
        except KrmError as exc:
            raise KrmError(f"merge file {path}: {exc}") from None
        if not found:
            raise KrmError(f"merge file {path} holds no resources")
        objects.extend(found)
    return objects


def copy_package(source: Path, target: Path) -> None:
    """Copy the folder ``source`` into ``target``: folders and regular files only. A symbolic
    link or a special file in ``source`` is refused before anything is copied (a link could
    make the copy read or write outside both folders)."""
    plan: list[tuple[str, bool]] = []  # (relative path, is a folder)
    for current, dirs, files in os.walk(source, followlinks=False):
        for name in sorted(dirs + files):
            full = Path(current) / name
            rel = full.relative_to(source).as_posix()
            mode = full.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise KrmError(f"template {source}: {rel} is a symbolic link; refused")
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                raise KrmError(f"template {source}: {rel} is not a regular file; refused")
            plan.append((rel, stat.S_ISDIR(mode)))
    target.mkdir(parents=True, exist_ok=True)
    for rel, is_dir in sorted(plan):
        destination = safe_target(target, rel)
        if is_dir:
            destination.mkdir(exist_ok=True)
        else:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, destination, follow_symlinks=False)
