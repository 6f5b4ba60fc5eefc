"""A package tree on disk, for ``krmfn prepare-all``: its deployment packages, children first."""

from __future__ import annotations

import os
from pathlib import Path

from krmfn.tko import preparer_step


def packages_under(
    root: Path, skip: Path | None, unlistable: list[tuple[Path, str]] | None = None
) -> list[Path]:
    """Every folder with a Kptfile under ``root`` (``skip``, hidden folders and symbolic links
    left out, as kpt leaves them out), children before parents (kpt renders subpackages first).
    A folder that cannot be listed goes to ``unlistable`` with the system's reason."""
    found: list[Path] = []

    def refused(exc: OSError) -> None:
        if unlistable is not None:
            unlistable.append((Path(exc.filename or root), exc.strerror or str(exc)))

    for current, dirs, files in os.walk(root, followlinks=False, onerror=refused):
        folder = Path(current)
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and not os.path.islink(os.path.join(current, d))
            and not (skip is not None and (folder / d).resolve().is_relative_to(skip))
        )
        kptfile = folder / "Kptfile"
        if "Kptfile" in files and not kptfile.is_symlink() and kptfile.is_file():
            found.append(folder)
    return sorted(found, key=lambda p: (-len(p.parts), str(p)))


__all__ = ["packages_under", "preparer_step"]
